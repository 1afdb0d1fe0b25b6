"""Context building: per-stage latency of ``rag.retrieve.build_context`` at 10k, 100k and 1M chunks,
against a plain NumPy float32 cosine top-k over the same vectors in the same process.

Data: SciFact abstracts (``../shared/eval/scifact/corpus.jsonl`` next to the checkout; override with
IRISRAG_BENCH_CORPUS) chunked with the product's chunker (700 / 150). The first N_REAL chunks
(10,000; quick 2,000) are embedded with the default USE embedder (cached in bench/data/cache/).
Larger tables repeat the real documents as new documents: copy 0 keeps the real vectors,
every further copy adds Gaussian noise to each real vector (cosine ~0.9 to its source) and
renormalises, and keeps the chunk text (the same string objects: 1M rows hold 10k texts).
Documents are spread round-robin over 20 areas; the questions search 3 of them (~15 % of the
rows), as a user with a few areas would. Questions: the SciFact queries (``queries.jsonl``),
in file order.

Rows are written with ``VectorStore.replace_documents`` (the product's write path), 1,000
documents per commit, then compacted (``optimize``) and given the full-text index with
``VectorStore.maintain`` (no vector index): the steady state the app's index upkeep keeps.
Tables above 100,000 rows append all but their last 50,000 rows with ``table.add`` (the same
Arrow rows ``replace_documents`` builds, 50,000 rows per commit) and write the last 50,000
through ``replace_documents`` onto the full table: a merge commit costs more the larger the
table (~0.5 s at 3k rows, ~1.5 s at 300k here), so 1M rows through ``replace_documents``
alone would take 12+ minutes; the tail measures the product's commit cost at that size.

Tables at or above VECTOR_INDEX_MIN_ROWS (50,000) are measured twice: exact (brute force),
then with the vector index that ``VectorStore.maintain`` builds with the app's policy. Tables
of 500,000 rows or more are built once, with both indexes, and cached in
``bench/data/tables/`` (keyed by every input: size, vectors, noise, areas, write scheme,
LanceDB version, index policy); their exact phase runs on that table with the index bypassed
(``bypass_vector_index``), on EXACT_QUESTIONS_LARGE (20) questions and fewer variants,
because a brute-force query over 1M rows takes about a second here. ``bench.scale_memory``
opens the same cached tables in the web process.

Per question, interleaved (the order rotates): NumPy full scan with the area mask, NumPy over
pre-filtered rows, LanceDB query alone (``to_arrow``), ``VectorStore.search`` (the vector leg),
``VectorStore.search_fulltext`` (the full-text leg, as hybrid calls it), ``build_context`` with
the embedding call, without it (the vector passed in), and the same two in hybrid mode.
Recall@256 compares ``VectorStore.search`` with NumPy's exact top 256.

On indexed tables of 500,000 rows or more a diagnosis follows (DIAGNOSE_QUESTIONS, 50), all
variants interleaved per question: the vector leg under other probe/refine settings (recall
and latency; the app probes ``minimum_nprobes(20).maximum_nprobes(0)``, i.e. unbounded), the
full-text leg's parts (without the vector column, without the area filter, with fewer words),
and hybrid ``build_context`` end to end with candidate fixes done in bench code only: probes
capped (``maximum_nprobes`` = ``minimum_nprobes``), both legs run concurrently
(``ConcurrentLegs``), and a BITMAP scalar index on ``area_id`` on a copy of the table (the
cached table is never changed).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from bench.common import (
    DATA,
    load_average,
    log,
    machine,
    median,
)
from bench.context_report import Facts, report

SHARED_SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "eval" / "scifact"  # ../shared next to the checkout
CORPUS_DIR = Path(os.environ.get("IRISRAG_BENCH_CORPUS", str(SHARED_SCIFACT)))
AREAS = 20
SELECTED = (1, 2, 3)
K = 256
NOISE_COSINE = 0.9
SEED = 7
WRITE_BATCH = 1000            # documents per replace_documents commit
APPEND_ABOVE_ROWS = 100_000   # larger tables append their bulk with table.add ...
REPLACE_TAIL_ROWS = 50_000    # ... and write their last rows through replace_documents
APPEND_BATCH_ROWS = 50_000    # rows per table.add commit
CACHE_FROM_ROWS = 500_000     # tables this large are built once (both indexes) and cached
EXACT_QUESTIONS_LARGE = 20    # questions of the exact (index bypassed) phase of a cached table
DIAGNOSE_QUESTIONS = 50       # questions of the diagnosis of an indexed cached table
KEY_SHIFT = 1 << 16           # row key = document id * KEY_SHIFT + chunk index
TABLES = DATA / "tables"
CACHE_FORMAT = 1
WARMUP = 5
STAGES = ("embed", "search", "fulltext", "fuse", "lexical", "select", "sources", "total")
FULL_VARIANTS = ("numpy", "numpy_subset", "lance_raw", "store_search", "store_search_consistency0", "store_fulltext",
                 "ctx_embed", "ctx_vector", "ctx_hybrid_embed", "ctx_hybrid")
LIGHT_VARIANTS = ("numpy", "numpy_subset", "lance_raw", "store_search", "store_fulltext", "ctx_vector", "ctx_hybrid")


# --- data --------------------------------------------------------------------------


@functools.cache
def use_words():
    """The term bridge's word vectors, as the app's components make them (the built-in USE embedder's)."""
    from irisrag.embeddings import UseEmbedder
    from irisrag.rag.bridge import WordVectors

    return WordVectors(UseEmbedder().embed_documents)

def load_corpus(n_real: int) -> tuple[list[int], list[list[str]]]:
    """Return (document index, chunk texts) of the first documents holding n_real chunks."""
    from irisrag.evaluation.beir import document_text
    from irisrag.ingest.chunk import chunk_text

    docs, texts, total = [], [], 0
    with open(CORPUS_DIR / "corpus.jsonl", encoding="utf-8") as handle:
        for index, line in enumerate(handle):
            chunks = [c.text for c in chunk_text(document_text(json.loads(line)), 700, 150)]
            chunks = chunks[: n_real - total]
            if chunks:
                docs.append(index)
                texts.append(chunks)
                total += len(chunks)
            if total >= n_real:
                break
    return docs, texts


def load_questions(n: int) -> list[str]:
    with open(CORPUS_DIR / "queries.jsonl", encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line, _ in zip(handle, range(n + WARMUP), strict=False)]


def _embed_cached(embedder, texts: list[str], name: str) -> tuple[np.ndarray, float | None]:
    """Embed texts in batches of 32 (cached by content); return vectors and chunks/s (None if cached)."""
    digest = hashlib.sha256("\x1f".join([embedder.key, *texts]).encode()).hexdigest()[:16]
    cache = DATA / "cache" / f"{name}-{embedder.key}-{len(texts)}-{digest}.npy"
    if cache.is_file():
        return np.load(cache), None
    log(f"embedding {len(texts)} {name} texts with {embedder.key} (cached afterwards in {cache.parent})")
    started, parts = time.perf_counter(), []
    for i in range(0, len(texts), 32):
        parts.append(np.asarray(embedder.embed_documents(texts[i:i + 32]), dtype=np.float32))
        if i and i % 2048 == 0:
            log(f"  {i}/{len(texts)} ({i / (time.perf_counter() - started):.0f}/s)")
    vectors = np.concatenate(parts)
    rate = len(texts) / (time.perf_counter() - started)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors, rate


def inputs(quick: bool, max_size: int, embedder=None) -> tuple[list[list[str]], np.ndarray, float | None]:
    """Return the real chunk texts per document and their USE vectors (embedded once, cached) and the rate."""
    from irisrag.embeddings import UseEmbedder

    embedder = embedder or UseEmbedder()
    _, docs = load_corpus(min(2_000 if quick else 10_000, max_size))
    vectors, rate = _embed_cached(embedder, [t for d in docs for t in d], "scifact")
    return docs, vectors, rate


def layout(docs: list[list[str]], size: int) -> Iterator[tuple[int, int, int, int, int]]:
    """Yield (document id, area id, real document index, chunk count, copy) until ``size`` chunks."""
    produced, copy = 0, 0
    while True:
        for d, texts in enumerate(docs):
            n = min(len(texts), size - produced)
            if n <= 0:
                return
            doc_id = copy * len(docs) + d + 1
            yield doc_id, doc_id % AREAS + 1, d, n, copy
            produced += n
        copy += 1


def _synthesize(docs: list[list[str]], vectors: np.ndarray, size: int, seed: int = SEED):
    """Yield (document id, area id, chunk texts, vectors) until ``size`` chunks: real copy, then noisy copies."""
    rng = np.random.default_rng(seed)
    dim = vectors.shape[1]
    sigma = np.float32(np.sqrt((1.0 / NOISE_COSINE**2 - 1.0) / dim))  # |noise|^2 ~ dim*sigma^2
    starts = np.cumsum([0] + [len(d) for d in docs])
    for doc_id, area, d, n, copy in layout(docs, size):
        block = vectors[starts[d]:starts[d] + n]
        if copy:
            block = block + rng.standard_normal(block.shape, dtype=np.float32) * sigma
            block /= np.linalg.norm(block, axis=1, keepdims=True)
        yield doc_id, area, docs[d][:n], block.astype(np.float32, copy=False)  # the texts: shared strings


def _generate(docs, vectors, size: int, sink: Callable | None = None, keep: bool = True):
    """Return the NumPy matrix, each row's area and key (None, None, None unless ``keep``); pass every document to ``sink``."""
    matrix = np.empty((size, vectors.shape[1]), dtype=np.float32) if keep else None
    areas = np.empty(size, dtype=np.int64) if keep else None
    keys = np.empty(size, dtype=np.int64) if keep else None
    row = 0
    for doc_id, area, texts, block in _synthesize(docs, vectors, size):
        n = len(texts)
        if keep:
            matrix[row:row + n] = block
            areas[row:row + n] = area
            keys[row:row + n] = doc_id * KEY_SHIFT + np.arange(n)
        if sink is not None:
            sink(doc_id, area, texts, block)
        row += n
    return matrix, areas, keys


class _Writer:
    """Write the documents of a table: appended bulk, then ``replace_documents`` (see the module docstring)."""

    def __init__(self, store, size: int) -> None:
        self.store = store
        self.append_until = size - REPLACE_TAIL_ROWS if size > APPEND_ABOVE_ROWS else 0
        self.rows, self.arrow, self.arrow_rows, self.batch = 0, [], 0, []
        self.stats = {"append_rows": 0, "append_s": 0.0, "append_commits": 0, "replace_rows": 0,
                      "replace_s": 0.0, "replace_commits": 0, "replace_commit_s": []}

    def __call__(self, doc_id: int, area: int, texts: list[str], block: np.ndarray) -> None:
        from irisrag.vectors.store import ChunkIn

        chunks = [ChunkIn(i, t) for i, t in enumerate(texts)]
        if self.rows < self.append_until:
            started = time.perf_counter()
            store = self.store
            self.arrow.append(store.arrow_rows(doc_id, area, chunks, block))
            self.stats["append_s"] += time.perf_counter() - started
            self.arrow_rows += len(chunks)
            if self.arrow_rows >= APPEND_BATCH_ROWS:
                self._append()
        else:
            self._append()
            self.batch.append((doc_id, area, chunks, block))
            if len(self.batch) >= WRITE_BATCH:
                self._replace()
        self.rows += len(chunks)

    def _append(self) -> None:
        if not self.arrow:
            return
        import pyarrow as pa

        started = time.perf_counter()
        self.store.append(pa.concat_tables(self.arrow))
        self.stats["append_s"] += time.perf_counter() - started
        self.stats["append_rows"] += self.arrow_rows
        self.stats["append_commits"] += 1
        self.arrow, self.arrow_rows = [], 0

    def _replace(self) -> None:
        if not self.batch:
            return
        started = time.perf_counter()
        self.store.replace_documents(self.batch)
        seconds = time.perf_counter() - started
        self.stats["replace_s"] += seconds
        self.stats["replace_commit_s"].append(seconds)
        self.stats["replace_rows"] += sum(len(chunks) for _, _, chunks, _ in self.batch)
        self.stats["replace_commits"] += 1
        self.batch = []

    def close(self) -> dict:
        self._append()
        self._replace()
        return self.stats


def write_table(store, docs, vectors, size: int, keep: bool = True):
    """Write a table, compact it and build the full-text index; return (matrix, areas, keys, build facts)."""
    writer = _Writer(store, size)
    started = time.perf_counter()
    matrix, areas, keys = _generate(docs, vectors, size, writer, keep=keep)
    stats = writer.close()
    build = {"rows": size, "write_s": time.perf_counter() - started, **stats,
             "commits": stats["append_commits"] + stats["replace_commits"]}
    log(f"{size} rows written in {build['write_s']:.1f} s; compacting")
    started = time.perf_counter()
    build["fragments"] = store.compact()  # compacted, as the app's upkeep keeps it
    build["compact_s"] = time.perf_counter() - started
    log(f"compacted in {build['compact_s']:.1f} s; full-text index")
    from irisrag.config import DEFAULTS

    started = time.perf_counter()
    exact_policy = _policy(DEFAULTS, min_rows=10**12)
    if exact_policy is not None:
        store.maintain(exact_policy, full=True)  # full-text index; no vector index
    else:
        store.refresh_indexes()
    build["fts_s"] = time.perf_counter() - started
    log(f"full-text index in {build['fts_s']:.1f} s")
    return matrix, areas, keys, build


def build_vector_index(store, build: dict) -> None:
    """Build the vector index with the app's policy; add its time and shape to ``build``."""
    from irisrag.config import DEFAULTS

    started = time.perf_counter()
    report = store.maintain(_policy(DEFAULTS), full=True)
    build["index_s"] = time.perf_counter() - started
    build["index_report"] = report.as_dict()
    build["index_shape"] = index_shape(store)
    log(f"vector index: {report} in {build['index_s']:.1f} s; {build['index_shape']}")


def index_shape(store) -> str:
    """Describe the table's vector index (type, IVF partitions from a query plan, indexed rows)."""
    import re

    from irisrag.vectors.index import vector_index

    table = store.table()
    index = vector_index(table)
    if index is None:
        return "no vector index"
    try:
        plan = (table.search(np.ones(store.dim, dtype=np.float32), vector_column_name="vector")
                .distance_type("cosine").maximum_nprobes(0).minimum_nprobes(1).limit(1).analyze_plan())
        partitions = re.search(r"partitions_ranked=(\d+)", plan).group(1)
    except Exception:  # the plan's wording is LanceDB's, not an interface
        partitions = "?"
    return f"{index.index_type}, {partitions} partitions, {index.num_indexed_rows:,} rows indexed"


def cache_key(size: int, vectors: np.ndarray) -> tuple[str, dict]:
    """Return the key of a cached table and what it is made of."""
    import lancedb

    from irisrag.config import DEFAULTS

    parts = {"format": CACHE_FORMAT, "size": size, "vectors": hashlib.sha256(vectors.tobytes()).hexdigest()[:16],
             "noise": NOISE_COSINE, "seed": SEED, "areas": AREAS,
             "write": [WRITE_BATCH, APPEND_ABOVE_ROWS, REPLACE_TAIL_ROWS, APPEND_BATCH_ROWS],
             "lancedb": lancedb.__version__, "fts_language": "German",
             "index": [DEFAULTS.get("VECTOR_INDEX_MIN_ROWS"), DEFAULTS.get("VECTOR_INDEX_TYPE")]}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:12], parts


