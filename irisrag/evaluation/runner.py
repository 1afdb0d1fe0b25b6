"""Run a BEIR dataset through the real retrieval parts in a scratch LanceDB and score each mode.

Protocol (the same as the baselines in ``../shared/eval/README.md``):

1. Every corpus record is imported as one document (title, blank line, text), chunked with
   the product's chunker (CHUNK_SIZE / CHUNK_OVERLAP, 700 / 150), embedded with the
   configured embedder, written with ``VectorStore.replace_documents`` into a fresh LanceDB
   directory under the scratch folder (one area), and indexed with ``refresh_indexes``.
   The app's own LanceDB and database are never touched; the scratch LanceDB is deleted
   afterwards. Chunk and query embeddings are cached in ``<scratch>/cache`` keyed by
   (corpus SHA256, embedder key, chunk size, overlap), so a rerun skips the embedding.
2. Each query is answered by ``retrieve.rank_candidates`` in each mode: CONTEXT_CANDIDATES
   (256) chunks, ranked by cosine (``vector``), BM25 (``fulltext``) or the fusion (``hybrid``).
3. A document is ranked by its best chunk (first appearance in that list); documents
   without a chunk among the candidates are not ranked. The lexical gate, the caps and the
   found-sources rule are NOT applied: they filter the context of an answer, and this
   measures the retrieval ranking they start from.
4. nDCG@10, Recall@5/10/100, MRR@10, P@5 (``metrics.py``) are averaged over the queries.

Timings are milliseconds per query (mean); ``embed`` is one ``embed_query`` call per query,
measured when the query vectors were computed (cached with them).
"""
from __future__ import annotations

import hashlib
import logging
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from irisrag.embeddings import Embedder
from irisrag.evaluation.beir import Dataset
from irisrag.evaluation.metrics import documents_by_best_chunk, mean_metrics
from irisrag.ingest.chunk import chunk_text
from irisrag.rag.retrieve import MODES, RetrievalSettings, rank_candidates
from irisrag.vectorstore import ChunkIn, VectorStore

log = logging.getLogger(__name__)

SCRATCH_AREA = 1
WRITE_BATCH = 1000  # documents per LanceDB commit
Progress = Callable[[str], None]


@dataclass(frozen=True)
class EvalOptions:
    """Everything besides the dataset and the embedder that decides the numbers."""

    settings: RetrievalSettings = field(default_factory=RetrievalSettings)
    chunk_size: int = 700
    chunk_overlap: int = 150
    fts_language: str = "English"
    batch_size: int = 32


@dataclass(frozen=True)
class ModeResult:
    metrics: dict[str, float]
    timings: dict[str, float]


@dataclass(frozen=True)
class Report:
    dataset: str
    split: str
    queries: int
    documents: int
    chunks: int
    embedder: str
    modes: dict[str, ModeResult]
    prepare: dict[str, float]   # seconds: chunk, embed, write, index

    def to_json(self) -> dict:
        """Return the ``--json`` document."""
        return {"dataset": self.dataset, "split": self.split, "queries": self.queries,
                "modes": {mode: {**{k: round(v, 4) for k, v in r.metrics.items()},
                                 "timings": {k: round(v, 3) for k, v in r.timings.items()}}
                          for mode, r in self.modes.items()}}


def _key(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:20]


def chunk_corpus(dataset: Dataset, size: int, overlap: int) -> list[tuple[int, list[ChunkIn]]]:
    """Chunk every corpus document; document ids are positions in the corpus."""
    return [(doc, [ChunkIn(c.index, c.text, c.page) for c in chunk_text(text, size, overlap)])
            for doc, text in enumerate(dataset.corpus.values())]


