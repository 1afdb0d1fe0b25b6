"""The pointer from a document to its latest RQ job, and what that job's state says."""
from __future__ import annotations

import logging
import time

from rq.exceptions import NoSuchJobError
from rq.job import Job

from irisrag import components
from irisrag.jobs.keys import pointer_key
from irisrag.jobs.queue import JobInfo, info, queue_errors

log = logging.getLogger("irisrag.jobs.documents")  # the import job's log lines, as before the split
PENDING = ("queued", "started", "deferred", "scheduled")
ENDED_BADLY = ("failed", "stopped", "canceled")
POINTER_SECONDS = 7 * 86400


def pointed_job(document_id: int) -> Job | None:
    """Return the document's latest job, None when it has none (or Redis no longer has it)."""
    job_id = components.get().redis.get(pointer_key(document_id))
    if not job_id:
        return None
    try:
        return Job.fetch(job_id.decode(), connection=components.get().redis)
    except NoSuchJobError:
        return None


def pending_job(document_id: int) -> Job | None:
    """Return the document's queued or running job, if any."""
    job = pointed_job(document_id)
    return job if job is not None and job.get_status(refresh=False) in PENDING else None


def dead_job(document_id: int) -> JobInfo | None:
    """Return the document's last job when RQ says it ended without finishing (horse killed, stopped)."""
    with queue_errors():
        job = pointed_job(document_id)
        return info(job) if job is not None and job.get_status(refresh=False) in ENDED_BADLY else None


def point_at(document_id: int, job: Job) -> None:
    """Make ``job`` the document's latest job."""
    with queue_errors():
        components.get().redis.set(pointer_key(document_id), job.id, ex=POINTER_SECONDS)


def forget_ended_job(document_id: int) -> None:
    """Drop the pointer to the document's ended job: an in-process run (``--sync``) has no job of its own."""
    job = pointed_job(document_id)
    if job is not None and job.get_status(refresh=False) not in PENDING:
        components.get().redis.delete(pointer_key(document_id))


def ended_within(job: Job, wait: float) -> bool:
    """Return True once RQ says the job is no longer pending; False when it still is after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while job.get_status(refresh=True) in PENDING:
        if time.monotonic() > deadline:
            log.warning("job_still_running job=%s", job.id)
            return False
        time.sleep(0.1)
    return True
