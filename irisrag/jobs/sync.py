"""Source syncs on the queue (issue 40): the RQ task, its lock, "sync now", and the due syncs the sweep queues.

Two syncs of one source never run at once: the task takes the source's lock in Redis (renewed
by a heartbeat thread while it runs). A sync whose worker was killed leaves the lock behind;
the next sync finds the holder's job without a worker (``liveness``), ends it as RQ would,
fails the documents it left half-imported and takes the lock: the run starts again from the
top, and the documents are found by their URL or path, so nothing is imported twice.
Scheduled syncs need no process of their own: the workers' periodic sweep (``jobs/sweep.py``,
run by RQ's scheduler) queues the sources that are due, each once (a conditional UPDATE of
its next due time decides which worker queues it).
"""
from __future__ import annotations

import logging
import uuid
from datetime import datetime

from flask import current_app
from rq.exceptions import NoSuchJobError
from rq.job import Job

from irisrag import components
from irisrag.errors import Conflict
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.jobs.heartbeat import Beat
from irisrag.jobs.keys import prefix
from irisrag.jobs.liveness import abandon, worker_gone
from irisrag.jobs.locks import free_lock
from irisrag.jobs.pointers import pending_job
from irisrag.jobs.progress import job_id
from irisrag.jobs.queue import enqueue, queue_errors
from irisrag.models import Document, Source
from irisrag.models.base import utcnow
from irisrag.models.documents import RUNNING

log = logging.getLogger(__name__)
LOCK_SECONDS = 60  # the source's lock lapses this long after its holder stopped renewing it
BUSY = N_("A sync of this source is running; wait until it has finished.")


def _lock_key(source_id: int) -> str:
    return f"irisrag:{prefix()}:lock:source:{source_id}"


def source_lock(source_id: int):
    return components.get().redis.lock(_lock_key(source_id), timeout=LOCK_SECONDS, blocking_timeout=0,
                                       thread_local=False)


def sync_source(source_id: int) -> dict:
    """RQ task: sync one source under its lock; a second sync of it meanwhile does nothing."""
    from irisrag.services.sources.sync import run_sync

    with db.connection_context():
        token = job_id() if job_id() != "-" else f"here-{uuid.uuid4().hex}"
        lock = source_lock(source_id)  # its value names the holder's job
        if not lock.acquire(token=token) and not _taken_from_lost_holder(source_id, lock, token):
            log.info("sync_busy source=%s job=%s", source_id, token)
            return {"source_id": source_id, "status": "busy"}
        try:
            with _Renewal(lock):
                run = run_sync(source_id, job_id())
        finally:
            lock.release() if lock.owned() else None
        return {"source_id": source_id, "status": run.state, "run_id": run.id}


def _holder_lost(source_id: int) -> bool:
    """Tell whether the job holding the source's lock can no longer release it: ended, or its worker gone.

    A job still registered as started whose worker is gone is ended first, as RQ's cleanup would.
    """
    redis = components.get().redis
    holder = redis.get(_lock_key(source_id))
    try:
        job = Job.fetch(holder.decode(), connection=redis) if holder else None
    except NoSuchJobError:
        job = None
    if holder is None:
        return False  # free (or freed just now): nobody to replace
    if job is None or job.get_status(refresh=False) in ("finished", "failed", "stopped", "canceled"):
        return True  # a lock outliving its job: the job was killed and cleaned up since
    if worker_gone(job):
        abandon(job)
        return True
    return False


def _taken_from_lost_holder(source_id: int, lock, token: str) -> bool:
    """Take the lock of a sync whose worker is gone (killed); its half-imported documents are failed first."""
    if not _holder_lost(source_id):
        return False
    _fail_left_behind(source_id)
    components.get().redis.delete(_lock_key(source_id))
    return lock.acquire(token=token)


def _fail_left_behind(source_id: int) -> None:
    """Fail the source's documents the killed sync was importing (no job of their own) and free their locks."""
    running = Document.select(Document.id).where((Document.source == source_id) & Document.status.in_(RUNNING))
    for doc in list(running):
        if pending_job(doc.id) is None:
            Document.fail_where(Document.id == doc.id, N_("The import was interrupted: its worker stopped."),
                                "sync worker gone")
            free_lock(doc.id)


class _Renewal(Beat):
    """Renew the source's lock every quarter of its timeout while the sync runs."""

    def __init__(self, lock) -> None:
        super().__init__(LOCK_SECONDS / 4, "sync-lock")
        self.lock = lock

    def beat(self) -> None:
        try:
            self.lock.reacquire()
        except Exception as exc:  # the next beat tries again; the run itself decides its outcome
            log.warning("sync_lock_renewal_failed error=%s", exc)


def is_syncing(source_id: int) -> bool:
    """Tell whether a sync of the source holds its lock now (a killed one's lock does not count)."""
    with queue_errors():
        return bool(components.get().redis.exists(_lock_key(source_id))) and not _holder_lost(source_id)


def enqueue_sync(source_id: int) -> str:
    """Queue a sync of the source now; refused while one runs (Conflict)."""
    if is_syncing(source_id):
        raise Conflict(BUSY, f"source {source_id}")
    job = enqueue(sync_source, source_id, job_id=f"{prefix()}-sync-{source_id}-{uuid.uuid4().hex[:8]}",
                  job_timeout=current_app.config["JOB_TIMEOUT"], failure_ttl=7 * 86400, result_ttl=86400)
    return job.id


def queue_due_syncs(now: datetime | None = None) -> int:
    """Queue every source whose next sync is due, each once however many workers sweep; return how many."""
    now = now or utcnow()
    queued = 0
    for source in list(Source.select().where(Source.next_due_at <= now)):
        due = source.next_due_at
        source.schedule_from(now)
        taken = Source.update(next_due_at=source.next_due_at).where(
            (Source.id == source.id) & (Source.next_due_at == due)).execute()
        if taken:
            try:
                enqueue_sync(source.id)
                queued += 1
            except Conflict:
                log.info("sync_due_but_running source=%s", source.id)
    return queued
