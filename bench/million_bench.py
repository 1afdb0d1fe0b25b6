"""Hybrid context at 1M chunks per vector index layout (issue 41, item 4).

``.venv/bin/python -m bench.million_bench [--questions 60] [--variants app,ivf_sq_1000,...]``

The table is ``bench.context_bench``'s cached 1M table (SciFact chunks with USE vectors and
noisy copies, 20 areas, questions search 3 = 15 % of the rows; built once, ~10 min, into
``$IRISRAG_BENCH_DATA/tables``). Each variant is a copy of it (``$IRISRAG_BENCH_DATA/million``,
kept for the next run) with another vector index, built with the parameters LanceDB documents
for this size; the search parameters (probes, refine) are set per variant. Per question,
interleaved over the variants: NumPy's exact top 256 over the area-masked matrix (the
baseline; also the recall reference), the vector leg ``VectorStore.search`` and hybrid
``build_context`` with the question vector passed in (embedding excluded; the term bridge's
word vectors are USE's, as in the app). Reported: median and p95 ms, × NumPy, recall@256
(mean, min), index size on disk, build seconds, and the process's RSS growth.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from bench import context_bench
from bench.common import DATA, load_average, log, machine, median, ms, percentile, table, write_report

SIZE = 1_000_000


@dataclass(frozen=True)
class Variant:
    name: str
    describe: str
    config: Callable | None            # None: keep the cached table's index (the app's)
    tune: Callable                     # query -> query (probes, refine)
    folder: str = ""                   # the copy with this index (variants of one index share it)


def _ivf_sq(partitions: int):
    from lancedb.index import IvfSq

    return lambda: IvfSq(distance_type="cosine", num_partitions=partitions)


def _ivf_pq(partitions: int, sub_vectors: int):
    from lancedb.index import IvfPq

    return lambda: IvfPq(distance_type="cosine", num_partitions=partitions, num_sub_vectors=sub_vectors)


def _hnsw_sq(partitions: int):
    from lancedb.index import IvfHnswSq

    return lambda: IvfHnswSq(distance_type="cosine", num_partitions=partitions, m=20, ef_construction=300)


def _tune(minimum: int, maximum: int, refine: int | None, ef: int | None = None):
    def apply(query):
        query = query.minimum_nprobes(minimum).maximum_nprobes(maximum)
        if ef:
            query = query.ef(ef)
        return query if refine is None else query.refine_factor(refine)
    return apply


def variants() -> list[Variant]:
    from irisrag.vectors import index as upkeep

    return [
        Variant("app", f"app today: IVF_SQ, 122 partitions (LanceDB's default at 1M), nprobes "
                f"{upkeep.SEARCH_MIN_NPROBES}..{upkeep.SEARCH_MAX_NPROBES}, refine {upkeep.SEARCH_REFINE_FACTOR}",
                None, upkeep.tune_query),
        Variant("app_unbounded", "IVF_SQ, 122 partitions, nprobes 20..unbounded, refine 2 (the app until 2026-12-07)",
                None, _tune(20, 0, 2)),
        Variant("ivf_sq_1000", "IVF_SQ, 1,000 partitions (≈ √rows), nprobes 20..unbounded, refine 2",
                _ivf_sq(1000), _tune(20, 0, 2)),
        Variant("ivf_sq_1000_p60", "IVF_SQ, 1,000 partitions, nprobes 60..unbounded, refine 2",
                _ivf_sq(1000), _tune(60, 0, 2), "ivf_sq_1000"),
        Variant("ivf_pq_1000", "IVF_PQ, 1,000 partitions, 64 sub-vectors, nprobes 20..unbounded, refine 4",
                _ivf_pq(1000, 64), _tune(20, 0, 4)),
        Variant("hnsw_sq_256", "IVF_HNSW_SQ, 256 partitions, m 20, ef_construction 300, nprobes 20..unbounded, "
                "ef 512, refine 2", _hnsw_sq(256), _tune(20, 0, 2, ef=512)),
    ]


def _copy_with_index(source: str, variant: Variant, embedder) -> tuple[str, dict]:
    """Copy the cached table and build the variant's vector index there (kept for the next run)."""
    from irisrag.vectors.store import VectorStore

    folder = DATA / "million" / (variant.folder or variant.name)
    facts = folder / "build.json"
    if facts.is_file():
        return str(folder / "lancedb"), json.loads(facts.read_text())
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    log(f"{variant.name}: copying the 1M table")
    subprocess.run(["cp", "-r", source, str(folder / "lancedb")], check=True)
    store = VectorStore(str(folder / "lancedb"), embedder.key, embedder.dim, read_consistency_seconds=None)
    started = time.perf_counter()
    store.table().create_index("vector", config=variant.config(), replace=True)
    build = {"index_s": round(time.perf_counter() - started, 1)}
    log(f"{variant.name}: index built in {build['index_s']} s")
    facts.write_text(json.dumps(build))
    return str(folder / "lancedb"), build


