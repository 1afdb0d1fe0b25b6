"""Vector search with and without an index: NumPy vs LanceDB brute force vs LanceDB + index.

``.venv/bin/python -m bench.index_bench [--sizes 10000,100000] [--queries 100] [--types ...]``

Data: synthetic 512-d unit vectors around 1 centre per 500 rows (Gaussian noise of the
centre's scale: neighbours are close but not duplicates, as with embeddings of related
texts; ``--data gaussian`` gives structureless vectors, the hard case for IVF). Documents of
10 chunks, spread round-robin over 20 areas; every query searches 3 areas (~15 % of the rows)
with the product's prefilter. Queries: held-out vectors of the same distribution plus a little
noise. Rows are written with ``VectorStore.replace_documents`` (1,000 documents per commit),
the index is built with ``VectorStore.maintain`` (threshold 0) and searched through
``VectorStore.search`` (k=256, hits built as the product builds them).

Per query, interleaved so machine load hits both alike: the NumPy baseline (float32 matrix,
area mask, argpartition top 256, sorted) and the LanceDB search. ``x NumPy`` is the median
LanceDB time over the median NumPy time of the same phase; CPU ms is the process's CPU time per
query (all threads: a steadier measure of work on a busy machine); recall@256 is against the exact
top 256 of the allowed rows. ``IVF_SQ, no refine`` is the chosen index without the refine
step (``vectorindex.SEARCH_REFINE_FACTOR``); ``IVF_PQ`` (``--types``) is built with LanceDB's
defaults for comparison.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

DIM, K, AREAS, PER_DOC = 512, 256, 20, 10
QUERY_AREAS = [1, 2, 3]


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def vectors(n: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """Return n unit vectors (float32)."""
    if kind == "gaussian":
        x = rng.normal(size=(n, DIM)).astype(np.float32)
    else:
        centres = rng.normal(size=(max(20, n // 500), DIM)).astype(np.float32)
        x = centres[rng.integers(0, len(centres), n)] + rng.normal(size=(n, DIM)).astype(np.float32)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def fill(store, matrix: np.ndarray) -> None:
    from irisrag.vectors.store import ChunkIn

    docs = []
    for d in range(len(matrix) // PER_DOC):
        chunks = [ChunkIn(i, f"document {d} chunk {i}") for i in range(PER_DOC)]
        docs.append((d, d % AREAS, chunks, matrix[d * PER_DOC:(d + 1) * PER_DOC]))
    for start in range(0, len(docs), 1000):
        store.replace_documents(docs[start:start + 1000])


def numpy_top(matrix: np.ndarray, area_of_row: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The baseline: cosine (unit rows) over all rows, other areas masked out, sorted top K."""
    scores = matrix @ query
    scores[~np.isin(area_of_row, QUERY_AREAS)] = -np.inf
    top = np.argpartition(-scores, K)[:K]
    return top[np.argsort(-scores[top])]


def measure(store, matrix, area_of_row, queries, search: Callable) -> dict:
    """Interleave NumPy and LanceDB per query; return timings and recall."""
    numpy_ms, lance_ms, numpy_cpu, lance_cpu, recalls = [], [], [], [], []
    for n, query in enumerate(queries):
        order = (0, 1) if n % 2 else (1, 0)
        for which in order:
            cpu, began = time.process_time(), time.perf_counter()
            if which == 0:
                exact = numpy_top(matrix, area_of_row, query)
                numpy_ms.append((time.perf_counter() - began) * 1000)
                numpy_cpu.append((time.process_time() - cpu) * 1000)
            else:
                hits = search(query)
                lance_ms.append((time.perf_counter() - began) * 1000)
                lance_cpu.append((time.process_time() - cpu) * 1000)
        found = {h.document_id * PER_DOC + h.chunk_index for h in hits}
        recalls.append(len(found & set(exact.tolist())) / K)
    warm = slice(3, None)  # first queries open files and warm caches
    return {"numpy": numpy_ms[warm], "lance": lance_ms[warm], "numpy_cpu": numpy_cpu[warm],
            "lance_cpu": lance_cpu[warm], "recall": float(np.mean(recalls)),
            "recall_min": float(np.min(recalls))}


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95))


