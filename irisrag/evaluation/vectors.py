"""Embedding caches of the evaluation: resumable corpus embedding, and a lazy per-text cache for rerankers.

``embed_chunks``  embeds a corpus in batches. The finished matrix is kept as one ``.npy``
                  file; while it is being built, each ~30 s of work is appended as a shard
                  (``<name>.parts/NNNNN.npy``), so an interrupted run resumes where it stopped.
``TextCache``     vectors keyed by the SHA-256 of the text, with the seconds it took to embed
                  each one, appended in shards as well. ``LazyEmbedder`` embeds only the texts
                  it is asked for (the top RERANK_TOP_N of each question, as the product does)
                  and tells how many seconds a cached text would have cost (``take_cost``),
                  so the eval reports the reranker's real per-question time on a warm cache.
``Meter``         progress lines with rate and ETA, at most one every ``every`` seconds.
"""
from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

Progress = Callable[[str], None]
FLUSH_SECONDS = 30.0


class Meter:
    """Report ``done/total`` with the rate and the time left, rate-limited."""

    def __init__(self, label: str, total: int, unit: str, progress: Progress | None, every: float = 10.0,
                 start_at: int = 0) -> None:
        self.label, self.total, self.unit, self.progress, self.every = label, total, unit, progress, every
        self.start, self.start_at, self.last = time.perf_counter(), start_at, time.perf_counter()

    def line(self, done: int) -> str:
        """Return the progress line for ``done`` of the total."""
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = (done - self.start_at) / elapsed
        left = (self.total - done) / rate if rate > 0 else float("inf")
        eta = "?" if left == float("inf") else _duration(left)
        return f"  {self.label}: {done}/{self.total} {self.unit}, {rate:.1f}/s, ETA {eta}"

    def update(self, done: int, force: bool = False) -> None:
        """Print the line when ``every`` seconds have passed since the last one (or when forced)."""
        now = time.perf_counter()
        if self.progress and (force or now - self.last >= self.every):
            self.last = now
            self.progress(self.line(done))


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def _save(path: Path, array: np.ndarray) -> None:
    """Write atomically: a reader (or a resumed run) never sees half a file."""
    tmp = path.with_name(f"tmp-{path.name}")
    np.save(tmp, array)
    os.replace(tmp, path)


def _shards(folder: Path, suffix: str = ".npy") -> list[Path]:
    return sorted(p for p in folder.glob(f"[0-9]*{suffix}") if p.name.count(".") == suffix.count(".")) \
        if folder.is_dir() else []


def embed_chunks(embedder, texts: Sequence[str], cache: Path, batch_size: int,
                 progress: Progress | None = None) -> np.ndarray:
    """Embed the chunk texts in batches, resuming from saved shards, or load the finished cache file."""
    if cache.is_file():
        vectors = np.load(cache)
        if vectors.shape == (len(texts), embedder.dim):
            return vectors
    parts_dir = cache.with_name(cache.stem + ".parts")
    parts = [np.load(p) for p in _shards(parts_dir)]
    done = sum(len(p) for p in parts)
    meter = Meter(f"embedding {getattr(embedder, 'key', '')}", len(texts), "chunks", progress, start_at=done)
    if done:
        meter.update(done, force=True)
    pending, flushed = [], time.perf_counter()
    for i in range(done, len(texts), batch_size):
        pending.append(np.asarray(embedder.embed_documents(texts[i:i + batch_size]), dtype=np.float32))
        meter.update(min(i + batch_size, len(texts)))
        if time.perf_counter() - flushed >= FLUSH_SECONDS:
            parts_dir.mkdir(parents=True, exist_ok=True)
            _save(parts_dir / f"{len(parts):05d}.npy", np.concatenate(pending))
            parts.append(np.concatenate(pending))
            pending, flushed = [], time.perf_counter()
    parts.extend(pending)
    vectors = np.concatenate(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    _save(cache, vectors)
    for shard in _shards(parts_dir):
        shard.unlink()
    if parts_dir.is_dir():
        parts_dir.rmdir()
    return vectors


TIMED_QUERIES = 20  # single embed_query calls timed for the per-query embedding cost


def _batchable(embedder) -> bool:
    """Tell whether the embedder's query embedding is its document embedding (USE: yes; e5: no, a prefix)."""
    from irisrag.embeddings import _Base

    return getattr(type(embedder), "embed_query", None) is _Base.embed_query and hasattr(embedder, "_embed")


def embed_queries(embedder, questions: Sequence[str], cache: Path, batch_size: int = 64) -> tuple[np.ndarray, float]:
    """Embed the questions (or load them); return the vectors and the seconds one ``embed_query`` call takes.

    Where a query is embedded like a document, the questions go in batches and the cost of
    one question is timed on the first TIMED_QUERIES single calls (after one untimed call
    that loads the model).
    """
    if cache.is_file():
        data = np.load(cache)
        if data["vectors"].shape == (len(questions), embedder.dim):
            return data["vectors"], float(data["seconds"])
    if not questions:
        return np.zeros((0, embedder.dim), dtype=np.float32), 0.0
    embedder.embed_query(questions[0])  # loads the model: not part of a question's cost
    start = time.perf_counter()
    timed = [embedder.embed_query(q) for q in questions[:TIMED_QUERIES]]
    seconds = (time.perf_counter() - start) / len(timed)
    rest = questions[len(timed):]
    if _batchable(embedder):
        parts = [np.asarray(embedder.embed_documents(rest[i:i + batch_size]), dtype=np.float32)
                 for i in range(0, len(rest), batch_size)]
    else:
        parts = [np.stack([embedder.embed_query(q) for q in rest])] if rest else []
    vectors = np.concatenate([np.stack(timed).astype(np.float32), *parts])
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, vectors=vectors.astype(np.float32), seconds=np.float64(seconds))
    return vectors, seconds


