"""Run a BEIR dataset through the real retrieval parts in a scratch LanceDB and score each mode.

Protocol (the same as the baselines in ``../shared/eval/README.md``):

1. Every corpus record is imported as one document (title, blank line, text), chunked with
   the product's chunker (CHUNK_SIZE / CHUNK_OVERLAP, 700 / 150), embedded with the
   configured embedder, written with ``VectorStore.replace_documents`` into a fresh LanceDB
   directory under the scratch folder (one area), and indexed with ``refresh_indexes``.
   The full-text index reads each chunk's search text as the app's would (``searchtext.py``:
   the record's title, German compound parts). The app's own LanceDB and database are never
   touched; the scratch LanceDB is deleted afterwards. Chunk and query embeddings are cached in ``<scratch>/cache`` keyed by
   (corpus SHA256, embedder key, chunk size, overlap), so a rerun skips the embedding.
2. Each query is answered by ``retrieve.build_context`` in each mode, the function the
   product's questions call: CONTEXT_CANDIDATES (256) chunks ranked by cosine (``vector``),
   BM25 (``fulltext``) or the fusion (``hybrid``), then the gate, the caps and the found
   sources, with the app's settings (and its reranker / query expander for the variants).
3. The ranking: a document is ranked by its best candidate chunk (first appearance);
   documents without a chunk among the candidates are not ranked. nDCG@10, Recall@5/10/100,
   MRR@10, P@5 (``metrics.py``) are averaged over the queries.
4. What the user gets (``outcome.py``): ``context_recall``, ``sources_recall``,
   ``empty_context_rate``; with off-topic questions (another set's questions asked against
   this corpus) ``offtopic_empty_rate``.

Timings are milliseconds per query (mean); ``embed`` is one ``embed_query`` call per query,
measured when the query vectors were computed (cached with them). A reranking embedder
embeds only the passages it re-scores (``vectors.LazyEmbedder``), cached across runs; its
cached passages are charged at the time they took, so ``rerank`` is the product's cost.
"""
from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from irisrag import config as config_module
from irisrag.embeddings import Embedder
from irisrag.evaluation import outcome
from irisrag.evaluation.beir import Dataset
from irisrag.evaluation.metrics import METRICS
from irisrag.evaluation.vectors import LazyEmbedder, Meter, Progress, TextCache, embed_chunks, embed_queries
from irisrag.ingest.chunk import chunk_text
from irisrag.rag.retrieve import MODES, RetrievalSettings, WordEmbedder, build_context
from irisrag.vectors.searchtext import SearchText
from irisrag.vectors.store import ChunkIn, VectorStore

log = logging.getLogger(__name__)

SCRATCH_AREA = 1
WRITE_BATCH = 1000  # documents per LanceDB commit


@dataclass(frozen=True)
class EvalOptions:
    """Everything besides the dataset and the embedder that decides the numbers (``from_config``)."""

    settings: RetrievalSettings
    chunk_size: int
    chunk_overlap: int
    fts_language: str
    batch_size: int
    search_text: SearchText           # what the full-text index reads (the app's)
    words: WordEmbedder | None = field(default=None, compare=False)   # the term bridge's word vectors

    @classmethod
    def from_config(cls, config: Mapping[str, Any], words: WordEmbedder | None = None,
                    fts_language: str | None = None) -> EvalOptions:
        """The options the app's config gives (``flask rag eval``, the quality regression test)."""
        values = config_module.defaults({**config, **({"FTS_LANGUAGE": fts_language} if fts_language else {})})
        return cls(settings=RetrievalSettings.from_config(values), chunk_size=int(values["CHUNK_SIZE"]),
                   chunk_overlap=int(values["CHUNK_OVERLAP"]), fts_language=str(values["FTS_LANGUAGE"]),
                   batch_size=int(values["EMBEDDING_BATCH_SIZE"]), search_text=SearchText.from_config(values),
                   words=words)

    @classmethod
    def original(cls, **changes: Any) -> EvalOptions:
        """The original's retrieval (``RetrievalSettings.original``), English, no compound splitting (tests)."""
        options = replace(cls.from_config({}, fts_language="English"), settings=RetrievalSettings.original(),
                          search_text=SearchText.plain())
        return replace(options, **changes)


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
    fts_language: str = ""
    negatives: dict[str, int] = field(default_factory=dict)   # off-topic set name -> questions
    settings: dict = field(default_factory=dict)              # what else decides the numbers (params)

    def to_json(self) -> dict:
        """Return the ``--json`` document."""
        return {"dataset": self.dataset, "split": self.split, "queries": self.queries,
                "documents": self.documents, "chunks": self.chunks, "embedder": self.embedder,
                "fts_language": self.fts_language, "negatives": self.negatives, "settings": self.settings,
                "prepare_seconds": {k: clean(v, 2) for k, v in self.prepare.items()},
                "modes": {mode: {**{k: clean(v) for k, v in r.metrics.items()},
                                 "timings": {k: clean(v, 3) for k, v in r.timings.items()}}
                          for mode, r in self.modes.items()}}