def _cached_build(final: Path, size: int, embedder) -> dict:
    """Return the build facts of a cached table after the app's upkeep pass on it.

    The pass builds what a newer policy adds (e.g. the area_id BITMAP index), a no-op when
    everything is current.
    """
    from irisrag.config import DEFAULTS
    from irisrag.vectors.store import VectorStore

    log(f"{size} rows: cached table {final}")
    build = json.loads((final / "build.json").read_text())
    build["cached"] = True
    upkeep = VectorStore(str(final / "lancedb"), embedder.key, embedder.dim,
                         read_consistency_seconds=None).maintain(_policy(DEFAULTS), full=False)
    build["upkeep_on_load"] = upkeep.as_dict()
    log(f"{size} rows: upkeep pass on the cached table: {upkeep.as_dict()}")
    return build


def cached_table(size: int, docs, vectors, embedder, keep: bool = True):
    """Return (LanceDB URI, build facts, matrix, areas, keys) of a ``size``-row table with both indexes.

    Built once into ``bench/data/tables/context-<size>-<key>/`` (older tables of the same size
    are removed); later calls only regenerate the NumPy side (seeded: the same vectors).
    ``keep=False`` returns None for the NumPy arrays.
    """
    from irisrag.vectors.store import VectorStore

    key, parts = cache_key(size, vectors)
    final = TABLES / f"context-{size}-{key}"
    facts = final / "build.json"
    if facts.is_file():
        build = _cached_build(final, size, embedder)
        matrix, areas, keys = _generate(docs, vectors, size, keep=keep) if keep else (None, None, None)
        return str(final / "lancedb"), build, matrix, areas, keys
    for old in TABLES.glob(f"context-{size}-*"):
        log(f"removing the outdated cached table {old}")
        shutil.rmtree(old, ignore_errors=True)
    work = TABLES / f".building-{size}-{key}-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        store = VectorStore(str(work / "lancedb"), embedder.key, embedder.dim, read_consistency_seconds=None)
        log(f"{size} rows: building the cached table in {work}")
        matrix, areas, keys, build = write_table(store, docs, vectors, size, keep=keep)
        build_vector_index(store, build)
        started = time.perf_counter()  # no reader uses this table yet: old versions can go now
        with warnings.catch_warnings():  # "removes every version except the latest": meant here
            warnings.simplefilter("ignore")
            store.compact(drop_old_versions=True)
        build["cleanup_s"] = time.perf_counter() - started
        build.update(key=key, inputs=parts, built=time.strftime("%Y-%m-%d %H:%M %Z"), load=load_average())
        facts_tmp = work / "build.json"
        facts_tmp.write_text(json.dumps(build, indent=1, default=str))
        del store
        work.rename(final)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    build["cached"] = False
    return str(final / "lancedb"), build, matrix, areas, keys