def embed_chunks(embedder: Embedder, texts: Sequence[str], cache: Path, batch_size: int,
                 progress: Progress | None = None) -> np.ndarray:
    """Embed the chunk texts in batches, or load them from the cache file."""
    if cache.is_file():
        vectors = np.load(cache)
        if vectors.shape == (len(texts), embedder.dim):
            return vectors
    parts, start = [], time.perf_counter()
    for i in range(0, len(texts), batch_size):
        parts.append(np.asarray(embedder.embed_documents(texts[i:i + batch_size]), dtype=np.float32))
        if progress and (i // batch_size) % 50 == 49:
            done = i + batch_size
            progress(f"  embedded {done}/{len(texts)} chunks ({done / (time.perf_counter() - start):.0f}/s)")
    vectors = np.concatenate(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors


def embed_queries(embedder: Embedder, questions: Sequence[str], cache: Path) -> tuple[np.ndarray, float]:
    """Embed each question with ``embed_query`` (timed) or load them; return vectors and seconds per query."""
    if cache.is_file():
        data = np.load(cache)
        if data["vectors"].shape == (len(questions), embedder.dim):
            return data["vectors"], float(data["seconds"])
    start = time.perf_counter()
    vectors = np.stack([embedder.embed_query(q) for q in questions]) if questions else \
        np.zeros((0, embedder.dim), dtype=np.float32)
    seconds = (time.perf_counter() - start) / max(len(questions), 1)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, vectors=vectors.astype(np.float32), seconds=np.float64(seconds))
    return vectors, seconds


def build_store(dataset: Dataset, embedder: Embedder, options: EvalOptions, lancedb_dir: Path, cache_dir: Path,
                progress: Progress | None = None) -> tuple[VectorStore, int, dict[str, float]]:
    """Chunk, embed, write and index the corpus in a fresh LanceDB; return the store, chunk count, timings."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    documents = chunk_corpus(dataset, options.chunk_size, options.chunk_overlap)
    texts = [c.text for _, chunks in documents for c in chunks]
    timings["chunk"] = time.perf_counter() - start
    start = time.perf_counter()
    cache = cache_dir / f"chunks-{_key(dataset.fingerprint, embedder.key, options.chunk_size, options.chunk_overlap)}.npy"
    vectors = embed_chunks(embedder, texts, cache, options.batch_size, progress)
    timings["embed"] = time.perf_counter() - start
    start = time.perf_counter()
    store = VectorStore(str(lancedb_dir), embedder.key, embedder.dim, read_consistency_seconds=None,
                        fts_language=options.fts_language)
    offset = 0
    for i in range(0, len(documents), WRITE_BATCH):
        batch = []
        for doc, chunks in documents[i:i + WRITE_BATCH]:
            batch.append((doc, SCRATCH_AREA, chunks, vectors[offset:offset + len(chunks)]))
            offset += len(chunks)
        store.replace_documents(batch)
    timings["write"] = time.perf_counter() - start
    start = time.perf_counter()
    store.refresh_indexes()
    timings["index"] = time.perf_counter() - start
    return store, len(texts), timings


@dataclass(frozen=True)
class Variant:
    """A named way to rank: a mode, optionally with a reranker or a query expander (``hybrid+rerank``)."""

    name: str
    mode: str
    reranker: object | None = None
    expander: object | None = None


def evaluate(dataset: Dataset, embedder: Embedder, options: EvalOptions, store: VectorStore,
             query_vectors: np.ndarray, embed_seconds: float,
             modes: Sequence[str | Variant]) -> dict[str, ModeResult]:
    """Answer every query in every mode (or variant) and return the metrics and mean stage timings (ms)."""
    corpus_ids = list(dataset.corpus)
    results: dict[str, ModeResult] = {}
    for variant in modes:
        variant = variant if isinstance(variant, Variant) else Variant(variant, variant)
        mode = variant.mode
        rankings: dict[str, list[str]] = {}
        totals: dict[str, float] = {}
        settings = replace(options.settings, mode=mode)
        for (query_id, question), vector in zip(dataset.queries.items(), query_vectors, strict=True):
            hits, timings = rank_candidates(question, [SCRATCH_AREA], embedder=embedder, store=store,
                                            settings=settings, query_vector=vector, mode=mode,
                                            reranker=variant.reranker, expander=variant.expander)
            rankings[query_id] = [corpus_ids[d] for d in documents_by_best_chunk(h.document_id for h in hits)]
            for stage, seconds in timings.items():
                totals[stage] = totals.get(stage, 0.0) + seconds
        n = max(len(dataset.queries), 1)
        per_query = {stage: 1000 * seconds / n for stage, seconds in totals.items()
                     if stage != "embed" and (seconds > 0 or stage == "total")}
        if mode != "fulltext":  # the vector was computed before; count one embed_query call
            per_query = {"embed": 1000 * embed_seconds, **per_query}
            per_query["total"] += 1000 * embed_seconds
        results[variant.name] = ModeResult(mean_metrics(rankings, dataset.qrels), per_query)
    return results


class CachedEmbedder:
    """An embedder whose corpus chunks and queries were embedded (and cached) before the run.

    Lets an ``embedder`` reranker be evaluated at the price of one corpus embedding, cached on
    disk like the main embedder's; texts it has not seen are embedded on the spot.
    """

    def __init__(self, embedder: Embedder, texts: Sequence[str], vectors: np.ndarray,
                 questions: Sequence[str], query_vectors: np.ndarray) -> None:
        self.embedder, self.key, self.dim = embedder, embedder.key, embedder.dim
        self.passages = dict(zip(texts, vectors, strict=True))
        self.queries = dict(zip(questions, query_vectors, strict=True))

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self.passages]
        if missing:
            self.passages.update(zip(missing, self.embedder.embed_documents(missing), strict=True))
        return np.stack([self.passages[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self.queries:
            self.queries[text] = self.embedder.embed_query(text)
        return self.queries[text]


def cached_rerank_embedder(dataset: Dataset, embedder: Embedder, options: EvalOptions, cache_dir: Path,
                           progress: Progress | None = None) -> CachedEmbedder:
    """Embed (or load) the corpus chunks and the queries with a reranking embedder."""
    texts = [c.text for _, chunks in chunk_corpus(dataset, options.chunk_size, options.chunk_overlap)
             for c in chunks]
    cache = cache_dir / f"chunks-{_key(dataset.fingerprint, embedder.key, options.chunk_size, options.chunk_overlap)}.npy"
    vectors = embed_chunks(embedder, texts, cache, options.batch_size, progress)
    questions = list(dataset.queries.values())
    query_vectors, _ = embed_queries(embedder, questions, cache_dir / f"queries-{_key(embedder.key, *questions)}.npz")
    return CachedEmbedder(embedder, texts, vectors, questions, query_vectors)


def run(dataset: Dataset, embedder: Embedder, options: EvalOptions, scratch: Path,
        modes: Sequence[str | Variant] = MODES, progress: Progress | None = None) -> Report:
    """Evaluate the dataset in the given modes; only the embedding cache stays in ``scratch``."""
    unknown = [m for m in modes if (m.mode if isinstance(m, Variant) else m) not in MODES]
    if unknown:
        raise ValueError(f"unknown retrieval mode(s) {unknown}; use {', '.join(MODES)}")
    cache_dir = scratch / "cache"
    lancedb_dir = scratch / f"run-{uuid.uuid4().hex[:12]}"
    try:
        if progress:
            progress(f"{dataset.name}: {len(dataset.corpus)} documents, {len(dataset.queries)} queries")
        store, chunks, prepare = build_store(dataset, embedder, options, lancedb_dir, cache_dir, progress)
        questions = list(dataset.queries.values())
        query_cache = cache_dir / f"queries-{_key(embedder.key, *questions)}.npz"
        vectors, embed_seconds = embed_queries(embedder, questions, query_cache)
        modes_result = evaluate(dataset, embedder, options, store, vectors, embed_seconds, modes)
    finally:
        shutil.rmtree(lancedb_dir, ignore_errors=True)
    return Report(dataset.name, dataset.split, len(dataset.queries), len(dataset.corpus), chunks, embedder.key,
                  modes_result, prepare)