def _index_mib(uri: str) -> tuple[float, float]:
    """MiB on disk of the vector index (the newest IVF index folder) and of the whole table folder."""
    root = Path(uri)
    total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    indices = [d for d in (root.glob("*.lance/_indices/*")) if d.is_dir()]
    sizes = {d: sum(p.stat().st_size for p in d.rglob("*") if p.is_file()) for d in indices}
    vector = max(sizes.values()) if sizes else 0  # the vector index is the table's largest index
    return vector / 2**20, total / 2**20


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(stores: dict, tunes: dict, arrays, questions, qvecs, embedder, settings) -> dict:
    from bench.s3_bench import words_of
    from irisrag.rag.retrieve import build_context
    from irisrag.vectors import index as upkeep

    matrix, row_areas, keys = arrays
    selected = np.array(context_bench.SELECTED)
    out = {name: {"vector": [], "hybrid": [], "recall": []} for name in stores}
    out["numpy"] = []
    words = words_of(embedder)
    saved = upkeep.tune_query
    try:
        for n, (question, vector) in enumerate(zip(questions, qvecs, strict=True)):
            started = time.perf_counter()
            exact = set(keys[context_bench.numpy_topk(matrix, row_areas, selected, vector, context_bench.K)].tolist())
            numpy_s = time.perf_counter() - started
            order = list(stores) if n % 2 == 0 else list(reversed(stores))
            for name in order:
                upkeep.tune_query = tunes[name]
                started = time.perf_counter()
                hits = stores[name].search(vector, context_bench.SELECTED, context_bench.K)
                vector_s = time.perf_counter() - started
                started = time.perf_counter()
                build_context(question, context_bench.SELECTED, embedder=embedder, store=stores[name],
                              settings=settings, query_vector=vector, mode="hybrid", words=words)
                hybrid_s = time.perf_counter() - started
                if n >= context_bench.WARMUP:
                    out[name]["vector"].append(vector_s)
                    out[name]["hybrid"].append(hybrid_s)
                    out[name]["recall"].append(len(context_bench._key_set(hits) & exact) / len(exact))
            if n >= context_bench.WARMUP:
                out["numpy"].append(numpy_s)
            if n % 10 == 0:
                log(f"question {n + 1}/{len(questions)}")
    finally:
        upkeep.tune_query = saved
    return out


def run(n_questions: int = 60, names: list[str] | None = None) -> str:
    from irisrag.config import DEFAULTS
    from irisrag.embeddings import UseEmbedder
    from irisrag.rag.retrieve import RetrievalSettings
    from irisrag.vectors.store import VectorStore

    embedder = UseEmbedder()
    docs, vectors, _ = context_bench.inputs(False, SIZE, embedder)
    source, build, *_ = context_bench.cached_table(SIZE, docs, vectors, embedder, keep=False)
    chosen = [v for v in variants() if names is None or v.name in names]
    uris, builds = {}, {}
    for v in chosen:
        uris[v.name], builds[v.name] = (source, {"index_s": build.get("index_s")}) if v.config is None \
            else _copy_with_index(source, v, embedder)
    log("generating the NumPy matrix (the baseline)")
    arrays = context_bench._generate(docs, vectors, SIZE, keep=True)
    questions = context_bench.load_questions(n_questions + context_bench.WARMUP)
    qvecs = [embedder.embed_query(q) for q in questions]
    settings = replace(RetrievalSettings.from_config(DEFAULTS), mode="hybrid")
    rss_before = _rss_mib()
    stores = {v.name: VectorStore(uris[v.name], embedder.key, embedder.dim, read_consistency_seconds=2.0)
              for v in chosen}
    result = measure(stores, {v.name: v.tune for v in chosen}, arrays, questions, qvecs, embedder, settings)
    result["rss_growth_mib"] = _rss_mib() - rss_before
    report = render(chosen, uris, builds, result)
    write_report("million", "Hybrid context at 1M chunks per index layout", [report],
                 {"builds": builds, "results": result})
    return report