# --- measurement -------------------------------------------------------------------

def numpy_topk(matrix: np.ndarray, row_areas: np.ndarray, selected: np.ndarray, vector: np.ndarray, k: int):
    """Cosine top-k over all rows with the area mask applied to the scores (rows are unit vectors)."""
    query = (vector / np.linalg.norm(vector)).astype(np.float32)
    mask = np.isin(row_areas, selected)
    scores = np.where(mask, matrix @ query, np.float32(-np.inf))
    top = _top(scores, min(k, int(mask.sum())))
    return top[np.argsort(-scores[top])]


def numpy_topk_subset(sub: np.ndarray, sub_ids: np.ndarray, vector: np.ndarray, k: int):
    """Cosine top-k over rows already restricted to the selected areas (filter cost left out)."""
    query = (vector / np.linalg.norm(vector)).astype(np.float32)
    scores = sub @ query
    top = _top(scores, min(k, len(scores)))
    return sub_ids[top[np.argsort(-scores[top])]]


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Return the indices of the k largest scores, unordered."""
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    return np.argpartition(-scores, k - 1)[:k]


def _area_filter() -> str:
    return f"area_id IN ({', '.join(map(str, SELECTED))})"


def _lance_raw(table, vector: np.ndarray, k: int):
    """The product's vector query (probe and refine settings included), Arrow result only."""
    try:
        from irisrag.vectors.index import tune_query
    except ImportError:  # older tree: no index upkeep, plain brute force
        def tune_query(query):
            return query
    query = (table.search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
             .distance_type("cosine").where(_area_filter(), prefilter=True)
             .select(["document_id", "chunk_index", "_distance"]).limit(k))
    return tune_query(query).to_arrow()