def clean(value: float, digits: int = 4) -> float:
    """Round for a report, never to -0.0."""
    return round(value, digits) + 0.0


def _key(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:20]


def chunk_corpus(dataset: Dataset, size: int, overlap: int) -> list[tuple[int, list[ChunkIn]]]:
    """Chunk every corpus document; document ids are positions in the corpus."""
    return [(doc, [ChunkIn(c.index, c.text, c.page, dataset.titles.get(key, "")) for c in chunk_text(text, size, overlap)])
            for doc, (key, text) in enumerate(dataset.corpus.items())]


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
                        fts_language=options.fts_language, search_text=options.search_text)
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


@dataclass(frozen=True)
class Questions:
    """Questions to ask the corpus: their ids and texts, judgements (empty for off-topic ones), vectors."""

    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    vectors: np.ndarray
    embed_seconds: float


def _legs(store: VectorStore, question: str, vector: np.ndarray, k: int) -> outcome.Legs:
    dense = store.search(vector, [SCRATCH_AREA], k)
    text = store.search_fulltext(question, [SCRATCH_AREA], k)
    return outcome.Legs({(h.document_id, h.chunk_index): n for n, h in enumerate(dense, start=1)},
                        {(t.hit.document_id, t.hit.chunk_index): n for n, t in enumerate(text, start=1)})


