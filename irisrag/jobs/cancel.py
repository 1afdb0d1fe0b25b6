"""Cancelling a document's job: cancel it while it waits, stop its work horse while it runs."""
from __future__ import annotations

import logging

from rq.job import Job

from irisrag import components
from irisrag.jobs.liveness import abandon, worker_gone
from irisrag.jobs.locks import free_lock
from irisrag.jobs.pointers import ended_within, pending_job
from irisrag.jobs.queue import queue_errors

log = logging.getLogger("irisrag.jobs.documents")  # the import job's log lines, as before the split


def cancel_job(document_id: int, wait: float = 10.0) -> str | None:
    """Stop the document's job: cancel it while it waits, stop its work horse while it runs.

    Returns the job's RQ status before, or None when it had none. The document's lock is
    freed once the job has ended (a killed horse cannot free it itself); a job whose worker
    is gone is ended through RQ's cleanup at once, without waiting for a stop nobody hears.
    """
    with queue_errors():
        job = pending_job(document_id)
        if job is None:
            return None
        status = job.get_status(refresh=False)
        if worker_gone(job):
            abandon(job)
        else:
            _stop(document_id, job, status)
        if ended_within(job, wait):
            free_lock(document_id)
    log.info("job_cancelled document_id=%s job=%s was=%s", document_id, job.id, status)
    return status


def _stop(document_id: int, job: Job, status: str) -> None:
    from rq.command import send_stop_job_command
    from rq.exceptions import InvalidJobOperation, NoSuchJobError

    try:
        if status == "started":
            send_stop_job_command(components.get().redis, job.id)
        else:
            job.cancel()
    except (InvalidJobOperation, NoSuchJobError) as exc:  # it ended meanwhile
        log.info("cancel_job_ended document_id=%s job=%s error=%s", document_id, job.id, exc)

