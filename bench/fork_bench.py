"""What a forked work horse pays for the worker's objects, with and without ``gc.freeze`` (issue 41 item 3).

``.venv/bin/python -m bench.fork_bench [--reps N]`` (or ``bench/run.sh fork``)

This process becomes what ``worker.py`` is before it forks: the app created, the modules a
job uses imported, the USE model loaded and warm. It then forks children the way RQ forks a
work horse per job; each child runs a full garbage collection (what a job that allocates
enough triggers on its own) and embeds four short texts, then exits. The children alternate
between the two cases in the same run:

- **not frozen** (the worker before this change): the child's collection writes to the header
  of every inherited object, so the kernel copies those pages (minor page faults);
- **frozen**: ``gc.collect(); gc.freeze()`` in the parent before the fork, as ``worker.py``
  now does in its at-fork hook: inherited objects are out of the collector's reach.

Per child: CPU ms (user + system, from ``wait4``), wall ms from fork to reap, minor page
faults. Medians over the repetitions; the ratio is frozen / not frozen.
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time
import warnings

from bench.common import load_average, log, machine, table, write_report


def _worker_state():
    """Create the app and load what a job needs, as worker.py does before forking; return the embedder."""
    from irisrag import create_app
    from irisrag.embeddings import UseEmbedder

    folder = tempfile.mkdtemp(prefix="irisrag-bench-fork-")
    create_app({"SECRET_KEY": "bench", "LLM": "none", "EMBEDDER": "use", "DATABASE_URL": f"sqlite:///{folder}/bench.db",
                "LANCEDB_URI": f"{folder}/lancedb", "UPLOAD_ROOT": f"{folder}/staging"})
    import irisrag.ingest.pipeline  # noqa: F401  (the job's modules, imported by the worker's app)
    import irisrag.jobs.documents  # noqa: F401

    embedder = UseEmbedder()
    embedder.embed_documents(["warm up"])
    warnings.filterwarnings("ignore", message="lancedb fork support")  # no LanceDB here (worker.py says why)
    return embedder


def _child(embedder) -> None:
    gc.collect()
    embedder.embed_documents(["Wie wird der Dienst konfiguriert?"] * 4)
    os._exit(0)


def fork_once(embedder, frozen: bool) -> tuple[float, float, int]:
    """Fork one child; return its CPU ms, the wall ms from fork to reap, and its minor page faults."""
    if frozen:
        gc.collect()
        gc.freeze()
    else:
        gc.unfreeze()
    began = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        _child(embedder)
    _, _, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - began) * 1000
    return (usage.ru_utime + usage.ru_stime) * 1000, wall, usage.ru_minflt


def run(reps: int = 6) -> str:
    machine_text, load = machine(), load_average()
    embedder = _worker_state()
    objects = len(gc.get_objects())
    results: dict[bool, list[tuple[float, float, int]]] = {False: [], True: []}
    for rep in range(reps):
        for frozen in (False, True):
            results[frozen].append(fork_once(embedder, frozen))
        log(f"rep {rep + 1}/{reps}: {results[False][-1]} / {results[True][-1]}")
    gc.unfreeze()
    medians = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in results.items()}
    rows = [["not frozen (before)", *(f"{x:.0f}" for x in medians[False]), "1.00×"],
            ["frozen (worker.py now)", *(f"{x:.0f}" for x in medians[True]),
             f"{medians[True][0] / medians[False][0]:.2f}× CPU"]]
    section = (f"## A work horse and the worker's objects (`bench/run.sh fork`)\n\n{objects:,} objects in the "
               f"worker-like parent; {reps} children per case, alternating; load {load} at start, "
               f"{load_average()} at end. Medians.\n\n"
               + table(["case", "child CPU ms", "fork to reap ms", "minor page faults", "× not frozen"], rows))
    path = write_report("fork", "IrisRAG work horse fork", [machine_text, section],
                        {"objects": objects, "results": {str(k): v for k, v in results.items()}})
    log(f"wrote {path}")
    return section


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=6)
    print(run(parser.parse_args(argv).reps))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