@contextmanager
def query_tuning(tune: Callable) -> Iterator[None]:
    """Replace the app's probe/refine settings (``vectorindex.tune_query``) for the block."""
    from irisrag.vectors import index as vectorindex

    saved = vectorindex.tune_query
    vectorindex.tune_query = tune
    try:
        yield
    finally:
        vectorindex.tune_query = saved


def _bypass(query):
    return query.bypass_vector_index()


def _timed(fn):
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def _key_set(hits) -> set[int]:
    return {h.document_id * KEY_SHIFT + h.chunk_index for h in hits}


def _variant_calls(store, store0, arrays, embedder, settings) -> Callable:
    """Return ``calls(question, vector)``: every measured variant as a zero-argument call."""
    from irisrag.rag.retrieve import build_context

    matrix, row_areas, sub, sub_ids, table = arrays
    selected = np.array(SELECTED, dtype=np.int64)

    def context(question: str, vector: np.ndarray | None = None, **options):
        return build_context(question, SELECTED, embedder=embedder, store=store, settings=settings,
                             query_vector=vector, words=use_words(), **options)

    def calls(question: str, vector: np.ndarray) -> dict[str, Callable]:
        return {
            "numpy": lambda: numpy_topk(matrix, row_areas, selected, vector, K),
            "numpy_subset": lambda: numpy_topk_subset(sub, sub_ids, vector, K),
            "lance_raw": lambda: _lance_raw(table, vector, K),
            "store_search": lambda: store.search(vector, SELECTED, K),
            "store_search_consistency0": lambda: store0.search(vector, SELECTED, K),
            "store_fulltext": lambda: store.search_fulltext(question, SELECTED, K, vector=vector),
            "ctx_embed": lambda: context(question),
            "ctx_vector": lambda: context(question, vector),
            "ctx_hybrid_embed": lambda: context(question, mode="hybrid"),
            "ctx_hybrid": lambda: context(question, vector, mode="hybrid"),
        }

    return calls


