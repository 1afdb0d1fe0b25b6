"""The first question after a restart vs a warm question (issue 41, item 1).

``.venv/bin/python -m bench.first_question [--rows 100000] [--rounds 3] [--warm 10]``

An instance as in production: gunicorn with the Procfile's ``web`` line (2 workers, no
preload), ``worker.py`` beside it, the real USE embedder, a stub LLM (``bench.stream_bench``),
SQLite; a synthetic 100k-chunk table (``bench.synthetic``: 512-d clustered vectors, text from
a seeded vocabulary) with the app's indexes (full-text, IVF_SQ, area BITMAP), stored under the
USE table name so the app opens it as its own. Questions go through ``POST /api/v1/answer``
(streamed; areas 1-3); the measure is the time to the ``sources`` event (retrieval and
database; the stub's answer comes after it).

Each round restarts both processes, then:

* **no warm-up** (before): gunicorn serves ``irisrag:create_app()`` (the app without
  ``wsgi.py``'s warm-up); the first question is sent as soon as the app answers;
* **warm-up, asked at once**: ``wsgi:app``; the first question is sent as soon as the app
  answers (the person who comes during the warm-up pays what is left of it);
* **warm-up, asked when ready**: ``wsgi:app``; the question is sent once both workers logged
  their finished warm-up (what ``/readyz`` reports);

and, in the last of those processes, ``--warm`` more questions: the warm baseline. Ratios are
first question / median warm question of the same round.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.common import ROOT, load_average, log, machine, median, ms, table, write_report

ROWS = 100_000
KEY = "use-m3-512"


def build_table(folder: Path, rows: int) -> str:
    """Write the synthetic table with the app's indexes (once per folder); return its URI."""
    from bench.synthetic import Synthetic, fill
    from irisrag.vectors.index import IndexPolicy
    from irisrag.vectors.store import VectorStore

    uri = str(folder / "lancedb")
    if (folder / "built").is_file():
        return uri
    store = VectorStore(uri, KEY, 512, read_consistency_seconds=None)
    fill(store, Synthetic(rows))
    log(f"{rows} rows written; indexes: {store.maintain(IndexPolicy()).as_dict()}")
    (folder / "built").write_text("ok")
    return uri


