"""Short documents queued next run in the same work horse as the import before them (issue 41 item 3).

RQ forks a work horse per job, and a horse opens the database and LanceDB anew: for a short
document (an HTML page) that fixed cost was as large as embedding it (bench/README.md, "job
profile"). So an import job, once its own document is done, takes the job at the head of
the queue when that is another document's import of a file of at most ``CHAIN_MAX_BYTES``,
and runs it itself; it goes on for ``CHAIN_SECONDS`` at most, then leaves the queue to the
next fork. Every document is still imported on its own (its lock, progress, status, its own
failure and duplicate check), and its job still ends finished (with the document's result)
or failed (with the traceback) in RQ; upkeep runs once, after the last of them
(``maintain_after_import`` defers it while imports wait in the queue).

Claiming is one Redis script: the job leaves the queue and the document's pointer names the
running job in the same step, so a cancel stops what actually runs it, and another worker that
dequeued the job first simply wins. Once the claimed import has ended, the pointer names the
claimed job again, as if it had run alone; the first document's pointer, which names the
running job, is dropped before the first claim, so a Rebuild of it need not wait for the chain.
"""
from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from rq import Queue, get_current_job
from rq.defaults import DEFAULT_RESULT_TTL
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.utils import now

from irisrag.extensions import db
from irisrag.jobs.keys import pointer_key, prefix
from irisrag.jobs.pointers import POINTER_SECONDS, point_at
from irisrag.models import Document

log = logging.getLogger("irisrag.jobs.documents")  # the import job's log lines
CHAIN_SECONDS = 60.0          # a horse takes no further document after this long (RQ's timeout is JOB_TIMEOUT)
CHAIN_MAX_BYTES = 1 << 20     # only files this small are taken: the fixed per-job cost only matters there
IMPORT_TASK = "irisrag.jobs.documents.import_document"
# LREM and SET in one step: the job leaves the queue only if it was still there, and then points at this job.
_CLAIM = ("if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 1 then "
          "redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3]) return 1 end return 0")
# Drop a document's pointer only while it still names this job.
_FORGET = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

RunOne = Callable[[int, bool], dict]


def in_worker() -> bool:
    """Return True inside an RQ job (the CLI's in-process imports do not chain)."""
    return get_current_job() is not None


def run_queued(run_one: RunOne, first_document_id: int, began: float) -> list[str]:
    """After the job's own document, import the short documents queued next; return their job ids."""
    current = get_current_job()
    forget(first_document_id, current)
    results: list[str] = []
    while time.monotonic() - began < CHAIN_SECONDS:
        claimed = claim_next(current)
        if claimed is None:
            break
        results.append(run_claimed(claimed, current, run_one))
    return results


def claim_next(current: Job) -> Job | None:
    """Take the job at the head of the queue when it imports a short document; None otherwise."""
    queue = Queue(current.origin, connection=current.connection)
    head = queue.get_job_ids(0, 1)  # (offset, length)
    if not head:
        return None
    try:
        job = Job.fetch(head[0], connection=current.connection)
    except NoSuchJobError:
        return None
    if not chainable(job):
        return None
    claimed = current.connection.eval(_CLAIM, 2, queue.key, pointer_key(job.args[0]), job.id, current.id,
                                      POINTER_SECONDS)
    return job if claimed else None


def chainable(job: Job) -> bool:
    """Return True for another document's import job of this installation whose file is short."""
    return (job.func_name == IMPORT_TASK and job.id.startswith(f"{prefix()}-import-doc-")
            and bool(job.args) and short(int(job.args[0])))


def short(document_id: int) -> bool:
    """Return True when the document's file has at most CHAIN_MAX_BYTES (a deleted one ends at once: True)."""
    with db.connection_context():
        doc = Document.get_or_none(Document.id == document_id)
    if doc is None:
        return True
    try:
        return (Path(doc.directory) / doc.name).stat().st_size <= CHAIN_MAX_BYTES
    except OSError:
        return False  # not there (yet): its own job says why


def run_claimed(job: Job, current: Job, run_one: RunOne) -> str:
    """Import a claimed job's document here and end that job as RQ would have (finished or failed)."""
    document_id, force = int(job.args[0]), bool(job.args[1]) if len(job.args) > 1 else False
    log.info("job_chained document_id=%s job=%s claimed=%s", document_id, current.id, job.id)
    job.started_at = now()
    try:
        result = run_one(document_id, force)
    except Exception as exc:  # the row holds the failure already (import_document recorded it)
        _end(job, current, document_id, failure="".join(traceback.format_exception(exc)))
    else:
        _end(job, current, document_id, result={**result, "chained_in": current.id})
    return job.id


def forget(document_id: int, current: Job) -> None:
    """Drop the pointer of a document this job has finished, if it still names this job."""
    current.connection.eval(_FORGET, 1, pointer_key(document_id), current.id)


def _end(job: Job, current: Job, document_id: int, *, result: dict | None = None, failure: str = "") -> None:
    """Record the claimed job's outcome in RQ (finished with its result, or failed with the traceback)
    and point the document at it again."""
    job.ended_at, job.worker_name = now(), current.worker_name
    with current.connection.pipeline() as pipe:
        if failure:
            job.set_status(JobStatus.FAILED, pipeline=pipe)
            job._handle_failure(failure, pipeline=pipe, worker_name=current.worker_name or "")
        else:
            job._result = result
            job._handle_success(job.get_result_ttl(DEFAULT_RESULT_TTL), pipeline=pipe,
                                worker_name=current.worker_name or "")
        pipe.execute()
    point_at(document_id, job)
