"""The import pipeline: hash check -> extract -> chunk -> embed (batched) -> store.

Flask-free and database-free: the caller passes the document's identity, the last known
hash and a progress callback, and records the result. Pages stream from a reader thread
through the chunker into embedding batches. Writing the chunks is one LanceDB
commit (``VectorStore.replace_document``), so a document is never half-indexed: until the
commit readers see the old chunks, after it the new ones; a failure before it leaves the
old chunks in place.
"""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from irisrag.errors import ExtractionError
from irisrag.ingest.chunk import Chunk, chunk_pages
from irisrag.ingest.extract import EMPTY_MESSAGE, page_source
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


@dataclass(frozen=True)
class PipelineSettings:
    chunk_size: int = 700
    chunk_overlap: int = 150
    batch_size: int = 32
    ocr: OcrSettings = field(default_factory=OcrSettings)


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


def run_import(job: ImportJob, *, embedder, store, settings: PipelineSettings, progress: Progress) -> ImportResult:
    """Import one file; return ``unchanged`` without re-embedding when its hash is known.

    Pages stream from a reader thread (``PagePrefetch``) through the chunker into embedding
    batches, so extraction overlaps with embedding and memory holds a few pages, the chunk
    texts and their vectors, never the whole extracted document. ``progress`` reports
    ``embedding`` with chunks done and the total: exact for one-page kinds, for a PDF an
    estimate from the pages read so far until the last page is in.
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    sha256, size = file_sha256(job.path)
    if sha256 == job.known_sha256 and job.known_chunks > 0 and not job.force:
        return ImportResult("unchanged", sha256, size, job.known_chunks, {"hash": time.perf_counter() - started})
    progress("extracting", 0, 0)
    page_total, source = page_source(job.path, job.kind, settings.ocr)
    pages = PagePrefetch(source)
    try:
        rows, vectors = _chunk_and_embed(pages, page_total, embedder, settings, progress, timings)
    finally:
        pages.close()
    timings["extract"] = pages.extract_seconds
    timings["extract_wait"] = pages.wait_seconds
    if not rows:
        raise ExtractionError(EMPTY_MESSAGE, f"{job.path}: no text found")
    began = time.perf_counter()
    with unwritable_store_named():
        store.replace_document(job.document_id, job.area_id, rows, vectors)
    timings["store"] = time.perf_counter() - began
    timings["total"] = time.perf_counter() - started
    log.info("imported document_id=%s chunks=%d seconds=%.2f", job.document_id, len(rows), timings["total"])
    return ImportResult("done", sha256, size, len(rows), timings)


def _chunk_and_embed(pages: PagePrefetch, page_total: int | None, embedder, settings: PipelineSettings,
                     progress: Progress, timings: dict) -> tuple[list, np.ndarray]:
    """Chunk the streamed pages and embed them in batches; return the rows and their vectors."""
    from irisrag.vectorstore import ChunkIn

    chunks = chunk_pages(_announced(pages, progress), settings.chunk_size, settings.chunk_overlap)
    known_total = None
    if page_total is None:  # one page: its text is in memory anyway, so the total is exact
        chunks = list(chunks)
        known_total = len(chunks)
    rows: list = []
    parts: list[np.ndarray] = []
    batch: list[Chunk] = []
    embed_seconds = 0.0
    began = time.perf_counter()

    def total() -> int:
        if known_total is not None:
            return known_total
        return _estimate(len(rows), len(rows) + len(batch), pages, page_total)

    def flush() -> None:
        nonlocal embed_seconds
        if not parts:
            progress("embedding", 0, total())
        t0 = time.perf_counter()
        parts.append(np.asarray(embedder.embed_documents([c.text for c in batch]), dtype=np.float32))
        embed_seconds += time.perf_counter() - t0
        rows.extend(ChunkIn(c.index, c.text, c.page) for c in batch)
        batch.clear()
        progress("embedding", len(rows), total())

    for chunk in chunks:
        batch.append(chunk)
        if len(batch) >= settings.batch_size:
            flush()
    if batch:
        flush()
    timings["embed"] = embed_seconds
    timings["chunk"] = max(0.0, time.perf_counter() - began - embed_seconds - pages.wait_seconds)
    if not rows:
        return [], np.zeros((0, 0), dtype=np.float32)
    return rows, np.vstack(parts)


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
