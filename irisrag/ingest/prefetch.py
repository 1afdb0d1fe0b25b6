"""Read a document's pages in a background thread while the caller chunks and embeds them.

PDF text extraction (pypdf, pure Python) costs about 25 ms a page here, a third of a PDF
import when it runs before embedding. The embedder spends most of its time in NumPy/BLAS
calls that release the GIL, so extraction in a second thread overlaps with it. The queue is
bounded: at most ``depth`` pages wait in memory, whatever the page count.
"""
from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator

from irisrag.ingest.pages import Page

_END = object()


class PagePrefetch:
    """Iterate pages produced by ``source()`` in a daemon thread; re-raise its errors here.

    ``extract_seconds`` is the producer's time inside the extractor; ``wait_seconds`` the
    consumer's time blocked on the queue (extraction the overlap did not hide).
    """

    def __init__(self, source: Callable[[], Iterator[Page]], depth: int = 16) -> None:
        self._source = source
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self.extract_seconds = 0.0
        self.wait_seconds = 0.0
        self.pages_read = 0
        self.finished = False
        self._thread = threading.Thread(target=self._produce, name="page-prefetch", daemon=True)
        self._thread.start()

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self) -> None:
        try:
            pages = self._source()
            while True:
                began = time.perf_counter()
                page = next(pages, _END)
                self.extract_seconds += time.perf_counter() - began
                if page is _END or not self._put(page):
                    break
        except BaseException as exc:  # handed to the consumer, which raises it in its own thread
            self._error = exc
        finally:
            self._put(_END)

    def __iter__(self) -> Iterator[Page]:
        try:
            while True:
                began = time.perf_counter()
                item = self._queue.get()
                self.wait_seconds += time.perf_counter() - began
                if item is _END:
                    break
                self.pages_read += 1
                yield item
            if self._error is not None:
                raise self._error
            self.finished = True
        finally:
            self.close()

    def close(self) -> None:
        """Stop the producer (after an error downstream) and wait for it to end."""
        self._stop.set()
        self._thread.join(timeout=30)
