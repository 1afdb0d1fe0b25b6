"""RQ worker inside the app context, with the scheduler (retries with intervals need it)."""
from __future__ import annotations

import logging
import sys
import time

from redis.exceptions import RedisError
from rq import Worker

from irisrag import components, create_app
from irisrag.jobs.maintenance import schedule_maintenance

log = logging.getLogger("irisrag.worker")


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
    """Run workers; when Redis goes away mid-job (RQ then stops its worker), wait for it and start again."""
    while True:
        worker = make_worker()
        try:
            worker.work(with_scheduler=True)
            return  # stopped on purpose (SIGTERM, SIGINT)
        except RedisError as exc:
            log.warning("worker_lost_redis name=%s error=%s; waiting for it to come back", worker.name, exc)
            wait_for_redis(redis, seconds=None)
            log.info("worker_redis_back; starting a new worker")


def main(argv: list[str]) -> None:
    """Run a worker on the configured queue until stopped."""
    app = create_app()
    with app.app_context():
        comps = components.get()
        wait_for_redis(comps.redis)
        # Load the embedding model once here: every job's forked work horse inherits it
        # instead of loading it again (about 4 s for the built-in model on 2 cores).
        # LanceDB is not opened in this process, so nothing of it is mid-operation at fork.
        # An embedder that is not fork-safe (e5: OpenMP) says so and is loaded by each horse.
        try:
            if getattr(comps.embedder, "warm_before_fork", True):
                comps.embedder.embed_documents(["warm-up"])
        except Exception as exc:  # a remote embedder that is down must not stop the worker
            log.warning("embedder_warmup_failed error=%s", exc)
        names = _names(argv[1] if len(argv) > 1 else None)
        # Index upkeep every MAINTENANCE_INTERVAL s: one chain of jobs however many workers start.
        maintenance = schedule_maintenance()
        log.info("worker_start queue=%s redis=%s maintenance=%s", comps.queue.name, app.config["REDIS_URL"],
                 maintenance or "off")
        work_until_stopped(lambda: Worker([comps.queue], connection=comps.redis, name=next(names)), comps.redis)


def _names(base: str | None):
    """Yield worker names: the given one, then numbered ones (the lost worker's name may still be registered)."""
    yield base
    count = 1
    while True:
        count += 1
        yield f"{base}-{count}" if base else None


if __name__ == "__main__":
    main(sys.argv)