def _measure(label: str, store, store0, matrix, row_areas, keys, embedder, questions, qvecs, settings,
             names: tuple[str, ...] = FULL_VARIANTS) -> dict:
    """Run every variant for every question, rotating their order; return the raw timings."""
    selected = np.array(SELECTED, dtype=np.int64)
    mask = np.isin(row_areas, selected)
    sub_ids = np.flatnonzero(mask)
    sub = np.ascontiguousarray(matrix[sub_ids])
    table = store.table()  # the raw query, without the Hit conversion
    out = {name: {"wall": [], "cpu": []} for name in FULL_VARIANTS if not name.startswith("ctx_")}
    out.update({name: [] for name in FULL_VARIANTS if name.startswith("ctx_")})
    out["overlap"] = []
    out["questions"] = len(questions) - WARMUP
    calls = _variant_calls(store, store0, (matrix, row_areas, sub, sub_ids, table), embedder, settings)

    def variants(question: str, vector: np.ndarray):
        fns = calls(question, vector)
        return [(name, fns[name]) for name in names]

    for n, (question, vector) in enumerate(zip(questions, qvecs, strict=True)):
        todo = variants(question, vector)
        shift = n % len(todo)
        results = {}
        for name, fn in todo[shift:] + todo[:shift]:
            result, wall, cpu = _timed(fn)
            results[name] = result
            if n < WARMUP:
                continue
            if name.startswith("ctx_"):
                out[name].append(result.timings)
            else:
                out[name]["wall"].append(wall)
                out[name]["cpu"].append(cpu)
        if n >= WARMUP:
            ref = results["numpy"]
            out["overlap"].append(len(_key_set(results["store_search"]) & set(keys[ref].tolist())) / max(len(ref), 1))
        if n % 25 == 0:
            log(f"  {label}: question {n + 1}/{len(questions)}")
    return out


def _tune(minimum: int, maximum: int, factor: int | None) -> Callable:
    """Return a ``tune_query`` replacement with these probe bounds (0 = unbounded) and refine factor."""
    def apply(query):
        query = query.minimum_nprobes(minimum).maximum_nprobes(maximum)
        return query if factor is None else query.refine_factor(factor)
    return apply


