"""Context building: per-stage latency of ``rag.retrieve.build_context`` at 10k and 100k chunks,
against a plain NumPy float32 cosine top-k over the same vectors in the same process.

Data: SciFact abstracts (``/work/shared/eval/scifact/corpus.jsonl``; override with
IRISRAG_BENCH_CORPUS) chunked with the product's chunker (700 / 150). The first N_REAL chunks
(10,000; quick 2,000) are embedded with the default USE embedder (cached in bench/data/cache/).
Larger tables repeat the real documents as new documents: copy 0 keeps the real vectors,
every further copy adds Gaussian noise to each real vector (cosine ~0.9 to its source) and
renormalises, and keeps the chunk text. Documents are spread round-robin over 20 areas; the
questions search 3 of them (~15 % of the rows), as a user with a few areas would.
Questions: the SciFact queries (``queries.jsonl``), in file order.

Rows are written with ``VectorStore.replace_documents`` (the product's write path), 1,000
documents per commit, then compacted (``optimize``) and given the full-text index with
``VectorStore.maintain`` (no vector index): the steady state the app's index upkeep keeps.
Tables at or above VECTOR_INDEX_MIN_ROWS (50,000) are measured twice: first exact (brute
force), then after ``VectorStore.maintain`` with the app's policy has built the vector index.

Per question, interleaved (the order rotates): NumPy full scan with the area mask, NumPy over
pre-filtered rows, LanceDB query alone (``to_arrow``), ``build_context`` with the embedding call,
without it (the vector passed in), and the same two in hybrid mode (full-text index built
with ``VectorStore.maintain``).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.common import (
    DATA,
    load_average,
    log,
    machine,
    med_p95,
    median,
    ms,
    percentile,
    table,
    write_report,
)

CORPUS_DIR = Path(os.environ.get("IRISRAG_BENCH_CORPUS", "/work/shared/eval/scifact"))
AREAS = 20
SELECTED = (1, 2, 3)
K = 256
NOISE_COSINE = 0.9
WRITE_BATCH = 1000
WARMUP = 5
STAGES = ("embed", "search", "fulltext", "fuse", "lexical", "select", "sources", "total")


# --- data --------------------------------------------------------------------------

def _corpus(n_real: int) -> tuple[list[int], list[list[str]]]:
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


def _questions(n: int) -> list[str]:
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


def _synthesize(docs: list[list[str]], vectors: np.ndarray, size: int, seed: int = 7):
    """Yield (document id, area id, chunk texts, vectors) until ``size`` chunks: real copy, then noisy copies."""
    rng = np.random.default_rng(seed)
    dim = vectors.shape[1]
    sigma = np.float32(np.sqrt((1.0 / NOISE_COSINE**2 - 1.0) / dim))  # |noise|^2 ~ dim*sigma^2
    starts = np.cumsum([0] + [len(d) for d in docs])
    produced, copy = 0, 0
    while produced < size:
        for d, texts in enumerate(docs):
            texts = texts[: size - produced]
            if not texts:
                return
            block = vectors[starts[d]:starts[d] + len(texts)]
            if copy:
                block = block + rng.standard_normal(block.shape, dtype=np.float32) * sigma
                block /= np.linalg.norm(block, axis=1, keepdims=True)
            doc_id = copy * len(docs) + d + 1
            yield doc_id, doc_id % AREAS + 1, texts, block.astype(np.float32, copy=False)
            produced += len(texts)
        copy += 1


def _build(store, docs, vectors, size: int):
    """Write ``size`` chunks; return the NumPy matrix, each row's area and key, write seconds and commits."""
    from irisrag.vectorstore import ChunkIn

    matrix, areas, keys, batch, commits = [], [], [], [], 0
    started = time.perf_counter()
    for doc_id, area, texts, block in _synthesize(docs, vectors, size):
        chunks = [ChunkIn(i, t) for i, t in enumerate(texts)]
        matrix.append(block)
        keys.extend((doc_id, i) for i in range(len(texts)))
        areas.append(np.full(len(texts), area, dtype=np.int64))
        batch.append((doc_id, area, chunks, block))
        if len(batch) >= WRITE_BATCH:
            store.replace_documents(batch)
            batch, commits = [], commits + 1
    if batch:
        store.replace_documents(batch)
        commits += 1
    seconds = time.perf_counter() - started
    return np.ascontiguousarray(np.concatenate(matrix)), np.concatenate(areas), keys, seconds, commits


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


