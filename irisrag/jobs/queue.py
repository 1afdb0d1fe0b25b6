"""The job queue adapter: outside the worker's own code, the only module that talks to RQ and Redis.

Services, views and the CLI ask it in plain values (``JobInfo``, ``WorkerInfo``,
``QueueCounts``; statuses as plain strings) and see Redis failures as ``QueueUnavailable``.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from redis import Redis
from redis.exceptions import RedisError
from rq import Worker
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Job

from irisrag import components
from irisrag.errors import QueueUnavailable
from irisrag.i18n import N_

log = logging.getLogger(__name__)
QUEUE_DOWN = N_("The job queue (Redis) is not reachable, so the import could not be started.")


@dataclass(frozen=True)
class JobInfo:
    """A job as the app sees it: its task's dotted name, arguments, status and the failure it left."""

    id: str
    task: str | None
    args: tuple
    status: str | None
    ended_at: datetime | None
    error: str | None  # the traceback of a failed job


@dataclass(frozen=True)
class WorkerInfo:
    name: str
    state: str
    last_heartbeat: datetime | None
    current_job: str | None


@dataclass(frozen=True)
class QueueCounts:
    name: str
    queued: int
    started: int
    scheduled: int
    deferred: int
    failed: int


connect = components.connect_redis   # the components open both (the one place that picks implementations)
open_queue = components.open_queue


def plain(value: Any) -> str | None:
    """Return an RQ status (an enum, or a string) as its plain string value."""
    return None if value is None else str(getattr(value, "value", value))


@contextmanager
def queue_errors(message: str = QUEUE_DOWN, *, with_url: bool = True) -> Iterator[None]:
    """Translate Redis failures into QueueUnavailable (the configured URL in the detail unless told not)."""
    url = components.get().config["REDIS_URL"]
    try:
        yield
    except RedisError as exc:
        log.warning("queue_unavailable url=%s error=%s", url, exc)
        raise QueueUnavailable(message, detail=f"{url}: {exc}" if with_url else str(exc)) from exc


def enqueue(func: Callable[..., Any] | str, *args: Any, job_id: str | None = None, **options: Any):
    """Put a job on the import queue; raise QueueUnavailable when Redis does not answer."""
    with queue_errors():
        return components.get().queue.enqueue(func, *args, job_id=job_id, **options)


# --- health -------------------------------------------------------------------

def check() -> None:
    """Ping Redis; raise its error when it does not answer (for readiness checks that show it)."""
    components.get().redis.ping()


def answers() -> bool:
    """Return whether the configured Redis answers a ping."""
    try:
        return bool(components.get().redis.ping())
    except RedisError:
        return False


def answers_at(url: str, timeout: float = 1.0) -> bool:
    """Return True when a Redis server answers PING at the URL (no app needed: the quick start's check)."""
    try:
        return bool(Redis.from_url(url, socket_connect_timeout=timeout).ping())
    except RedisError:
        return False


def length() -> int:
    """Return how many jobs wait on the import queue."""
    return components.get().queue.count


def counts() -> QueueCounts:
    """Return the queue's lengths by state (raises the Redis error when it does not answer)."""
    queue = components.get().queue
    check()
    return QueueCounts(queue.name, queue.count, queue.started_job_registry.count, queue.scheduled_job_registry.count,
                       queue.deferred_job_registry.count, queue.failed_job_registry.count)


def workers() -> tuple[WorkerInfo, ...]:
    """Return the workers listening on the import queue, by name."""
    found = sorted(Worker.all(queue=components.get().queue), key=lambda w: w.name)
    return tuple(WorkerInfo(w.name, plain(w.get_state()) or "?", getattr(w, "last_heartbeat", None),
                            w.get_current_job_id()) for w in found)


def worker_count() -> int:
    """Return how many workers listen on the import queue."""
    return len(Worker.all(queue=components.get().queue))


# --- jobs -----------------------------------------------------------------------

def info(job: Job) -> JobInfo:
    """Return the plain view of an RQ job."""
    return JobInfo(job.id, job.func_name, tuple(job.args or ()), plain(job.get_status(refresh=False)),
                   job.ended_at, job.exc_info)


def fetch(job_id: str) -> JobInfo | None:
    """Return the job of that id, None when Redis no longer has it."""
    try:
        return info(Job.fetch(job_id, connection=components.get().redis))
    except NoSuchJobError:
        return None


def failed_jobs(limit: int) -> list[JobInfo]:
    """Return the newest ``limit`` failed jobs of the import queue (those Redis still has)."""
    queue = components.get().queue
    ids = queue.failed_job_registry.get_job_ids(0, limit - 1, desc=True)
    return [info(job) for job in Job.fetch_many(ids, connection=queue.connection) if job is not None]


def drop_failed(job_id: str) -> None:
    """Remove a failed job from the failed registry and delete it."""
    try:
        components.get().queue.failed_job_registry.remove(job_id, delete_job=True)
    except NoSuchJobError:
        log.info("failed_job_gone job=%s", job_id)


def requeue_failed(job_id: str) -> JobInfo | None:
    """Put a failed job back on the queue; None when there is no such failed job (any more)."""
    try:
        return info(components.get().queue.failed_job_registry.requeue(job_id))
    except (NoSuchJobError, InvalidJobOperation) as exc:
        log.info("requeue_refused job=%s error=%s", job_id, exc)
        return None


def earliest_enqueued(pointer_keys: list[str]) -> datetime | None:
    """Return when the first of the jobs named by these pointer keys was queued (naive UTC; None: no job).

    Two round trips however many keys: the pointers in one MGET, the jobs in one pipeline.
    """
    if not pointer_keys:
        return None
    redis = components.get().redis
    with queue_errors():
        ids = [raw.decode() for raw in redis.mget(pointer_keys) if raw]
        jobs = Job.fetch_many(ids, connection=redis) if ids else []
    times = [job.enqueued_at.replace(tzinfo=None) for job in jobs if job is not None and job.enqueued_at]
    return min(times, default=None)
