"""A fetch's heartbeat: keeps the document's lock and row fresh while a step reports no progress."""
from __future__ import annotations

import logging
import threading

from irisrag.extensions import db
from irisrag.models import Document
from irisrag.models.base import utcnow

log = logging.getLogger("irisrag.jobs.documents")  # the import job's log lines, as before the move


class Beat:
    """A daemon thread that calls ``beat()`` every ``every`` seconds while the ``with`` block runs."""

    def __init__(self, every: float, name: str) -> None:
        self.every, self._stop = every, threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.beat()

    def beat(self) -> None:
        raise NotImplementedError


class Heartbeat(Beat):
    """While a step reports no progress of its own (a fetch), renew the lock and touch the row.

    A fetch may legitimately take up to URL_TOTAL_TIMEOUT without a byte of progress; the
    beat shows the job is alive, so it is never judged "its worker stopped" and retried
    alongside itself. A killed work horse stops beating, and the verdict follows as before.
    """

    def __init__(self, document_id: int, lock, every: float) -> None:
        super().__init__(every, "import-heartbeat")
        self.document_id, self.lock = document_id, lock

    def beat(self) -> None:
        try:
            self.lock.reacquire()
            with db.connection_context():
                Document.update(updated_at=utcnow()).where(Document.id == self.document_id).execute()
        except Exception as exc:  # the fetch itself decides the outcome; a missed beat is logged
            log.warning("import_heartbeat_failed document_id=%s error=%s", self.document_id, exc)