def text_key(kind: str, text: str) -> str:
    """Return the cache key of a passage or query text."""
    return hashlib.sha256(f"{kind}\x1f{text}".encode()).hexdigest()


class TextCache:
    """Vectors by text key with their embedding cost, kept as appended shards in ``folder``."""

    def __init__(self, folder: Path, dim: int) -> None:
        self.folder, self.dim = folder, dim
        self.vectors: dict[str, np.ndarray] = {}
        self.cost: dict[str, float] = {}
        self.pending: list[str] = []
        self.flushed = time.perf_counter()
        for shard in _shards(folder, ".vec.npy"):
            keys_file = shard.with_name(shard.name.replace(".vec.", ".keys."))
            data = np.load(shard, allow_pickle=False)
            keys = np.load(keys_file, allow_pickle=False) if keys_file.is_file() else []
            if data.shape[1:] != (dim + 1,) or len(keys) != len(data):
                continue  # another dimension or a shard cut short: ignore it
            for key, row in zip(keys, data, strict=True):
                self.vectors[str(key)], self.cost[str(key)] = row[:dim].astype(np.float32), float(row[dim])

    def put(self, key: str, vector: np.ndarray, seconds: float) -> None:
        """Keep one vector and what it cost; flush every ~30 s."""
        self.vectors[key], self.cost[key] = np.asarray(vector, dtype=np.float32), float(seconds)
        self.pending.append(key)
        if time.perf_counter() - self.flushed >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Append the vectors added since the last flush as one shard."""
        if not self.pending:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        number = len(_shards(self.folder, ".vec.npy"))
        rows = np.stack([np.append(self.vectors[k], np.float32(self.cost[k])) for k in self.pending])
        _save(self.folder / f"{number:05d}.keys.npy", np.array(self.pending))
        _save(self.folder / f"{number:05d}.vec.npy", rows.astype(np.float32))
        self.pending, self.flushed = [], time.perf_counter()


class LazyEmbedder:
    """Embed texts on demand through a ``TextCache``; cached texts are charged at their recorded cost.

    ``take_cost()`` returns (and resets) the seconds the cached texts asked for since the last
    call took when they were embedded, so a rerun reports the time the product would spend.
    """

    def __init__(self, embedder, cache: TextCache) -> None:
        self.embedder, self.cache = embedder, cache
        self.key, self.dim = embedder.key, embedder.dim
        self.saved = 0.0
        self.embedded = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key("passage", t) for t in texts]
        missing = [(k, t) for k, t in dict(zip(keys, texts, strict=True)).items() if k not in self.cache.vectors]
        self.saved += sum(self.cache.cost[k] for k in set(keys) if k in self.cache.vectors)
        if missing:
            start = time.perf_counter()
            vectors = self.embedder.embed_documents([t for _, t in missing])
            each = (time.perf_counter() - start) / len(missing)
            for (key, _), vector in zip(missing, vectors, strict=True):
                self.cache.put(key, vector, each)
            self.embedded += len(missing)
        return np.stack([self.cache.vectors[k] for k in keys])

    def embed_query(self, text: str) -> np.ndarray:
        key = text_key("query", text)
        if key in self.cache.vectors:
            self.saved += self.cache.cost[key]
            return self.cache.vectors[key]
        start = time.perf_counter()
        vector = self.embedder.embed_query(text)
        self.cache.put(key, vector, time.perf_counter() - start)
        return self.cache.vectors[key]

    def take_cost(self) -> float:
        """Return and reset the recorded embedding seconds of the cached texts used since the last call."""
        saved, self.saved = self.saved, 0.0
        return saved
