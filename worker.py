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


def wait_for_redis(redis, seconds: float = 30.0) -> None:
    """Wait until Redis answers (it may start alongside the worker)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            redis.ping()
            return
        except RedisError as exc:
            if time.monotonic() > deadline:
                raise SystemExit(f"Redis is not reachable: {exc}") from exc
            time.sleep(0.5)


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
        worker = Worker([comps.queue], connection=comps.redis, name=argv[1] if len(argv) > 1 else None)
        # Index upkeep every MAINTENANCE_INTERVAL s: one chain of jobs however many workers start.
        maintenance = schedule_maintenance()
        log.info("worker_start queue=%s redis=%s maintenance=%s", comps.queue.name, app.config["REDIS_URL"],
                 maintenance or "off")
        worker.work(with_scheduler=True)


if __name__ == "__main__":
    main(sys.argv)
