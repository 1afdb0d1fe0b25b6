"""Enqueue helpers: the only place that talks to RQ on the web/CLI side."""
from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from redis.exceptions import RedisError

from irisrag import components
from irisrag.errors import QueueUnavailable
from irisrag.i18n import N_

log = logging.getLogger(__name__)


@contextmanager
def queue_errors():
    """Translate Redis failures into QueueUnavailable with the configured URL as detail."""
    url = components.get().config["REDIS_URL"]
    try:
        yield
    except RedisError as exc:
        log.warning("queue_unavailable url=%s error=%s", url, exc)
        raise QueueUnavailable(
            N_("The job queue (Redis) is not reachable, so the import could not be started."), detail=f"{url}: {exc}"
        ) from exc


def enqueue(func: Callable[..., Any] | str, *args: Any, job_id: str | None = None, **options: Any):
    """Put a job on the import queue; raise QueueUnavailable when Redis does not answer."""
    with queue_errors():
        return components.get().queue.enqueue(func, *args, job_id=job_id, **options)


def earliest_enqueued(pointer_keys: list[str]) -> datetime | None:
    """Return when the first of the jobs named by these pointer keys was queued (naive UTC; None: no job).

    Two round trips however many keys: the pointers in one MGET, the jobs in one pipeline.
    """
    from rq.job import Job

    if not pointer_keys:
        return None
    redis = components.get().redis
    with queue_errors():
        ids = [raw.decode() for raw in redis.mget(pointer_keys) if raw]
        jobs = Job.fetch_many(ids, connection=redis) if ids else []
    times = [job.enqueued_at.replace(tzinfo=None) for job in jobs if job is not None and job.enqueued_at]
    return min(times, default=None)
