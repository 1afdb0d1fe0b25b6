"""The Markdown report of the context benchmark (``bench.context_bench``): tables and their captions."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.common import med_p95, median, ms, percentile, table, write_report

NAN = float("nan")
MODES = (("ctx_embed", "vector, with embedding"), ("ctx_vector", "vector, no embedding (vector passed in)"),
         ("ctx_hybrid_embed", "hybrid, with embedding"), ("ctx_hybrid", "hybrid, no embedding"))


@dataclass(frozen=True)
class Facts:
    """What the report says about the run as a whole."""

    quick: bool
    n_real: int
    n_docs: int
    embed_rate: float | None
    n_questions: int
    consistency: float
    machine_text: str


def write_cell(b: dict) -> str:
    if b.get("append_rows"):
        per_commit = b.get("replace_commit_median_s")
        return (f"{b['write_s']:.1f} ({b['append_rows']:,} rows appended in {b['append_commits']} commits, "
                f"{b['append_s']:.1f} s; last {b['replace_rows']:,} through `replace_documents` in "
                f"{b['replace_commits']} commits, {b['replace_s']:.1f} s, median {per_commit:.2f} s a commit)")
    return f"{b['write_s']:.1f} ({b['commits']} commits)"


def ratio(value: float, base: float) -> str:
    return "–" if value != value or base != base or not base else f"{value / base:.1f}×"


def leg_rows(label: str, res: dict) -> list[list[str]]:
    base = median(res["numpy"]["wall"])
    rows = [[label, "NumPy full scan + area mask (baseline)", ms(base), ms(percentile(res["numpy"]["wall"], 95)),
             "1.0×"]]

    def add(name: str, values: list[float]) -> None:
        if values:
            rows.append([label, name, ms(median(values)), ms(percentile(values, 95)), ratio(median(values), base)])

    add("vector leg: `VectorStore.search`", res["store_search"]["wall"])
    add("full-text leg: `VectorStore.search_fulltext` (with the query vector, as hybrid calls it)",
        res["store_fulltext"]["wall"])
    hybrid = res["ctx_hybrid"]
    add("hybrid stage `search` (vector leg)", [r["search"] for r in hybrid])
    add("hybrid stage `fulltext` (full-text leg)", [r["fulltext"] for r in hybrid])
    add("hybrid stage `fuse`", [r["fuse"] for r in hybrid])
    add("hybrid stages `lexical` + `select` + `sources`", [r["lexical"] + r["select"] + r["sources"] for r in hybrid])
    add("**hybrid `build_context` total** (vector passed in)", [r["total"] for r in hybrid])
    add("hybrid `build_context` total with the embedding call", [r["total"] for r in res["ctx_hybrid_embed"]])
    add("vector-mode `build_context` total (vector passed in)", [r["total"] for r in res["ctx_vector"]])
    return rows


def build_rows(builds: list[dict], results: dict) -> list[list[str]]:
    rows = []
    for b in builds:
        rss, hwm = results.get(b["label"], {}).get("rss_mb", (NAN, NAN))
        index = "–" if b["index_s"] is None else f"{b['index_s']:.1f} ({b.get('index_shape', '?')})"
        rows.append([b["label"], f"{b['rows']:,}", f"{b['real']:,}", f"{b['rows'] - b['real']:,}",
                     f"{b['share']:.1%}", write_cell(b), f"{b['compact_s']:.1f} ({b['fragments']} fragments after)",
                     f"{b['fts_s']:.1f}", index, f"{rss:,.0f} / {hwm:,.0f}", b["load"], b.get("note") or "–"])
    return rows


def _stage_cells(key: str, runs: list[dict], stages: tuple[str, ...]) -> list[str]:
    cells = []
    for stage in stages:
        values = [r.get(stage, 0.0) for r in runs]
        if stage in ("fulltext", "fuse") and not any(values):
            cells.append("–")
        elif stage == "embed" and key not in ("ctx_embed", "ctx_hybrid_embed"):
            cells.append(f"({med_p95(values)})")
        else:
            cells.append(med_p95(values))
    return cells


def stage_rows(results: dict, stages: tuple[str, ...]) -> list[list[str]]:
    return [[label, name, *_stage_cells(key, res[key], stages)]
            for label, res in results.items() for key, name in MODES if res[key]]


def _search_rows_of(label: str, res: dict, consistency: float) -> list[list[str]]:
    base = median(res["numpy"]["wall"])
    entries = (("numpy", "NumPy full scan + area mask (baseline)"),
               ("numpy_subset", "NumPy over the pre-filtered rows only"),
               ("lance_raw", "LanceDB query alone (`to_arrow`, 3 columns)"),
               ("store_search", f"`VectorStore.search` (app: consistency {consistency:g} s)"),
               ("store_search_consistency0", "`VectorStore.search`, consistency 0 s"))
    rows = [[label, name, ms(median(res[key]["wall"])), ms(percentile(res[key]["wall"], 95)),
             ratio(median(res[key]["wall"]), base), ms(median(res[key]["cpu"]))]
            for key, name in entries if res[key]["wall"]]
    ctx_search = [r["search"] for r in res["ctx_vector"]]
    rows.append([label, "`build_context` search stage (no-embedding run)", ms(median(ctx_search)),
                 ms(percentile(ctx_search, 95)), ratio(median(ctx_search), base), "–"])
    return rows


def search_rows(results: dict, consistency: float) -> list[list[str]]:
    return [row for label, res in results.items() for row in _search_rows_of(label, res, consistency)]


def overlap_rows(results: dict) -> list[list[str]]:
    return [[label, str(len(res["overlap"])), f"{np.mean(res['overlap']):.3f}", f"{min(res['overlap']):.3f}"]
            for label, res in results.items()]


def _intro(facts: Facts, shape: dict) -> str:
    rate = "taken from the cache" if facts.embed_rate is None else f"{facts.embed_rate:.0f} chunks/s"
    return (
        "## Context building (`build_context`, k = 256 candidates)\n\n"
        f"{'Quick run' if facts.quick else 'Full run'}: {facts.n_questions} SciFact questions per configuration after "
        f"{shape['warmup']} warm-up questions (exact phases of cached tables: {shape['exact_large']}, fewer variants), "
        f"every variant run for every question in rotating order. {facts.n_real:,} real SciFact chunks "
        f"({facts.n_docs:,} documents) embedded with USE ({rate}); larger tables repeat them as new documents with "
        f"noisy vectors (cosine ~{shape['noise']} to the source). {shape['areas']} areas, the questions search "
        f"{shape['selected']} of them. Milliseconds, "
        "`median / p95`. `embed` in parentheses: the no-embedding runs only convert the passed vector. Modes: "
        "`vector` (the stages of the original: embed, search, lexical, select, sources) and `hybrid` (the app's "
        "default RETRIEVAL_MODE: also BM25 full-text candidates and their fusion). Tables above "
        f"{shape['append_above']:,} rows append their bulk and write the last {shape['replace_tail']:,} rows through "
        f"`replace_documents`; tables of {shape['cache_from']:,} rows or more are cached in bench/data/tables/ with "
        "both indexes (build times from the build), and their exact phase bypasses the index. Bench RSS: this "
        "process's VmRSS / VmHWM in MiB after the phase (NumPy matrix included).\n\n")


def main_sections(facts: Facts, shape: dict, builds: list[dict], results: dict) -> list[str]:
    """The machine, the build and stage tables, the legs and the vector search against NumPy."""
    return [
        "## Machine\n\n" + facts.machine_text,
        _intro(facts, shape)
        + table(["table", "rows", "real vectors", "synthetic", "rows in searched areas", "write s", "compact s",
                 "full-text index s", "vector index s", "bench RSS / peak MiB", "load avg", "note"],
                build_rows(builds, results))
        + "\n\n" + table(["table", "variant", *shape["stages"]], stage_rows(results, shape["stages"])),
        "### Retrieval legs against the NumPy baseline (same vectors, same process, same questions)\n\n"
        "`×` = median over the median of the NumPy full scan with the area mask measured in the same phase. The "
        "legs alone are separate calls; the hybrid stages come from the `hybrid, no embedding` runs.\n\n"
        + table(["table", "leg", "median ms", "p95 ms", "× NumPy"],
                [row for label, res in results.items() for row in leg_rows(label, res)]),
        "### Vector search against the NumPy baseline\n\n"
        "NumPy: float32 matrix (rows normalised), `np.isin` area mask, matvec, `argpartition` + sort of the top 256 "
        "— the memory-bandwidth baseline. LanceDB: brute-force (no vector index) cosine search with the area "
        "prefilter, or the app's vector index with its probe/refine settings where built. `× NumPy` compares "
        "medians; CPU = process CPU time per call (LanceDB runs on several threads).\n\n"
        + table(["table", "method", "median ms", "p95 ms", "× NumPy", "CPU ms (median)"],
                search_rows(results, facts.consistency))
        + "\n\nRecall: share of NumPy's exact top 256 that `VectorStore.search` also returned (1.000 for "
        "brute force; the index trades some of it for speed):\n\n"
        + table(["table", "questions", "mean recall@256", "min"], overlap_rows(results)),
    ]


def _hybrid_row(name: str, v: dict, base: float) -> list[str]:
    runs = v["runs"]
    totals = [r["total"] for r in runs]
    return [name, med_p95(totals), ratio(median(totals), base), med_p95([r["search"] for r in runs]),
            med_p95([r["fulltext"] for r in runs]), med_p95([r["fuse"] for r in runs]),
            med_p95([r["lexical"] + r["select"] + r["sources"] for r in runs]),
            f"{np.mean(v['recall']):.3f} (min {min(v['recall']):.3f})"]


def _diagnosis_tables(diag: dict, base: float) -> tuple[list, list, list]:
    vector = [[name, ms(median(v["wall"])), ms(percentile(v["wall"], 95)), ratio(median(v["wall"]), base),
               f"{np.mean(v['recall']):.3f}", f"{min(v['recall']):.3f}"] for name, v in diag["vector"].items()]
    text = [[name, ms(median(v["wall"])), ms(percentile(v["wall"], 95)), ratio(median(v["wall"]), base),
             f"{median(v['rows']):.0f}"] for name, v in diag["fulltext"].items()]
    hybrid = [_hybrid_row(name, v, base) for name, v in diag["hybrid"].items()]
    return vector, text, hybrid


def diagnosis_section(label: str, diag: dict) -> str:
    """Where the time goes on one indexed cached table: vector settings, full-text parts, hybrid fixes."""
    base = median(diag["numpy"])
    vector_rows, text_rows, hybrid_rows = _diagnosis_tables(diag, base)
    return (
        f"### Where the time goes: {label}\n\n"
        f"{len(diag['numpy'])} questions, all variants interleaved; NumPy full scan median {ms(base)} ms in the "
        "same loop. Vector leg = `VectorStore.search` with other query settings (the index as the app built "
        "it); recall@256 against NumPy's exact top 256.\n\n"
        + table(["vector leg settings", "median ms", "p95 ms", "× NumPy", "mean recall@256", "min"], vector_rows)
        + "\n\nFull-text leg and its parts (raw LanceDB queries unless noted; rows = median rows returned):\n\n"
        + table(["full-text query", "median ms", "p95 ms", "× NumPy", "rows"], text_rows)
        + "\n\nHybrid `build_context` (no embedding) end to end with the fixes, same questions, interleaved. "
        "`nprobes capped`: `maximum_nprobes` = `minimum_nprobes` instead of unbounded (`maximum_nprobes(0)`). "
        "`legs concurrently`: the full-text leg runs in a thread while the vector leg runs (`ConcurrentLegs`; "
        "then `search` is the vector leg and `fulltext` only the wait after it). `BITMAP`: a copy of the table "
        f"with a BITMAP scalar index on `area_id` (built in {diag.get('bitmap_s', NAN):.2f} s), which "
        "turns the area prefilter from a scan of the column into an index lookup. Recall@256 of the variant's "
        "vector leg (an untimed extra call):\n\n"
        + table(["hybrid variant", "total median / p95", "× NumPy", "search", "fulltext", "fuse",
                 "lexical + select + sources", "vector recall@256"], hybrid_rows))


def report(facts: Facts, shape: dict, builds: list[dict], results: dict, diagnoses: dict) -> tuple[str, object]:
    """Write the report to bench/out/; return its text (without the machine section) and its path."""
    sections = main_sections(facts, shape, builds, results)
    sections += [diagnosis_section(label, diag) for label, diag in diagnoses.items()]
    raw = {"quick": facts.quick, "builds": builds, "results": results, "diagnoses": diagnoses}
    path = write_report("context", "IrisRAG context building", sections, raw)
    return "\n\n".join(sections[1:]), path
