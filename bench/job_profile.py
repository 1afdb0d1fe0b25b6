"""Where a short document's import job spends its time on the worker path (issue 41 item 3).

Imports N HTML pages through the service and a real ``worker.py`` (as ``import_bench``'s
worker tier) and splits the wall time with RQ's own timestamps of each job (enqueued,
started, ended) and the timings each job returns:

- ``first job's start to last job's end``: the time the jobs took together (with ``jobs.chain`` the
  one work horse's time, as the split below is not per document there);
- ``between jobs``: the previous job's end to this job's start (the horse's exit and reaping,
  RQ's bookkeeping, the next dequeue and fork; for a job run in the same horse, its claiming);
- ``in the job``: started to ended, split into the pipeline's stages (extract, chunk, embed,
  store), the upkeep pass and the rest (document row, lock, progress writes, job set-up).

``python -m bench.job_profile DIR [--embedder fake|use] [--reps N]``: with ``fake`` the embedding costs
next to nothing, so what is left is the fixed cost each document pays.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, load_average, log, write_report
from bench.import_bench import (
    _fresh_area,
    _instance,
    _wait_done,
    delete_queue,
    register_with_retry,
    start_redis,
    start_worker,
    stop_worker,
)

STAGES = ("extract", "chunk", "embed", "store")


def _jobs(app, ids: list[int]) -> list:
    """Return the finished import jobs of these documents, in start order."""
    from rq import Queue
    from rq.job import Job

    from irisrag import components

    redis = components.get().redis
    queue = Queue(app.config["QUEUE_NAME"], connection=redis)
    jobs = [Job.fetch(job_id, connection=redis) for job_id in queue.finished_job_registry.get_job_ids()]
    jobs = [job for job in jobs if isinstance(job.return_value(), dict)]
    return sorted(jobs, key=lambda job: job.started_at)


def _split(jobs: list) -> dict[str, float]:
    """Seconds summed over the documents' jobs: between one and the next, in them, and their stages.

    A job run in another's work horse (``jobs.chain``) has its own start and end; ``forks``
    counts the jobs that RQ forked a horse for.
    """
    sums = dict.fromkeys(("span", "between", "in_job", *STAGES, "upkeep", "rest_in_job", "forks"), 0.0)
    previous_end = first_start = None
    for job in jobs:
        result = job.return_value()
        if "document_id" not in result:
            continue  # the worker's sweep
        if previous_end is not None:
            sums["between"] += (job.started_at - previous_end).total_seconds()
        previous_end, first_start = job.ended_at, first_start or job.started_at
        sums["span"] = max(sums["span"], (job.ended_at - first_start).total_seconds())
        sums["in_job"] += (job.ended_at - job.started_at).total_seconds()
        sums["forks"] += "chained_in" not in result
        timings, upkeep = result.get("timings") or {}, result.get("maintenance") or {}
        for stage in STAGES:
            sums[stage] += float(timings.get(stage, 0.0))
        sums["upkeep"] += float(upkeep.get("seconds", 0.0) or 0.0)
    sums["rest_in_job"] = sums["in_job"] - sum(sums[key] for key in (*STAGES, "upkeep"))
    return sums


def _import_pages(inst, pages: list[Path], rep: int) -> tuple[float, dict[str, float]]:
    from irisrag.extensions import db
    from irisrag.services.documents.documents import import_local_file

    staging = inst.tmp / "src" / f"r{rep}"
    staging.mkdir(parents=True)
    copies = [Path(shutil.copyfile(page, staging / page.name)) for page in pages]
    area_id = _fresh_area(inst.app, f"profile-r{rep}")
    with inst.app.app_context(), db.connection_context():
        before = set(_ids_done(inst.app))
        started = time.perf_counter()
        ids = [register_with_retry(import_local_file, area_id, path, []) for path in copies]
        _wait_done(ids, started, inst.logfile)
        wall = time.perf_counter() - started
        jobs = [job for job in _jobs(inst.app, ids) if job.id not in before]
    return wall, _split(jobs)


def _ids_done(app) -> list[str]:
    from rq import Queue

    from irisrag import components

    return Queue(app.config["QUEUE_NAME"], connection=components.get().redis).finished_job_registry.get_job_ids()


def _table(runs: list[tuple[float, dict[str, float]]], pages: int, embedder: str) -> str:
    lines = [f"{pages} HTML pages, one document each, embedder `{embedder}`; ms per document (each repetition's "
             f"sum over its jobs / {pages}; repetitions separated by /).", "",
             "| work horses forked | wall | first job's start to last job's end | between jobs (exit, reap, dequeue, fork; or claiming) | in the jobs | extract | chunk | embed | "
             "store | upkeep | rest in the jobs (rows, lock, progress, set-up, claiming) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    cells = [" / ".join(f"{sums['forks']:.0f}" for _, sums in runs),
             " / ".join(f"{wall / pages * 1000:.0f}" for wall, _ in runs)]
    for key in ("span", "between", "in_job", *STAGES, "upkeep", "rest_in_job"):
        cells.append(" / ".join(f"{sums[key] / pages * 1000:.0f}" for _, sums in runs))
    lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(html_dir: str, reps: int = 3, embedder: str = "fake", roots: tuple[str, ...] = ()) -> str:
    """Profile the import jobs of every page in ``html_dir`` with the worker of each checkout in ``roots``
    (default: this one), started in turn for each repetition; return the Markdown tables."""
    pages = sorted(Path(html_dir).glob("*.html"))
    roots = roots or (str(ROOT),)
    tmp = Path(tempfile.mkdtemp(prefix="irisrag-bench-jobs-"))
    redis_url, redis_proc = start_redis()
    load = load_average()
    inst = _instance(tmp, redis_url, embedder)
    runs: dict[str, list] = {root: [] for root in roots}
    try:
        for rep in range(reps):
            for index, root in enumerate(roots):
                inst.worker, _ = start_worker(inst.config, inst.logfile, Path(root))
                runs[root].append(_import_pages(inst, pages, rep * len(roots) + index))
                stop_worker(inst.worker)
                inst.worker = None
    finally:
        if inst.worker is not None:
            stop_worker(inst.worker)
        delete_queue(redis_url, inst.config["QUEUE_NAME"])
        if redis_proc is not None:
            redis_proc.terminate()
        shutil.rmtree(tmp, ignore_errors=True)
    text = f"load at start {load}, at end {load_average()}.\n\n" + "\n\n".join(
        f"Worker of `{root}`:\n\n" + _table(found, len(pages), embedder) for root, found in runs.items())
    log(f"wrote {write_report('jobs', 'Import job profile', ['## Import job profile', text], {})}")
    return text

if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.job_profile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("html_dir", help="a folder of .html pages, each imported as one document")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--embedder", choices=("fake", "use"), default="fake")
    parser.add_argument("--roots", default="", help="comma-separated checkouts whose worker.py to compare "
                        "(e.g. the code before a change, then this one); default this checkout")
    args = parser.parse_args()
    print(run(args.html_dir, args.reps, args.embedder, tuple(r for r in args.roots.split(",") if r)))