def _vector_settings() -> list[tuple[str, Callable]]:
    """The app's probe/refine settings and alternatives for the diagnosis."""
    from irisrag.vectors import index as vectorindex

    low, refine = vectorindex.SEARCH_MIN_NPROBES, vectorindex.SEARCH_REFINE_FACTOR
    return [
        (f"app: nprobes {low}..unbounded, refine {refine}", vectorindex.tune_query),
        (f"nprobes {low // 2}..unbounded, refine {refine}", _tune(low // 2, 0, refine)),
        (f"nprobes {low}..unbounded, no refine", _tune(low, 0, None)),
        (f"nprobes capped {low}..{low}, refine {refine}", _tune(low, low, refine)),
        (f"nprobes capped {low // 2}..{low // 2}, refine {refine}", _tune(low // 2, low // 2, refine)),
        (f"nprobes capped {low * 2}..{low * 2}, refine {refine}", _tune(low * 2, low * 2, refine)),
        (f"nprobes capped {low}..{low}, no refine", _tune(low, low, None)),
    ]


class ConcurrentLegs:
    """A store for ``build_context`` that starts the full-text leg in a thread as the vector leg starts.

    ``build_context`` calls ``search`` and then ``search_fulltext`` with the same question, areas
    and k; this runs them at once (LanceDB releases the GIL), so the ``search`` stage is the
    vector leg and the ``fulltext`` stage only what is left of the full-text leg afterwards.
    """

    def __init__(self, store, question: str, pool) -> None:
        self.store, self.question, self.pool, self.future = store, question, pool, None

    def search(self, vector, area_ids, k):
        self.future = self.pool.submit(self.store.search_fulltext, self.question, area_ids, k, vector=vector)
        return self.store.search(vector, area_ids, k)

    def search_fulltext(self, text, area_ids, k, *, vector=None):
        if self.future is None or text != self.question:
            return self.store.search_fulltext(text, area_ids, k, vector=vector)
        return self.future.result()


def area_bitmap_copy(uri: str, embedder, folder: Path):
    """Copy a table to ``folder`` and give the copy a BITMAP scalar index on ``area_id``; return (store, seconds)."""
    from lancedb.index import Bitmap

    from irisrag.vectors.store import VectorStore

    shutil.copytree(uri, folder)
    store = VectorStore(str(folder), embedder.key, embedder.dim, read_consistency_seconds=None)
    started = time.perf_counter()
    store.table().create_index("area_id", config=Bitmap())
    return store, time.perf_counter() - started


def _hybrid_variants(store, bitmap_store) -> list[tuple[str, object, Callable, bool]]:
    """(name, store, tune_query, concurrent legs) of the end-to-end hybrid variants."""
    from irisrag.vectors import index as vectorindex

    low, refine = vectorindex.SEARCH_MIN_NPROBES, vectorindex.SEARCH_REFINE_FACTOR
    capped = _tune(low, low, refine)
    variants = [("app as it is", store, vectorindex.tune_query, False),
                (f"nprobes capped at {low}", store, capped, False),
                ("legs run concurrently", store, vectorindex.tune_query, True),
                (f"nprobes capped at {low} + legs concurrently", store, capped, True)]
    if bitmap_store is not None:
        variants += [("BITMAP index on area_id", bitmap_store, vectorindex.tune_query, False),
                     ("BITMAP + no refine step", bitmap_store, _tune(low, 0, None), False),
                     (f"BITMAP + nprobes capped at {low * 2}", bitmap_store, _tune(low * 2, low * 2, refine), False),
                     (f"BITMAP + nprobes capped at {low}", bitmap_store, capped, False),
                     ("BITMAP + legs concurrently", bitmap_store, vectorindex.tune_query, True)]
    return variants


def _fulltext_variants(store, table) -> list[tuple[str, Callable]]:
    """The app's full-text leg and its parts, for the diagnosis."""
    from lancedb.query import MatchQuery

    from irisrag.vectors.store import QUERY_WORDS

    columns = ["document_id", "area_id", "chunk_index", "page", "text", "_score"]

    def raw(question: str, *, vector: bool = True, where: bool = True, prefilter: bool = True, limit: int = K,
            words: int | None = None):
        found = QUERY_WORDS.findall(question)[:words]
        query = table.search(MatchQuery(" ".join(found), "text"), query_type="fts")
        if where:
            query = query.where(_area_filter(), prefilter=prefilter)
        return query.select(columns + (["vector"] if vector else [])).limit(limit).to_arrow()

    return [
        ("app: `search_fulltext` (area prefilter, vector column, cosine, hits)",
         lambda q, v: store.search_fulltext(q, SELECTED, K, vector=v)),
        ("the same query, Arrow only", lambda q, v: raw(q)),
        ("without the vector column", lambda q, v: raw(q, vector=False)),
        ("without the area filter (all 20 areas)", lambda q, v: raw(q, vector=False, where=False)),
        ("area filter after the search (prefilter=False)", lambda q, v: raw(q, vector=False, prefilter=False)),
        ("top 64 instead of 256", lambda q, v: raw(q, vector=False, limit=64)),
        ("first 4 words of the question only", lambda q, v: raw(q, vector=False, words=4)),
    ]


def _diagnose(label: str, store, matrix, row_areas, keys, questions, qvecs, settings, bitmap_store=None) -> dict:
    """Time the vector leg under other probe/refine settings (with recall), the full-text leg's parts and
    end-to-end hybrid variants (capped probes, concurrent legs, a BITMAP area index on a copy)."""
    from concurrent.futures import ThreadPoolExecutor

    selected = np.array(SELECTED, dtype=np.int64)
    table = store.table()
    vector_settings = _vector_settings()
    fulltext = _fulltext_variants(store, table)
    if bitmap_store is not None:
        fulltext.append(("app `search_fulltext` on the copy with a BITMAP index on area_id",
                         lambda q, v: bitmap_store.search_fulltext(q, SELECTED, K, vector=v)))
    hybrids = _hybrid_variants(store, bitmap_store)
    out = {"vector": {name: {"wall": [], "recall": []} for name, _ in vector_settings},
           "fulltext": {name: {"wall": [], "rows": []} for name, _ in fulltext},
           "hybrid": {name: {"runs": [], "recall": []} for name, *_ in hybrids}, "numpy": []}
    pool = ThreadPoolExecutor(1)
    for n, (question, vector) in enumerate(zip(questions, qvecs, strict=True)):
        exact, wall, _ = _timed(lambda: numpy_topk(matrix, row_areas, selected, vector, K))  # noqa: B023
        exact_keys = set(keys[exact].tolist())
        todo = ([("vector", name, fn) for name, fn in vector_settings]
                + [("fulltext", name, fn) for name, fn in fulltext]
                + [("hybrid", name, variant) for name, *variant in hybrids])
        shift = n % len(todo)
        for kind, name, fn in todo[shift:] + todo[:shift]:
            hits, seconds, context = _diagnosed(kind, fn, store, question, vector, (pool, settings, n >= WARMUP))
            if n >= WARMUP:
                recall = len(_key_set(hits) & exact_keys) / max(len(exact), 1) if kind != "fulltext" else None
                _note(out[kind][name], kind, hits, seconds, context, recall)
        if n >= WARMUP:
            out["numpy"].append(wall)
        if n % 25 == 0:
            log(f"  {label} diagnosis: question {n + 1}/{len(questions)}")
    pool.shutdown()
    return out


def _diagnosed(kind: str, fn, store, question: str, vector: np.ndarray, run: tuple):
    """Run one diagnosis variant; return (hits, seconds, hybrid context or None)."""
    from irisrag.rag.retrieve import build_context

    pool, settings, counted = run
    if kind == "vector":
        with query_tuning(fn):
            return (*_timed(lambda: store.search(vector, SELECTED, K))[:2], None)
    if kind == "fulltext":
        return (*_timed(lambda: fn(question, vector))[:2], None)
    target, tune, concurrent = fn
    searcher = ConcurrentLegs(target, question, pool) if concurrent else target
    with query_tuning(tune):
        context = build_context(question, SELECTED, embedder=None, store=searcher, settings=settings,
                                query_vector=vector, mode="hybrid", words=use_words())
        hits = target.search(vector, SELECTED, K) if counted else []  # untimed: the leg's recall
    return hits, None, context


def _note(entry: dict, kind: str, hits, seconds, context, recall: float | None) -> None:
    """Add one measured diagnosis variant to its entry."""
    if kind == "fulltext":
        entry["wall"].append(seconds)
        entry["rows"].append(len(hits) if isinstance(hits, list) else hits.num_rows)
        return
    if kind == "vector":
        entry["wall"].append(seconds)
    else:
        entry["runs"].append(context.timings)
    entry["recall"].append(recall)


def _rss_mb() -> tuple[float, float]:
    """Return this process's VmRSS and VmHWM in MiB."""
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            name, value = line.split(":", 1)
            values[name] = int(value.split()[0]) / 1024
    return values.get("VmRSS", float("nan")), values.get("VmHWM", float("nan"))


# --- the benchmark -----------------------------------------------------------------

def size_label(size: int) -> str:
    return f"{size / 1e6:g}M" if size >= 1_000_000 else f"{size // 1000}k"


@dataclass
class _Inputs:
    """What every size of one run shares: the embedder, the corpus, the questions and the settings."""

    quick: bool
    embedder: object
    docs: list
    vectors: np.ndarray
    embed_rate: float | None
    questions: list[str]
    qvecs: list
    settings: object
    consistency: float
    machine_text: str


def _inputs(quick: bool, sizes: list[int], queries: int | None) -> _Inputs:
    from irisrag.config import DEFAULTS
    from irisrag.embeddings import UseEmbedder, load_use
    from irisrag.rag.retrieve import RetrievalSettings

    machine_text = machine()  # load average at the start
    load_use()
    embedder = UseEmbedder()
    docs, vectors, embed_rate = inputs(quick, max(sizes), embedder)
    questions = load_questions(queries or (30 if quick else 200))
    qvecs = [embedder.embed_query(q) for q in questions]
    log(f"{len(vectors)} real chunks from {len(docs)} SciFact documents; {len(questions) - WARMUP} questions "
        f"(+{WARMUP} warm-up)")
    settings = replace(RetrievalSettings.from_config(DEFAULTS), mode="vector")
    return _Inputs(quick, embedder, docs, vectors, embed_rate, questions, qvecs, settings,
                   float(DEFAULTS["LANCEDB_READ_CONSISTENCY_SECONDS"]), machine_text)


class _Run:
    """One run over the sizes: builds (or opens) each table, measures its phases, collects the results."""

    def __init__(self, given: _Inputs, tmp: Path) -> None:
        from irisrag.config import DEFAULTS

        self.given, self.tmp = given, tmp
        self.builds, self.results, self.diagnoses = [], {}, {}
        self.index_min_rows = int(DEFAULTS.get("VECTOR_INDEX_MIN_ROWS", 10**12))
        self.index_name = (f"{DEFAULTS.get('VECTOR_INDEX_TYPE', 'IVF_SQ')} "
                           f"(app policy: index from {self.index_min_rows:,} rows)")
        self.indexing = _policy(DEFAULTS) is not None

    def record(self, name, build, share, rows, index_s, extra="") -> None:
        real = min(len(self.given.vectors), rows)
        self.builds.append({**{k: v for k, v in build.items() if k not in ("replace_commit_s", "inputs")},
                            "label": name, "rows": rows, "real": real, "share": share,
                            "replace_commit_median_s": median(build.get("replace_commit_s") or []),
                            "index_s": index_s, "load": load_average(), "note": extra})

    def _table(self, size: int, label: str):
        from irisrag.vectors.store import VectorStore

        given = self.given
        if size >= CACHE_FROM_ROWS:
            return cached_table(size, given.docs, given.vectors, given.embedder)
        uri = str(self.tmp / label)
        log(f"{label}: writing {size} chunks")
        writer = VectorStore(uri, given.embedder.key, given.embedder.dim, read_consistency_seconds=given.consistency)
        matrix, row_areas, keys, build = write_table(writer, given.docs, given.vectors, size)
        return uri, build, matrix, row_areas, keys

    def _measure(self, name: str, stores, data, questions: int | None = None, names=FULL_VARIANTS) -> None:
        given = self.given
        n = len(given.questions) if questions is None else questions
        log(f"{name}: measuring")
        self.results[name] = _measure(name, *stores, *data, given.embedder, given.questions[:n], given.qvecs[:n],
                                      given.settings, names)
        self.results[name]["rss_mb"] = _rss_mb()

    def size(self, size: int) -> None:
        """Build or open the table of ``size`` rows and run its exact and (past the policy) indexed phase."""
        from irisrag.vectors.store import VectorStore

        label, given = size_label(size), self.given
        uri, build, matrix, row_areas, keys = self._table(size, label)
        stores = tuple(VectorStore(uri, given.embedder.key, given.embedder.dim, read_consistency_seconds=seconds)
                       for seconds in (given.consistency, 0.0))
        share = float(np.isin(row_areas, SELECTED).mean())
        cached = size >= CACHE_FROM_ROWS
        note = (f"cached table built {build.get('built')}" if build.get("cached") else
                "built in this run, cached" if cached else "")
        data = (matrix, row_areas, keys)
        self._exact(label, size, cached, build, share, note, stores, data)
        if size >= self.index_min_rows and self.indexing:
            self._indexed(label, size, cached, build, share, note, stores, data, uri)

    def _exact(self, label, size, cached, build, share, note, stores, data) -> None:
        name = f"{label} exact" + (" (no vector index)" if size >= self.index_min_rows else "")
        if cached:
            name = f"{label} exact (index bypassed, {EXACT_QUESTIONS_LARGE} questions)"
        self.record(name, build, share, size, None, note)
        if not cached:
            self._measure(name, stores, data)
            return
        with query_tuning(_bypass):
            self._measure(name, stores, data, WARMUP + EXACT_QUESTIONS_LARGE, LIGHT_VARIANTS)

    def _indexed(self, label, size, cached, build, share, note, stores, data, uri) -> None:
        if not cached:
            log(f"{label}: building the vector index with the app's policy")
            build_vector_index(stores[0], build)
        name = f"{label} {self.index_name}"
        self.record(name, build, share, size, build.get("index_s"), note)
        self._measure(name, stores, data)
        if cached:
            self._diagnose(name, label, stores[0], data, uri)

    def _diagnose(self, name: str, label: str, store, data, uri: str) -> None:
        given = self.given
        n_diag = min(len(given.questions), WARMUP + DIAGNOSE_QUESTIONS)
        log(f"{name}: copying the table for the BITMAP experiment")
        folder = self.tmp / f"{label}-bitmap"
        bitmap_store, bitmap_s = area_bitmap_copy(uri, given.embedder, folder)
        self.diagnoses[name] = _diagnose(name, store, *data, given.questions[:n_diag], given.qvecs[:n_diag],
                                         given.settings, bitmap_store)
        self.diagnoses[name]["bitmap_s"] = bitmap_s
        del bitmap_store
        shutil.rmtree(folder, ignore_errors=True)


def run(quick: bool, sizes: list[int] | None = None, queries: int | None = None) -> str:
    """Run the context benchmark; return the Markdown report (also written to bench/out/)."""
    if not (CORPUS_DIR / "corpus.jsonl").is_file():
        message = (f"The context benchmark needs a BEIR corpus at {CORPUS_DIR}/corpus.jsonl and queries.jsonl "
                   "(set IRISRAG_BENCH_CORPUS to another BEIR directory).")
        log(message)
        return f"## Context building\n\nSkipped: {message}\n"
    sizes = sizes or [10_000, 100_000]
    given = _inputs(quick, sizes, queries)
    tmp = Path(tempfile.mkdtemp(prefix="irisrag-bench-context-"))
    runner = _Run(given, tmp)
    try:
        for size in sizes:
            runner.size(size)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    facts = Facts(quick, len(given.vectors), len(given.docs), given.embed_rate, len(given.questions) - WARMUP,
                  given.consistency, given.machine_text)
    text, path = report(facts, _shape(), runner.builds, runner.results, runner.diagnoses)
    log(f"wrote {path}")
    return text


def _shape() -> dict:
    """The constants of the run's design that the report's captions state."""
    return {"warmup": WARMUP, "exact_large": EXACT_QUESTIONS_LARGE, "noise": NOISE_COSINE, "areas": AREAS,
            "selected": len(SELECTED), "append_above": APPEND_ABOVE_ROWS, "replace_tail": REPLACE_TAIL_ROWS,
            "cache_from": CACHE_FROM_ROWS, "stages": STAGES}


def _policy(config, min_rows: int | None = None):
    """Return the app's index policy (or None on a tree without index upkeep)."""
    try:
        from irisrag.jobs.maintenance import policy
    except ImportError:
        return None
    value = policy(config)
    return value if min_rows is None else replace(value, min_rows=min_rows)
