"""Enqueue helpers: the only place that talks to RQ on the web/CLI side."""
from __future__ import annotations

import logging
from typing import Any, Callable

from redis.exceptions import RedisError

from irisrag import components
from irisrag.errors import QueueUnavailable

log = logging.getLogger(__name__)


def enqueue(func: Callable[..., Any] | str, *args: Any, job_id: str | None = None, **options: Any):
    """Put a job on the import queue; raise QueueUnavailable when Redis does not answer."""
    comps = components.get()
    try:
        return comps.queue.enqueue(func, *args, job_id=job_id, **options)
    except RedisError as exc:
        log.warning("queue_unavailable url=%s error=%s", comps.config["REDIS_URL"], exc)
        raise QueueUnavailable(
            "The job queue (Redis) is not reachable, so the import could not be started.",
            detail=f"{comps.config['REDIS_URL']}: {exc}",
        ) from exc
