"""Fail imports that can no longer finish: their worker is gone, their job ended badly or was lost, or they stalled.

Run by the worker's periodic sweep (``jobs.sweep``), never on a read path. Every verdict is one
conditional UPDATE of the Document state machine, so a row that moved on meanwhile is left alone.
While Redis is down nothing is decided from the queue: the jobs may come back with it.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from rq.job import Job

from irisrag import components
from irisrag.errors import QueueUnavailable
from irisrag.i18n import N_
from irisrag.jobs.liveness import ABANDONED, abandon, worker_gone
from irisrag.jobs.locks import free_lock
from irisrag.jobs.pointers import ENDED_BADLY, PENDING, pointed_job
from irisrag.jobs.queue import queue_errors
from irisrag.models import Document
from irisrag.models.base import utcnow
from irisrag.models.documents import RUNNING

log = logging.getLogger("irisrag.jobs.documents")  # the import job's log lines, as before the split
STALLED = N_("The import stopped unexpectedly (its worker stopped). Retry it.")
ENDED = N_("The import stopped unexpectedly (its job ended without finishing). Retry it.")
WORKER_LOST = N_("The import stopped unexpectedly: the worker running it was lost (killed, or its machine "
                 "stopped). Retry it.")
JOB_LOST = N_("The import's job was lost from the queue (Redis was emptied or restarted). Retry it.")
LOST_GRACE_SECONDS = 60  # a row is queued a moment before its job is; younger queued rows are not judged
BATCH = 200              # running rows looked at per sweep (each costs a Redis lookup or two)


def fail_stopped_imports() -> int:
    """Fail every running import that can no longer finish; return how many rows were failed."""
    return _fail_dead_jobs() + _fail_stalled()


def fail_if_worker_gone(document_id: int) -> bool:
    """Fail a running row at once when its job's worker is gone (a Retry or Rebuild need not wait for the sweep)."""
    with queue_errors():
        job = pointed_job(document_id)
        if job is None or not worker_gone(job):
            return False
        abandon(job)
    row = Document.get_by_id(document_id)
    return bool(_fail(row, WORKER_LOST, f"RQ job {job.id}: its worker {job.worker_name} is gone (no longer listening)"))


def _fail_stalled() -> int:
    """Fail imports whose progress has not moved for IMPORT_STALE_SECONDS (a hung or vanished worker)."""
    limit = utcnow() - timedelta(seconds=components.get().config["IMPORT_STALE_SECONDS"])
    stale = Document.status.in_([s for s in RUNNING if s != "queued"]) & (Document.updated_at < limit)
    # Look before writing: an UPDATE takes SQLite's write lock even when nothing matches.
    if not Document.select(Document.id).where(stale).exists():
        return 0
    return Document.fail_where(stale, STALLED, f"no progress since before {limit:%Y-%m-%d %H:%M:%S} UTC")


def _fail_dead_jobs() -> int:
    """Fail running rows whose job's worker is gone, whose job ended badly, or whose queued job is missing."""
    rows = list(Document.select(Document.id, Document.status, Document.updated_at)
                .where(Document.status.in_(RUNNING)).order_by(Document.id).limit(BATCH))
    try:
        with queue_errors():
            components.get().queue.started_job_registry.cleanup()  # RQ's own lease check (a machine lost silently)
            verdicts = [(row, _verdict(row, _lost_before())) for row in rows]
    except QueueUnavailable:
        return 0
    return sum(_fail(row, *verdict) for row, verdict in verdicts if verdict is not None)


def _lost_before() -> datetime:
    grace = min(LOST_GRACE_SECONDS, components.get().config["IMPORT_STALE_SECONDS"])
    return utcnow() - timedelta(seconds=grace)


def _verdict(row: Document, lost_before: datetime) -> tuple[str, str] | None:
    """Return (message, detail) when the row's import can no longer finish, else None."""
    job = pointed_job(row.id)
    if job is not None and worker_gone(job):
        abandon(job)
        return WORKER_LOST, f"RQ job {job.id}: its worker {job.worker_name} is gone (no longer listening)"
    status = job.get_status(refresh=False) if job is not None else None
    if row.status == "queued" and row.updated_at >= lost_before:
        return None  # its job may be being queued right now
    if status in ENDED_BADLY:
        return _ended_badly(job)
    if row.status == "queued" and status not in PENDING:
        return JOB_LOST, f"queued before {lost_before:%Y-%m-%d %H:%M:%S} UTC, no job in the queue"
    return None


def _ended_badly(job: Job) -> tuple[str, str]:
    error = job.exc_info or ""
    message = WORKER_LOST if ABANDONED in error else ENDED
    return message, f"RQ job {job.id}: {job.get_status(refresh=False)}; {_last_line(error)}"


def _fail(row: Document, message: str, detail: str) -> int:
    """Fail the row (if it still runs) and free the lock its dead job could not release."""
    failed = Document.fail_where((Document.id == row.id) & Document.status.in_(RUNNING), message, detail)
    if failed:
        log.warning("import_job_dead document_id=%s detail=%s", row.id, detail)
        free_lock(row.id)
    return failed


def _last_line(text: str | None) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1][:500] if lines else "no detail"