def build_raw(store, index_type: str) -> None:
    """Build a comparison index with LanceDB's defaults (not something the product builds)."""
    from lancedb.index import IvfPq

    if index_type != "IVF_PQ":
        raise SystemExit(f"unknown comparison index {index_type}")
    store.table().create_index("vector", config=IvfPq(distance_type="cosine"), replace=True)


def run_size(n: int, queries_n: int, types: list[str], kind: str, seed: int) -> list[dict]:
    from irisrag.vectors import index as vectorindex
    from irisrag.vectors.index import IndexPolicy
    from irisrag.vectors.store import VectorStore

    rng = np.random.default_rng(seed)
    data = vectors(n + queries_n, kind, rng)
    matrix, queries = data[:n], data[n:]
    queries = queries + rng.normal(scale=0.02, size=queries.shape).astype(np.float32)
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    area_of_row = (np.arange(n) // PER_DOC) % AREAS
    folder = tempfile.mkdtemp(prefix="index-bench-")
    rows = []
    try:
        store = VectorStore(folder, "bench-512", DIM, read_consistency_seconds=None)
        began = time.perf_counter()
        fill(store, matrix)
        log(f"{n} rows written in {time.perf_counter() - began:.1f} s")

        def search(q):
            return store.search(q, QUERY_AREAS, K)

        result = measure(store, matrix, area_of_row, queries, search)
        rows.append({"rows": n, "method": "LanceDB brute force", "build": None, **result})
        log(f"{n} brute force done")
        for index_type in types:
            began = time.perf_counter()
            if index_type.startswith("IVF_PQ"):
                build_raw(store, "IVF_PQ")
            else:
                base = index_type.split(",")[0].split(" ")[0]
                store.maintain(IndexPolicy(min_rows=0, index_type=base), retrain=True)
            build = time.perf_counter() - began
            tune = vectorindex.tune_query
            if "no refine" in index_type:
                vectorindex.tune_query = lambda q: q.minimum_nprobes(vectorindex.SEARCH_MIN_NPROBES).maximum_nprobes(0)
            try:
                result = measure(store, matrix, area_of_row, queries, search)
            finally:
                vectorindex.tune_query = tune
            rows.append({"rows": n, "method": f"LanceDB + {index_type}", "build": build, **result})
            log(f"{n} {index_type} done (build {build:.1f} s, recall {result['recall']:.4f})")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def table(rows: list[dict]) -> str:
    out = ["| rows | method | median ms | p95 ms | x NumPy (median) | CPU ms (median) | recall@256 (min) "
           "| index build s |", "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for n in sorted({r["rows"] for r in rows}):
        numpy_all = [v for r in rows if r["rows"] == n for v in r["numpy"]]
        numpy_cpu = [v for r in rows if r["rows"] == n for v in r["numpy_cpu"]]
        out.append(f"| {n:,} | NumPy float32 top-256 (all phases) | {statistics.median(numpy_all):.1f} | "
                   f"{p95(numpy_all):.1f} | 1.00 | {statistics.median(numpy_cpu):.1f} | 1.000 | |")
        for r in (r for r in rows if r["rows"] == n):
            ratio = statistics.median(r["lance"]) / statistics.median(r["numpy"])
            build = "" if r["build"] is None else f"{r['build']:.1f}"
            out.append(f"| {n:,} | {r['method']} | {statistics.median(r['lance']):.1f} | {p95(r['lance']):.1f} | "
                       f"{ratio:.2f} | {statistics.median(r['lance_cpu']):.1f} | "
                       f"{r['recall']:.4f} ({r['recall_min']:.3f}) | {build} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.index_bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated row counts")
    parser.add_argument("--queries", type=int, default=100, help="queries per method (the first 3 warm up)")
    parser.add_argument("--types", default="IVF_SQ,IVF_SQ no refine",
                        help="indexes to compare: IVF_SQ, 'IVF_SQ no refine', IVF_HNSW_SQ, IVF_PQ")
    parser.add_argument("--data", choices=("clustered", "gaussian"), default="clustered")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    types = [t.strip() for t in args.types.split(",") if t.strip()]
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        rows.extend(run_size(n, args.queries, types, args.data, args.seed))
    print(f"Vector search, {DIM}-d {args.data} vectors, k={K}, area prefilter ~15 % "
          f"({len(QUERY_AREAS)} of {AREAS} areas), {args.queries - 3} timed queries\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