def _lance_raw(table, vector: np.ndarray, k: int):
    """The product's vector query (probe and refine settings included), Arrow result only."""
    try:
        from irisrag.vectorindex import tune_query
    except ImportError:  # older tree: no index upkeep, plain brute force
        def tune_query(query):
            return query
    query = (table.search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
             .distance_type("cosine").where(f"area_id IN ({', '.join(map(str, SELECTED))})", prefilter=True)
             .select(["document_id", "chunk_index", "_distance"]).limit(k))
    return tune_query(query).to_arrow()


def _timed(fn):
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def _measure(label: str, store, store0, matrix, row_areas, keys, embedder, questions, qvecs, settings,
             hybrid: bool) -> dict:
    """Run every variant for every question, rotating their order; return the raw timings."""
    from irisrag.rag.retrieve import build_context

    selected = np.array(SELECTED, dtype=np.int64)
    mask = np.isin(row_areas, selected)
    sub_ids = np.flatnonzero(mask)
    sub = np.ascontiguousarray(matrix[sub_ids])
    table = store._open()  # noqa: SLF001 - the raw query, without the Hit conversion
    out = {name: {"wall": [], "cpu": []} for name in ("numpy", "numpy_subset", "lance_raw", "store_search",
                                                        "store_search_consistency0")}
    out.update({name: [] for name in ("ctx_embed", "ctx_vector", "ctx_hybrid_embed", "ctx_hybrid")})
    out["overlap"] = []

    def variants(question: str, vector: np.ndarray):
        yield "numpy", lambda: numpy_topk(matrix, row_areas, selected, vector, K)
        yield "numpy_subset", lambda: numpy_topk_subset(sub, sub_ids, vector, K)
        yield "lance_raw", lambda: _lance_raw(table, vector, K)
        yield "store_search", lambda: store.search(vector, SELECTED, K)
        yield "store_search_consistency0", lambda: store0.search(vector, SELECTED, K)
        yield "ctx_embed", lambda: build_context(question, SELECTED, embedder=embedder, store=store, settings=settings)
        yield "ctx_vector", lambda: build_context(question, SELECTED, embedder=embedder, store=store,
                                                  settings=settings, query_vector=vector)
        if hybrid:
            yield "ctx_hybrid_embed", lambda: build_context(question, SELECTED, embedder=embedder, store=store,
                                                            settings=settings, mode="hybrid")
            yield "ctx_hybrid", lambda: build_context(question, SELECTED, embedder=embedder, store=store,
                                                      settings=settings, query_vector=vector, mode="hybrid")

    for n, (question, vector) in enumerate(zip(questions, qvecs, strict=True)):
        todo = list(variants(question, vector))
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
            lance = {(h.document_id, h.chunk_index) for h in results["store_search"]}
            ref = results["numpy"]
            out["overlap"].append(len(lance & {keys[i] for i in ref}) / max(len(ref), 1))
        if n % 25 == 0:
            log(f"  {label}: question {n + 1}/{len(questions)}")
    return out


# --- the benchmark -----------------------------------------------------------------

