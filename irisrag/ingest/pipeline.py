"""The import pipeline: hash check -> extract -> chunk -> embed (batched) -> store (batched).

Flask-free and database-free: the caller passes the document's identity, the last known
hash and a progress callback, and records the result. Pages stream from a reader thread
through the chunker into embedding batches, and the embedded chunks go to LanceDB as they
are ready, so memory holds a few pages and one write batch whatever the document's length.
A document is never half-indexed: one of up to ``write_rows`` chunks is written in one
commit (``VectorStore.replace_document``); a longer one is staged batch by batch and shown
in one commit at the end (``VectorStore.staged_replacement``, ``irisrag.vectors.staging``).
Until that commit readers see the old chunks, after it the new ones; a failure before it
deletes what was staged and leaves the old chunks in place.
"""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from irisrag.errors import DuplicateContent, ExtractionError
from irisrag.i18n import N_
from irisrag.ingest.chunk import Chunk, chunk_pages
from irisrag.ingest.extract import EMPTY_MESSAGE, page_source, streams_records
from irisrag.ingest.heap import fix_malloc_thresholds
from irisrag.ingest.ocr import OcrSettings
from irisrag.ingest.prefetch import PagePrefetch
from irisrag.ingest.store_errors import unwritable_store_named

log = logging.getLogger(__name__)

# progress(stage, done, total): called at each stage and after each embedding batch.
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class ImportJob:
    """What the pipeline needs to know about one document."""

    document_id: int
    area_id: int
    path: Path
    kind: str
    known_sha256: str = ""
    known_chunks: int = 0
    force: bool = False
    title: str = ""   # the name shown for the document: in each chunk's full-text search text
    # the name of an earlier document of the same area holding this content (SHA-256), else None
    holder: Callable[[str], str | None] | None = None


SAME_CONTENT = N_("This content is already in this area as “%(name)s”; it was not imported again.")


@dataclass(frozen=True)
class PipelineSettings:
    chunk_size: int = 700
    chunk_overlap: int = 150
    batch_size: int = 32
    ocr: OcrSettings = field(default_factory=OcrSettings)
    write_rows: int = 512  # chunks per LanceDB write; a longer document is staged (IMPORT_WRITE_ROWS)


@dataclass(frozen=True)
class ImportResult:
    status: str  # "done" | "unchanged"
    sha256: str
    size_bytes: int
    chunks: int
    timings: dict[str, float] = field(default_factory=dict)


def file_sha256(path: Path) -> tuple[str, int]:
    """Return the SHA256 hex digest and size of a file, read in blocks."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def refuse_held_content(job: ImportJob, sha256: str) -> None:
    """Refuse content another document of the area already holds, naming that document."""
    name = job.holder(sha256) if job.holder is not None else None
    if name is not None:
        raise DuplicateContent(SAME_CONTENT, f"sha256={sha256} document_id={job.document_id}", params={"name": name})


def run_import(job: ImportJob, *, embedder, store, settings: PipelineSettings, progress: Progress) -> ImportResult:
    """Import one file; return ``unchanged`` without re-embedding when its hash is known.

    Pages stream from a reader thread (``PagePrefetch``) through the chunker into embedding
    batches, so extraction overlaps with embedding and memory holds a few pages, the chunk
    texts and their vectors, never the whole extracted document. ``progress`` reports
    ``embedding`` with chunks done and the total: exact for one-page kinds, for a PDF an
    estimate from the pages read so far until the last page is in; records (CSV, sheets,
    JSON, XML) stream in batches too, their total growing until the last batch is in.
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    sha256, size = file_sha256(job.path)
    if sha256 == job.known_sha256 and job.known_chunks > 0 and not job.force:
        return ImportResult("unchanged", sha256, size, job.known_chunks, {"hash": time.perf_counter() - started})
    refuse_held_content(job, sha256)
    progress("extracting", 0, 0)
    fix_malloc_thresholds()  # LanceDB's write buffers go back to the system when freed (heap.py)
    page_total, source = page_source(job.path, job.kind, settings.ocr)
    pages = PagePrefetch(source)
    writer = ChunkWriter(store, job, _write_rows(job, settings))
    try:
        _chunk_and_embed(pages, page_total, embedder, settings, progress, timings, writer)
        if not writer.rows:
            raise ExtractionError(EMPTY_MESSAGE, f"{job.path}: no text found")
        writer.finish()
    except BaseException:
        writer.abort()
        raise
    finally:
        pages.close()
    timings.update(extract=pages.extract_seconds, extract_wait=pages.wait_seconds, store=writer.seconds)
    timings["total"] = time.perf_counter() - started
    log.info("imported document_id=%s chunks=%d seconds=%.2f", job.document_id, writer.rows, timings["total"])
    return ImportResult("done", sha256, size, writer.rows, timings)


# Records are short chunks, and a table may have 100,000 of them: each staged write is an append
# and a settling update, so they are written in batches this many times larger (2,048 rows).
# 8 (4,096 rows) cost 20 MiB more at the peak with USE: each write holds its batch's 512-d
# vectors several times over (bench/records_bench.py; docs/notes/h-records.md).
RECORD_WRITE_FACTOR = 4