def _ask_all(variant: Variant, corpus_ids: list[str], questions: Questions, embedder: Embedder,
             settings: RetrievalSettings, store: VectorStore, *, progress: Progress | None = None,
             per_query: TextIO | None = None, label: str = "",
             words: WordEmbedder | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """Ask every question through ``build_context``; return the mean metrics and the summed stage seconds."""
    totals: dict[str, float] = {}
    sums: dict[str, float] = {}
    meter = Meter(f"{label or variant.name}", len(questions.queries), "questions", progress)
    cost = getattr(getattr(variant.reranker, "embedder", None), "take_cost", None)
    for n, ((query_id, question), vector) in enumerate(zip(questions.queries.items(), questions.vectors,
                                                           strict=True), start=1):
        context = build_context(question, [SCRATCH_AREA], embedder=embedder, store=store, settings=settings,
                                query_vector=vector, mode=variant.mode, reranker=variant.reranker,
                                expander=variant.expander, words=words)
        timings = dict(context.timings)
        if cost is not None:  # the reranker's cached embeddings: charge what they cost when embedded
            charged = cost()
            timings["rerank"] += charged
            timings["total"] += charged
        for stage, seconds in timings.items():
            totals[stage] = totals.get(stage, 0.0) + seconds
        relevant = questions.qrels.get(query_id, {})
        row = outcome.scores(context, corpus_ids, relevant) if relevant else \
            {"empty_context_rate": 0.0 if context.chunks else 1.0}
        for name, value in row.items():
            sums[name] = sums.get(name, 0.0) + value
        if per_query is not None:
            legs = _legs(store, question, vector, settings.candidates)
            record = {"mode": variant.name, "set": label or "judged", "query_id": query_id, "question": question,
                      **outcome.trace(context, corpus_ids, relevant, legs)}
            per_query.write(json.dumps(record, ensure_ascii=False) + "\n")
        meter.update(n)
    count = max(len(questions.queries), 1)
    return {name: value / count for name, value in sums.items()}, totals


def _per_query_ms(totals: dict[str, float], count: int, mode: str, embed_seconds: float) -> dict[str, float]:
    per_query = {stage: 1000 * seconds / max(count, 1) for stage, seconds in totals.items()
                 if stage != "embed" and (seconds > 0 or stage == "total")}
    if mode != "fulltext":  # the vector was computed before; count one embed_query call
        per_query = {"embed": 1000 * embed_seconds, **per_query}
        per_query["total"] = per_query.get("total", 0.0) + 1000 * embed_seconds
    return per_query


def evaluate(dataset: Dataset, embedder: Embedder, options: EvalOptions, store: VectorStore,
             questions: Questions, modes: Sequence[str | Variant], *, negatives: Questions | None = None,
             progress: Progress | None = None, per_query: TextIO | None = None) -> dict[str, ModeResult]:
    """Ask every question in every mode (or variant) through the product's context building.

    Returns per mode the ranking metrics, the product-path metrics (``outcome.py``), with
    ``offtopic_empty_rate`` when off-topic questions are given, and the mean stage timings (ms).
    """
    corpus_ids = list(dataset.corpus)
    results: dict[str, ModeResult] = {}
    for variant in modes:
        variant = variant if isinstance(variant, Variant) else Variant(variant, variant)
        settings = replace(options.settings, mode=variant.mode)
        metrics, totals = _ask_all(variant, corpus_ids, questions, embedder, settings, store,
                                   progress=progress, per_query=per_query, words=options.words)
        metrics = {**dict.fromkeys(METRICS, 0.0), **metrics}
        if negatives is not None and negatives.queries:
            off, _ = _ask_all(variant, corpus_ids, negatives, embedder, settings, store, progress=progress,
                              per_query=per_query, label=f"{variant.name} off-topic", words=options.words)
            metrics["offtopic_empty_rate"] = off["empty_context_rate"]
        timings = _per_query_ms(totals, len(questions.queries), variant.mode, questions.embed_seconds)
        results[variant.name] = ModeResult(metrics, timings)
    return results


def lazy_rerank_embedder(embedder: Embedder, cache_dir: Path) -> LazyEmbedder:
    """Wrap a reranking embedder: it embeds only the passages it is asked for, cached across runs.

    The model is loaded here (one warm-up call), so the first question's time is not its load time.
    """
    embedder.embed_query("warm up")
    return LazyEmbedder(embedder, TextCache(cache_dir / f"texts-{_key(embedder.key)}", embedder.dim))


def questions_of(dataset: Dataset, embedder: Embedder, cache_dir: Path, judged: bool = True) -> Questions:
    """Embed (or load) a dataset's questions; ``judged=False`` drops the judgements (off-topic use)."""
    texts = list(dataset.queries.values())
    vectors, seconds = embed_queries(embedder, texts, cache_dir / f"queries-{_key(embedder.key, *texts)}.npz")
    return Questions(dict(dataset.queries), dict(dataset.qrels) if judged else {}, vectors, seconds)


def run(dataset: Dataset, embedder: Embedder, options: EvalOptions, scratch: Path,
        modes: Sequence[str | Variant] = MODES, progress: Progress | None = None, *,
        negatives: Sequence[Dataset] = (), per_query: TextIO | None = None, settings: dict | None = None) -> Report:
    """Evaluate the dataset in the given modes; only the embedding cache stays in ``scratch``.

    ``negatives``: sets whose questions are asked against this corpus as off-topic controls.
    """
    unknown = [m for m in modes if (m.mode if isinstance(m, Variant) else m) not in MODES]
    if unknown:
        raise ValueError(f"unknown retrieval mode(s) {unknown}; use {', '.join(MODES)}")
    cache_dir = scratch / "cache"
    lancedb_dir = scratch / f"run-{uuid.uuid4().hex[:12]}"
    try:
        if progress:
            progress(f"{dataset.name}: {len(dataset.corpus)} documents, {len(dataset.queries)} queries")
        store, chunks, prepare = build_store(dataset, embedder, options, lancedb_dir, cache_dir, progress)
        questions = questions_of(dataset, embedder, cache_dir)
        off = [questions_of(d, embedder, cache_dir, judged=False) for d in negatives]
        merged = Questions({f"{d.name}:{q}": t for d, o in zip(negatives, off, strict=True) for q, t in o.queries.items()},
                           {}, np.concatenate([o.vectors for o in off]), 0.0) if off else None
        modes_result = evaluate(dataset, embedder, options, store, questions, modes, negatives=merged,
                                progress=progress, per_query=per_query)
    finally:
        shutil.rmtree(lancedb_dir, ignore_errors=True)
    return Report(dataset.name, dataset.split, len(dataset.queries), len(dataset.corpus), chunks, embedder.key,
                  modes_result, prepare, options.fts_language, {d.name: len(d.queries) for d in negatives},
                  settings or {})