def run(quick: bool, sizes: list[int] | None = None, queries: int | None = None) -> str:
    """Run the context benchmark; return the Markdown report (also written to bench/out/)."""
    if not (CORPUS_DIR / "corpus.jsonl").is_file():
        message = (f"The context benchmark needs a BEIR corpus at {CORPUS_DIR}/corpus.jsonl and queries.jsonl "
                   "(set IRISRAG_BENCH_CORPUS to another BEIR directory).")
        log(message)
        return f"## Context building\n\nSkipped: {message}\n"
    from irisrag.config import DEFAULTS
    from irisrag.embeddings import UseEmbedder, _load_use
    from irisrag.rag.retrieve import RetrievalSettings
    from irisrag.vectorstore import VectorStore

    sizes = sizes or [10_000, 100_000]
    n_questions = queries or (30 if quick else 200)
    n_real = min(2_000 if quick else 10_000, max(sizes))
    consistency = float(DEFAULTS["LANCEDB_READ_CONSISTENCY_SECONDS"])
    settings = replace(RetrievalSettings.from_config(DEFAULTS), mode="vector")

    machine_text = machine()  # load average at the start
    _load_use()
    embedder = UseEmbedder()
    doc_index, docs = _corpus(n_real)
    texts = [t for d in docs for t in d]
    vectors, embed_rate = _embed_cached(embedder, texts, "scifact")
    questions = _questions(n_questions)
    qvecs = [embedder.embed_query(q) for q in questions]
    log(f"{len(texts)} real chunks from {len(docs)} SciFact documents; {len(questions) - WARMUP} questions "
        f"(+{WARMUP} warm-up)")

    index_min_rows = int(DEFAULTS.get("VECTOR_INDEX_MIN_ROWS", 10**12))
    tmp = Path(tempfile.mkdtemp(prefix="irisrag-bench-context-"))
    builds, results = [], {}
    try:
        for size in sizes:
            label = f"{size // 1000}k"
            uri = str(tmp / label)
            store = VectorStore(uri, embedder.key, embedder.dim, read_consistency_seconds=consistency)
            log(f"{label}: writing {size} chunks")
            matrix, row_areas, keys, write_s, commits = _build(store, docs, vectors, size)
            started = time.perf_counter()
            _retry_conflict(store._open().optimize)  # noqa: SLF001 - compacted, as the app's upkeep keeps it
            compact_s = time.perf_counter() - started
            started = time.perf_counter()
            exact_policy = _policy(DEFAULTS, min_rows=10**12)
            if exact_policy is not None:
                store.maintain(exact_policy, full=True)  # full-text index; no vector index
            else:
                store.refresh_indexes()
            fts_s = time.perf_counter() - started
            store0 = VectorStore(uri, embedder.key, embedder.dim, read_consistency_seconds=0.0)
            stats = store._open().stats()  # noqa: SLF001
            share = float(np.isin(row_areas, SELECTED).mean())
            phases = [("exact" if size < index_min_rows else "exact (no vector index)", None)]
            if size >= index_min_rows and exact_policy is not None:
                phases.append((f"{DEFAULTS.get('VECTOR_INDEX_TYPE', 'IVF_SQ')} (app policy: index from "
                               f"{index_min_rows:,} rows)", _policy(DEFAULTS)))
            for phase, policy in phases:
                index_s = None
                if policy is not None:
                    log(f"{label}: building the vector index with the app's policy")
                    started = time.perf_counter()
                    report = store.maintain(policy, full=True)
                    index_s = time.perf_counter() - started
                    log(f"{label}: maintain -> {report}")
                name = f"{label} {phase}"
                builds.append({"label": name, "rows": len(matrix), "real": min(len(texts), len(matrix)),
                               "share": share, "write_s": write_s, "commits": commits, "compact_s": compact_s,
                               "fragments": stats["fragment_stats"]["num_fragments"], "fts_s": fts_s,
                               "index_s": index_s, "load": load_average()})
                log(f"{name}: {len(matrix)} rows, {share:.1%} in the selected areas, written in {write_s:.1f} s "
                    f"({commits} commits), compacted in {compact_s:.1f} s, full-text index {fts_s:.1f} s; measuring")
                results[name] = _measure(name, store, store0, matrix, row_areas, keys, embedder, questions, qvecs,
                                         settings, hybrid=True)
            del matrix, keys, store, store0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return _report(quick, builds, results, len(texts), len(docs), embed_rate, len(questions) - WARMUP, consistency,
                   machine_text)


def _policy(config, min_rows: int | None = None):
    """Return the app's index policy (or None on a tree without index upkeep)."""
    try:
        from irisrag.jobs.maintenance import policy
    except ImportError:
        return None
    value = policy(config)
    return value if min_rows is None else replace(value, min_rows=min_rows)


def _retry_conflict(operation, attempts: int = 5):
    for attempt in range(attempts):
        try:
            return operation()
        except Exception as exc:  # lance raises plain errors
            if "conflict" not in str(exc).lower() or attempt == attempts - 1:
                raise
            time.sleep(0.2 * 2 ** attempt)
    return None


