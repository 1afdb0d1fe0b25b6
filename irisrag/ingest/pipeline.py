"""The import pipeline: hash check -> extract -> chunk -> embed (batched) -> store.

Flask-free and database-free: the caller passes the document's identity, the last known
hash and a progress callback, and records the result. Writing the chunks is one LanceDB
commit (``VectorStore.replace_document``), so a document is never half-indexed: until the
commit readers see the old chunks, after it the new ones; a failure before it leaves the
old chunks in place.
"""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from irisrag.errors import ExtractionError
from irisrag.ingest.chunk import Chunk, chunk_pages
from irisrag.ingest.extract import EMPTY_MESSAGE, iter_pages

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
    """Import one file; return ``unchanged`` without re-embedding when its hash is known."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    sha256, size = file_sha256(job.path)
    if sha256 == job.known_sha256 and job.known_chunks > 0 and not job.force:
        return ImportResult("unchanged", sha256, size, job.known_chunks, {"hash": time.perf_counter() - started})
    progress("extracting", 0, 0)
    pages = list(iter_pages(job.path, job.kind))
    timings["extract"] = time.perf_counter() - started
    progress("chunking", 0, 0)
    chunks = list(chunk_pages(pages, settings.chunk_size, settings.chunk_overlap))
    timings["chunk"] = time.perf_counter() - started - timings["extract"]
    if not chunks:
        raise ExtractionError(EMPTY_MESSAGE, f"{job.path}: no text found")
    vectors = _embed(chunks, embedder, settings.batch_size, progress, timings)
    began = time.perf_counter()
    from irisrag.vectorstore import ChunkIn

    store.replace_document(job.document_id, job.area_id, [ChunkIn(c.index, c.text, c.page) for c in chunks], vectors)
    timings["store"] = time.perf_counter() - began
    timings["total"] = time.perf_counter() - started
    log.info("imported document_id=%s chunks=%d seconds=%.2f", job.document_id, len(chunks), timings["total"])
    return ImportResult("done", sha256, size, len(chunks), timings)


def _embed(chunks: list[Chunk], embedder, batch_size: int, progress: Progress, timings: dict) -> np.ndarray:
    began = time.perf_counter()
    total = len(chunks)
    parts: list[np.ndarray] = []
    progress("embedding", 0, total)
    for start in range(0, total, batch_size):
        batch = chunks[start:start + batch_size]
        parts.append(np.asarray(embedder.embed_documents([c.text for c in batch]), dtype=np.float32))
        progress("embedding", min(start + batch_size, total), total)
    timings["embed"] = time.perf_counter() - began
    return np.vstack(parts)