def documents(rows: int) -> list[tuple[int, int, int]]:
    from bench.synthetic import CHUNKS_PER_DOCUMENT, Synthetic

    corpus = Synthetic(rows)
    count = -(-rows // CHUNKS_PER_DOCUMENT)
    return [(d + 1, d % corpus.areas + 1, min(CHUNKS_PER_DOCUMENT, rows - d * CHUNKS_PER_DOCUMENT))
            for d in range(count)]


def start(env: dict[str, str], app_spec: str, error_log: Path) -> tuple[subprocess.Popen, subprocess.Popen, str]:
    """Start gunicorn (the Procfile's web line serving ``app_spec``) and worker.py; return both and the URL."""
    from bench import stream_bench

    web_env = {**env, "GUNICORN_CMD_ARGS": f"--error-logfile {error_log} --capture-output"}
    original = stream_bench.PROCFILE_WEB
    stream_bench.PROCFILE_WEB = original.replace("wsgi:app", app_spec)
    worker = subprocess.Popen([sys.executable, "worker.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        proc, base = stream_bench.start_app(web_env)
    finally:
        stream_bench.PROCFILE_WEB = original
    return proc, worker, base


def stop(proc: subprocess.Popen, worker: subprocess.Popen) -> None:
    from bench.stream_bench import stop_app

    stop_app(proc)
    worker.terminate()
    try:
        worker.wait(30)
    except subprocess.TimeoutExpired:   # a work horse still busy on a loaded machine: the next round needs none
        worker.kill()
        worker.wait(30)


def wait_warm(error_log: Path, workers: int = 2, timeout: float = 300) -> float:
    """Wait until every gunicorn worker logged its finished warm-up; return the seconds waited."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        text = error_log.read_text(errors="replace") if error_log.is_file() else ""
        if text.count("event=warmup state=") >= workers:
            return time.monotonic() - started
        time.sleep(0.1)
    raise RuntimeError(f"the workers did not finish their warm-up in {timeout} s (see {error_log})")


SERVER_TIMINGS: list[tuple[str, dict]] = []   # (label, the answer's own stage timings), for the log


def sources_s(base: str, key: str, question: str, label: str = "") -> float:
    from bench.scale_memory import ask

    seen = ask(base, key, question)
    if seen.get("status") != 200 or "sources" not in seen:
        raise RuntimeError(f"question failed: {seen}")
    SERVER_TIMINGS.append((label, seen.get("server", {})))
    return seen["sources"]


VARIANTS = (("no warm-up (before)", "irisrag:create_app()", False),
            ("warm-up, asked at once", "wsgi:app", False),
            ("warm-up, asked when ready", "wsgi:app", True))


def one_round(env: dict, key: str, questions: list[str], tmp: Path, n: int, warm: int) -> dict:
    out: dict = {}
    for v, (name, spec, wait) in enumerate(VARIANTS):
        error_log = tmp / f"error-{n}-{v}.log"
        proc, worker, base = start(env, spec, error_log)
        try:
            out.setdefault("wait_s", {})[name] = wait_warm(error_log) if wait else 0.0
            out[name] = sources_s(base, key, questions[(n * 7 + v) % len(questions)], name)
            log(f"{name}: {ms(out[name])} ms; server stages {SERVER_TIMINGS[-1][1]}")
            if v == len(VARIANTS) - 1:
                out["warm"] = [sources_s(base, key, q, "warm") for q in questions[:warm]]
                log(f"warm: server stages {SERVER_TIMINGS[-1][1]}")
        finally:
            stop(proc, worker)
    log(f"round {n + 1}: " + ", ".join(f"{k} {ms(out[k])} ms" for k, *_ in VARIANTS)
        + f"; warm {ms(median(out['warm']))} ms")
    return out


def _postgres_s3(tmp: Path, rows: int, env: dict, stack) -> None:
    """Point the instance at a private PostgreSQL schema and a SeaweedFS bucket holding the table."""
    from bench.synthetic import Synthetic, fill
    from irisrag.vectors.index import IndexPolicy
    from irisrag.vectors.store import VectorStore
    from tests.conftest import _drop_schema, _postgres_url
    from tests.support.locals3 import LocalS3

    url, schema = _postgres_url()
    stack.callback(_drop_schema, schema)
    server = LocalS3(tmp / "seaweedfs").start()
    stack.callback(server.stop)
    uri = server.uri("first-question")
    store = VectorStore(uri, KEY, 512, read_consistency_seconds=None, storage_options=server.storage_options())
    fill(store, Synthetic(rows))
    log(f"{rows} rows on S3; indexes: {store.maintain(IndexPolicy()).as_dict()}")
    env.update(IRISRAG_DATABASE_URL=url, IRISRAG_LANCEDB_URI=uri,
               IRISRAG_LANCEDB_STORAGE_OPTIONS=json.dumps(server.storage_options()))


def run(rows: int = ROWS, rounds: int = 3, warm: int = 10, backend: str = "sqlite-local") -> str:
    from contextlib import ExitStack

    from bench.scale_memory import environment, seed
    from bench.stream_bench import StubLLM
    from bench.synthetic import Synthetic

    questions = [q for q, _ in Synthetic(rows).questions(40)]
    stub = StubLLM(0.02, 2000.0)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory(prefix="irisrag-first-question-") as name, ExitStack() as stack:
        tmp = Path(name)
        env = environment(tmp, "", stub.url, tmp / "access.log")
        env.pop("GUNICORN_CMD_ARGS", None)
        env["IRISRAG_REDIS_URL"] = os.environ.get("IRISRAG_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
        if backend == "postgres-s3":
            _postgres_s3(tmp, rows, env, stack)
        else:
            data = Path(os.environ.get("IRISRAG_BENCH_DATA") or ROOT / "bench" / "data") / f"first-question-{rows}"
            data.mkdir(parents=True, exist_ok=True)
            env["IRISRAG_LANCEDB_URI"] = build_table(data, rows)
        key = seed(env, documents(rows))
        results = [one_round(env, key, questions, tmp, n, warm) for n in range(rounds)]
    stub.shutdown()
    report = render(rows, results, warm, backend)
    write_report(f"first_question-{backend}", "The first question after a restart", [report],
                 {"rows": rows, "backend": backend, "rounds": results})
    return report


def render(rows: int, results: list[dict], warm: int, backend: str = "sqlite-local") -> str:
    lines = []
    warm_all = [median(r["warm"]) for r in results]
    lines.append(["warm question (baseline: median of "
                  f"{warm} in the last process of the round)", ms(median(warm_all)), "1.0×", "–"])
    for name, *_ in VARIANTS:
        firsts = [r[name] for r in results]
        ratios = [r[name] / median(r["warm"]) for r in results]
        waited = [r["wait_s"][name] for r in results]
        lines.append([name, ms(median(firsts)), f"{median(ratios):.1f}× ({min(ratios):.1f}–{max(ratios):.1f})",
                      f"{median(waited):.1f} s" if any(waited) else "–"])
    where = "PostgreSQL, LanceDB on SeaweedFS S3" if backend == "postgres-s3" else "SQLite, LanceDB local"
    return (f"## The first question after a restart ({rows:,} chunks, {where}, {len(results)} rounds)\n\n"
            f"{machine()}\n\n"
            f"Load average at the end: {load_average()}. Time to the `sources` event of `POST /api/v1/answer`, "
            "median over the rounds; ratio: the round's first question / its median warm question (range over rounds).\n\n"
            + table(["first question of a restarted web process and worker", "ms", "× warm", "waited for readiness"],
                    lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warm", type=int, default=10)
    parser.add_argument("--backend", choices=("sqlite-local", "postgres-s3"), default="sqlite-local",
                        help="postgres-s3: a private schema of the local PostgreSQL and the table on SeaweedFS")
    args = parser.parse_args(argv)
    print(run(args.rows, args.rounds, args.warm, args.backend))
    return 0


if __name__ == "__main__":
    sys.exit(main())