def _report(quick, builds, results, n_real, n_docs, embed_rate, n_questions, consistency, machine_text) -> str:
    build_rows = [[b["label"], f"{b['rows']:,}", f"{b['real']:,}", f"{b['rows'] - b['real']:,}",
                   f"{b['share']:.1%}", f"{b['write_s']:.1f} ({b['commits']} commits)",
                   f"{b['compact_s']:.1f} ({b['fragments']} fragments after)", f"{b['fts_s']:.1f}",
                   "–" if b["index_s"] is None else f"{b['index_s']:.1f}", b["load"]] for b in builds]
    stage_rows = []
    variants = (("ctx_embed", "vector, with embedding"), ("ctx_vector", "vector, no embedding (vector passed in)"),
                ("ctx_hybrid_embed", "hybrid, with embedding"), ("ctx_hybrid", "hybrid, no embedding"))
    for label, res in results.items():
        for key, name in variants:
            runs = res[key]
            if not runs:
                continue
            cells = []
            for stage in STAGES:
                values = [r.get(stage, 0.0) for r in runs]
                if stage in ("fulltext", "fuse") and not any(values):
                    cells.append("–")
                elif stage == "embed" and key not in ("ctx_embed", "ctx_hybrid_embed"):
                    cells.append(f"({med_p95(values)})")
                else:
                    cells.append(med_p95(values))
            stage_rows.append([label, name, *cells])
    search_rows = []
    for label, res in results.items():
        base = median(res["numpy"]["wall"])
        entries = (("numpy", "NumPy full scan + area mask (baseline)"),
                   ("numpy_subset", "NumPy over the pre-filtered rows only"),
                   ("lance_raw", "LanceDB query alone (`to_arrow`, 3 columns)"),
                   ("store_search", f"`VectorStore.search` (app: consistency {consistency:g} s)"),
                   ("store_search_consistency0", "`VectorStore.search`, consistency 0 s"))
        for key, name in entries:
            wall, cpu = res[key]["wall"], res[key]["cpu"]
            search_rows.append([label, name, ms(median(wall)), ms(percentile(wall, 95)),
                                f"{median(wall) / base:.1f}×", ms(median(cpu))])
        ctx_search = [r["search"] for r in res["ctx_vector"]]
        search_rows.append([label, "`build_context` search stage (no-embedding run)", ms(median(ctx_search)),
                            ms(percentile(ctx_search, 95)), f"{median(ctx_search) / base:.1f}×", "–"])
    overlap_rows = [[label, f"{np.mean(res['overlap']):.3f}", f"{min(res['overlap']):.3f}"]
                    for label, res in results.items()]

    rate = "taken from the cache" if embed_rate is None else f"{embed_rate:.0f} chunks/s"
    sections = [
        "## Machine\n\n" + machine_text,
        "## Context building (`build_context`, k = 256 candidates)\n\n"
        f"{'Quick run' if quick else 'Full run'}: {n_questions} SciFact questions per configuration after "
        f"{WARMUP} warm-up questions, every variant run for every question in rotating order. {n_real:,} real "
        f"SciFact chunks ({n_docs:,} documents) embedded with USE ({rate}); larger tables repeat them as new "
        f"documents with noisy vectors (cosine ~{NOISE_COSINE} to the source). {AREAS} areas, the questions search "
        f"{len(SELECTED)} of them. Milliseconds, `median / p95`. `embed` in parentheses: the no-embedding runs "
        "only convert the passed vector. Modes: `vector` (the stages of the original: embed, search, lexical, "
        f"select, sources) and `hybrid` (the app's default RETRIEVAL_MODE: also BM25 full-text candidates and "
        f"their fusion).\n\n"
        + table(["table", "rows", "real vectors", "synthetic", "rows in searched areas", "write s", "compact s",
                 "full-text index s", "vector index s", "load avg"], build_rows)
        + "\n\n" + table(["table", "variant", *STAGES], stage_rows),
        "### Vector search against the NumPy baseline (same vectors, same process, same questions)\n\n"
        "NumPy: float32 matrix (rows normalised), `np.isin` area mask, matvec, `argpartition` + sort of the top 256 "
        "— the memory-bandwidth baseline. LanceDB: brute-force (no vector index) cosine search with the area "
        "prefilter, or the app's vector index with its probe/refine settings where built. `× NumPy` compares "
        "medians; CPU = process CPU time per call (LanceDB runs on several threads).\n\n"
        + table(["table", "method", "median ms", "p95 ms", "× NumPy", "CPU ms (median)"], search_rows)
        + "\n\nRecall: share of NumPy's exact top 256 that `VectorStore.search` also returned (1.000 for "
        "brute force; the index trades some of it for speed):\n\n"
        + table(["table", "mean recall@256", "min"], overlap_rows),
    ]
    raw = {"quick": quick, "builds": builds, "results": results}
    path = write_report("context", "IrisRAG context building", sections, raw)
    log(f"wrote {path}")
    return "\n\n".join(sections[1:])