def _write_rows(job: ImportJob, settings: PipelineSettings) -> int:
    """Return the rows a LanceDB write takes for this import: ``write_rows``, larger for records."""
    if streams_records(job.path, job.kind):
        return settings.write_rows * RECORD_WRITE_FACTOR
    return settings.write_rows


class ChunkWriter:
    """Take embedded chunks as they come and write them to the vector store.

    Holds at most ``write_rows`` chunks: a document that ends before that is written in one
    commit, exactly as before; a longer one goes to a staged replacement one batch at a time
    and is shown by ``finish``. ``abort`` drops what was staged (the old chunks stay).
    """

    def __init__(self, store, job: ImportJob, write_rows: int) -> None:
        self.store, self.job = store, job
        self.write_rows = max(1, int(write_rows))
        self.rows = 0
        self.seconds = 0.0
        self._chunks: list = []
        self._vectors: list[np.ndarray] = []
        self._staged = None

    def add(self, chunks: list, vectors: np.ndarray) -> None:
        """Take one embedding batch; write a batch to the store once ``write_rows`` chunks are waiting."""
        self._chunks.extend(chunks)
        self._vectors.append(vectors)
        self.rows += len(chunks)
        if len(self._chunks) >= self.write_rows:
            self._write(staged=True)

    def finish(self) -> None:
        """Write what is left: one commit for a short document, the last batch and the switch for a long one."""
        self._write(staged=self._staged is not None)
        if self._staged is not None:
            self._timed(self._staged.commit)

    def abort(self) -> None:
        """Drop the staged rows of a failed import."""
        if self._staged is not None:
            self._staged.abort()

    def _write(self, staged: bool) -> None:
        if not self._chunks:
            return
        chunks, vectors = self._chunks, np.vstack(self._vectors)
        self._chunks, self._vectors = [], []
        if not staged:
            self._timed(lambda: self.store.replace_document(self.job.document_id, self.job.area_id, chunks, vectors))
            return
        if self._staged is None:
            self._staged = self.store.staged_replacement(self.job.document_id, self.job.area_id, self.write_rows)
        self._timed(lambda: self._staged.add(chunks, vectors))

    def _timed(self, write: Callable[[], object]) -> None:
        began = time.perf_counter()
        try:
            with unwritable_store_named():
                write()
        finally:
            self.seconds += time.perf_counter() - began


def _chunk_and_embed(pages: PagePrefetch, page_total: int | None, embedder, settings: PipelineSettings,
                     progress: Progress, timings: dict, writer: ChunkWriter) -> None:
    """Chunk the streamed pages and embed them in batches, handing each batch to the writer."""
    from irisrag.vectors.store import ChunkIn

    chunks = chunk_pages(_announced(pages, progress), settings.chunk_size, settings.chunk_overlap)
    known_total = None
    streamed = page_total is None and streams_records(writer.job.path, writer.job.kind)
    if page_total is None and not streamed:  # one page: its text is in memory anyway, so the total is exact
        chunks = list(chunks)
        known_total = len(chunks)
    batch: list[Chunk] = []
    embed_seconds = 0.0
    began = time.perf_counter()

    def total() -> int:
        if known_total is not None:
            return known_total
        if streamed:  # records in batches: the total is known once the last one is in
            return writer.rows + len(batch) + (0 if pages.finished else 1)
        return _estimate(writer.rows, writer.rows + len(batch), pages, page_total)

    def flush() -> None:
        nonlocal embed_seconds
        if not writer.rows:
            progress("embedding", 0, total())
        t0 = time.perf_counter()
        vectors = np.asarray(embedder.embed_documents([c.text for c in batch]), dtype=np.float32)
        embed_seconds += time.perf_counter() - t0
        writer.add([ChunkIn(c.index, c.text, c.page, writer.job.title, c.boilerplate) for c in batch], vectors)
        batch.clear()
        progress("embedding", writer.rows, total())

    for chunk in chunks:
        batch.append(chunk)
        if len(batch) >= settings.batch_size:
            flush()
    if batch:
        flush()
    timings["embed"] = embed_seconds
    timings["chunk"] = max(0.0, time.perf_counter() - began - embed_seconds - pages.wait_seconds - writer.seconds)


def _announced(pages: PagePrefetch, progress: Progress) -> Iterator:
    """Pass the pages on, reporting ``chunking`` once the first page is in (errors before it are extraction's)."""
    first = True
    for page in pages:
        if first:
            progress("chunking", 0, 0)
            first = False
        yield page


def _estimate(done: int, produced: int, pages: PagePrefetch, page_total: int) -> int:
    """Return a PDF's expected chunk total: exact once every page is read, else scaled by pages read."""
    if pages.finished or not pages.pages_read:
        return max(done, produced)
    return max(done + 1, produced, round(produced * page_total / pages.pages_read))
