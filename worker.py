"""RQ worker inside the app context, with the scheduler (retries with intervals need it)."""
from __future__ import annotations

import gc
import logging
import os
import sys
import time
import warnings

from redis.exceptions import RedisError
from rq import Worker

from irisrag import components, create_app
from irisrag.config import ConfigError
from irisrag.jobs.maintenance import schedule_maintenance
from irisrag.jobs.sweep import schedule_sweep, sweep_now
from irisrag.vectors import store as vectorstore

log = logging.getLogger("irisrag.worker")
# RQ's own upkeep (registry cleanup, taking over the scheduler of a worker that was killed) every
# 30 s instead of RQ's 10 minutes: a replacement worker schedules within about a minute.
RQ_MAINTENANCE_SECONDS = 30


def wait_for_redis(redis, seconds: float | None = 30.0) -> None:
    """Wait until Redis answers (it may start alongside the worker); ``None`` waits for ever."""
    deadline = None if seconds is None else time.monotonic() + seconds
    pause, next_log = 0.5, 0.0
    while True:
        try:
            redis.ping()
            return
        except RedisError as exc:
            if deadline is not None and time.monotonic() > deadline:
                raise SystemExit(f"Redis is not reachable: {exc}") from exc
            if time.monotonic() >= next_log:
                log.warning("worker_waiting_for_redis error=%s", exc)
                next_log = time.monotonic() + 30
            time.sleep(pause)
            pause = min(pause * 1.5, 5.0)


def work_until_stopped(make_worker, redis) -> None:
    """Run workers; when Redis goes away mid-job (RQ then stops its worker), wait for it and start again.

    A name still registered by a worker that was killed starts the next one (``_names``) instead
    of ending the process: a machine restarted after a crash works at once, not after RQ's TTL.
    """
    while True:
        worker = make_worker()
        try:
            worker.work(with_scheduler=True)
            return  # stopped on purpose (SIGTERM, SIGINT)
        except RedisError as exc:
            log.warning("worker_lost_redis name=%s error=%s; waiting for it to come back", worker.name, exc)
            wait_for_redis(redis, seconds=None)
            log.info("worker_redis_back; starting a new worker")
        except ValueError as exc:  # RQ: "There exists an active worker named ... already"
            if "active worker named" not in str(exc):
                raise
            log.warning("worker_name_taken name=%s: still registered by a process that ended without signing off "
                        "(killed, or its machine lost) until RQ's worker TTL passes; starting under the next name",
                        worker.name)


FORK_WARNING = "lancedb fork support is experimental"
_fork_checked = {"warned": False}


def quiet_fork_warning() -> None:
    """Silence LanceDB's warning in every forked work horse, and check before each fork that the reason holds.

    Why forking is safe here: LanceDB's Rust runtime (its ``lancedb-tokio-w`` threads) starts
    with the first connection, and this process never opens one: the jobs, which do, run in the
    forked horses. So no LanceDB operation can be in flight at fork time, which is what the
    warning is about; the idle Python loop thread that importing LanceDB starts is restarted by
    LanceDB in the child. tests/integration/test_worker_fork.py shows the worker process has no
    runtime threads after jobs ran, and that no warning reaches the log.
    """
    warnings.filterwarnings("ignore", message=FORK_WARNING, category=RuntimeWarning)
    os.register_at_fork(before=_check_before_fork)


def _check_before_fork() -> None:
    if vectorstore.opened_here() and not _fork_checked["warned"]:
        _fork_checked["warned"] = True
        log.error("lancedb_opened_before_fork pid=%s: the worker opened LanceDB, so forking horses is no longer "
                  "known to be safe; find the call and move it into the job", os.getpid())


def load_compound_splitter(config) -> None:
    """Load the German compound word list that every chunk's search text is split with, once, here.

    Otherwise each forked horse loads it again when it writes its first chunk (0.7 s of CPU
    for the 25 MB list, more wall time on a busy machine): the largest per-job cost of an
    import, paid by every short document (HTML pages) as much as by a long one.
    """
    from irisrag.vectors.searchtext import SearchText

    began = time.perf_counter()
    found = SearchText.from_config(config).splitter() is not None
    log.info("compound_splitter_loaded found=%s seconds=%.2f", found, time.perf_counter() - began)


def freeze_before_fork() -> None:
    """Before every fork, move the worker's objects out of the garbage collector's reach (``gc.freeze``).

    A work horse inherits the worker's memory copy-on-write, but its first full collection
    writes to the header of every inherited object (the model's tokenizer, the app, the
    libraries: about 200,000 objects), so the kernel copies hundreds of megabytes of pages,
    in every job: 0.3 s of CPU and 15,000 page faults per job measured here, against 0.1 s and
    1,600 with the objects frozen (bench/README.md, "fork"). That cost is paid per job, so
    it weighs most on imports of many short documents (HTML pages). The worker collects its
    own garbage first, so nothing unreachable is frozen; the horses collect what they make.
    """
    os.register_at_fork(before=_collect_and_freeze)


def _collect_and_freeze() -> None:
    gc.collect()
    gc.freeze()


def main(argv: list[str]) -> None:
    """Run a worker on the configured queue until stopped (a refused setting ends it with the reason)."""
    try:
        app = create_app()
    except ConfigError as exc:
        raise SystemExit(f"IrisRAG does not start: {exc}") from exc
    with app.app_context():
        comps = components.get()
        wait_for_redis(comps.redis)
        # Load the embedding model once here: every job's forked work horse inherits it
        # instead of loading it again (about 4 s for the built-in model on 2 cores).
        # LanceDB is not opened in this process, so nothing of it is mid-operation at fork
        # (quiet_fork_warning says why, and checks it before every fork).
        # An embedder that is not fork-safe (e5: OpenMP) says so and is loaded by each horse.
        try:
            if getattr(comps.embedder, "warm_before_fork", True):
                comps.embedder.embed_documents(["warm-up"])
        except Exception as exc:  # a remote embedder that is down must not stop the worker
            log.warning("embedder_warmup_failed error=%s", exc)
        load_compound_splitter(app.config)
        quiet_fork_warning()
        freeze_before_fork()
        names = _names(argv[1] if len(argv) > 1 else None)
        # Index upkeep every MAINTENANCE_INTERVAL s: one chain of jobs however many workers start.
        maintenance = schedule_maintenance()
        log.info("worker_start queue=%s redis=%s maintenance=%s", comps.queue.name, app.config["REDIS_URL"],
                 maintenance or "off")
        work_until_stopped(lambda: _worker(comps, next(names)), comps.redis)


def _worker(comps, name: str | None) -> Worker:
    """Return a worker that sweeps first: a killed predecessor's imports are failed before the next import runs.

    Called at start and again after Redis came back (emptied, perhaps): the sweep's chain starts anew.
    """
    sweep_now()
    schedule_sweep()
    return Worker([comps.queue], connection=comps.redis, name=name, maintenance_interval=RQ_MAINTENANCE_SECONDS)


def _names(base: str | None):
    """Yield worker names: the given one, then numbered ones (the lost worker's name may still be registered)."""
    yield base
    count = 1
    while True:
        count += 1
        yield f"{base}-{count}" if base else None


if __name__ == "__main__":
    main(sys.argv)