def render(chosen: list[Variant], uris: dict, builds: dict, result: dict) -> str:
    base = median(result["numpy"])
    rows = [["NumPy exact top 256, area mask (baseline)", ms(base), ms(percentile(result["numpy"], 95)), "1.0×",
             "–", "–", "–", "–", "–"]]
    for v in chosen:
        r = result[v.name]
        index_mib, table_mib = _index_mib(uris[v.name])
        rows.append([v.describe, ms(median(r["hybrid"])), ms(percentile(r["hybrid"], 95)),
                     f"{median(r['hybrid']) / base:.2f}×", ms(median(r["vector"])),
                     f"{np.mean(r['recall']):.3f} ({min(r['recall']):.3f})",
                     f"{index_mib:,.0f}", f"{table_mib:,.0f}", f"{builds[v.name].get('index_s') or '–'}"])
    return (f"## Hybrid context at 1M chunks per vector index layout\n\n{machine()}\n\n"
            f"Load average at the end: {load_average()}. {len(result['numpy'])} questions (after "
            f"{context_bench.WARMUP} warm-up), interleaved; hybrid `build_context` with the question vector "
            "passed in (embedding excluded); ms. Recall@256 of the vector leg against NumPy's exact top 256. "
            f"RSS growth of the benchmark process over the questions (all variants' caches): "
            f"{result['rss_growth_mib']:,.0f} MiB.\n\n"
            + table(["index and search parameters", "hybrid median", "hybrid p95", "× NumPy", "vector leg median",
                     "recall@256 mean (min)", "vector index MiB", "table MiB", "index build s"], rows) + "\n")


def probe_caps(n_questions: int = 20, caps: tuple[int, ...] = (20, 40, 60, 80, 160, 0)) -> str:
    """The vector leg per probe cap (``maximum_nprobes``; 0 = until k rows) on each built copy: time and recall."""
    from irisrag.embeddings import UseEmbedder
    from irisrag.vectors.store import VectorStore

    embedder = UseEmbedder()
    docs, vectors, _ = context_bench.inputs(False, SIZE, embedder)
    source, *_ = context_bench.cached_table(SIZE, docs, vectors, embedder, keep=False)
    questions = context_bench.load_questions(n_questions + 3)
    qvecs = [embedder.embed_query(q) for q in questions]
    where = f"area_id IN ({', '.join(map(str, context_bench.SELECTED))})"
    copies = {"app (IVF_SQ, 122 partitions)": source}
    copies.update({f"{folder.name}": str(folder / "lancedb") for folder in sorted((DATA / "million").glob("*"))
                   if (folder / "build.json").is_file()})
    lines = []
    for name, uri in copies.items():
        table_ = VectorStore(uri, embedder.key, embedder.dim, read_consistency_seconds=2.0).table()

        def search(vector, cap, exact=False, table_=table_):
            query = table_.search(vector, vector_column_name="vector").distance_type("cosine").where(where, prefilter=True)
            query = query.bypass_vector_index() if exact else query.minimum_nprobes(20).maximum_nprobes(cap).refine_factor(2)
            found = query.select(["document_id", "chunk_index", "_distance"]).limit(context_bench.K).to_arrow()
            return set(zip(found.column("document_id").to_pylist(), found.column("chunk_index").to_pylist(),
                           strict=True))

        exact = [search(v, 0, exact=True) for v in qvecs[3:]]
        for cap in caps:
            for v in qvecs[:3]:
                search(v, cap)
            wall, cpu, recall = [], [], []
            for v, truth in zip(qvecs[3:], exact, strict=True):
                c, w = time.process_time(), time.perf_counter()
                got = search(v, cap)
                wall.append(time.perf_counter() - w)
                cpu.append(time.process_time() - c)
                recall.append(len(got & truth) / len(truth))
            lines.append([name, str(cap or "unbounded (app)"), ms(median(wall)), ms(percentile(wall, 95)),
                          ms(median(cpu)), f"{np.mean(recall):.3f} ({min(recall):.3f})"])
            log(" | ".join(lines[-1]))
    return ("### The vector leg per probe cap at 1M (refine 2, area filter 15 %)\n\n"
            + table(["index", "maximum probes", "median ms", "p95 ms", "CPU ms", "recall@256 mean (min)"], lines)
            + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--variants", help="comma-separated names: " + ", ".join(v.name for v in variants()))
    parser.add_argument("--probes", action="store_true", help="the vector leg per probe cap on the built copies")
    args = parser.parse_args(argv)
    if args.probes:
        print(probe_caps(args.questions))
        return 0
    print(run(args.questions, args.variants.split(",") if args.variants else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
