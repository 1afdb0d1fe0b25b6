"""An import job's progress and failures, recorded on its Document row (not in job.meta)."""
from __future__ import annotations

import logging
import time
import traceback

from irisrag.errors import ImportStopped, IrisRagError
from irisrag.i18n import N_
from irisrag.models import Document

log = logging.getLogger("irisrag.jobs.documents")  # the import job's log lines, as before the split
REDIS_LOST = N_("The import was interrupted: the job queue (Redis) could not be reached. Retry it.")


class RowProgress:
    """Write stage and done/total to the Document row, at most every 0.5 s within a stage.

    Each write also renews the document's lock: a job that stops making progress (its
    worker died) loses the lock after IMPORT_STALE_SECONDS, when it is also marked failed.
    """

    def __init__(self, document_id: int, lock=None) -> None:
        self.document_id = document_id
        self.lock = lock
        self._last: tuple[str | None, float] = (None, 0.0)
        self._stage_started = time.monotonic()

    @property
    def stage(self) -> str | None:
        """Return the last stage reported."""
        return self._last[0]

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        last_stage, last_time = self._last
        if stage == last_stage and now - last_time < 0.5 and done < total:
            return
        if stage != last_stage:
            log_stage(self.document_id, stage, last_stage, (now - self._stage_started) * 1000)
            self._stage_started = now
        self._last = (stage, now)
        if self.lock is not None:
            self.lock.reacquire()
        if not Document.mark_stage(self.document_id, stage, done, total):
            raise ImportStopped(N_("The import was stopped (cancelled, or marked failed meanwhile)."),
                                f"document {self.document_id} left the running states at stage {stage}")


def job_id() -> str:
    """Return the id of the RQ job running now ("-" outside a job)."""
    from rq import get_current_job

    job = get_current_job()
    return job.id if job is not None else "-"


def log_stage(document_id: int, stage: str, previous: str | None, previous_ms: float) -> None:
    """Log one line per job stage: the stage begun and how long the previous one took."""
    log.info("job_stage document_id=%s job=%s stage=%s previous=%s previous_ms=%.0f",
             document_id, job_id(), stage, previous or "-", previous_ms)


def record_failure(document_id: int, exc: BaseException, stage: str | None = None) -> None:
    """Store a failure's message and technical detail on the row."""
    from redis.exceptions import RedisError

    if isinstance(exc, IrisRagError):
        message, detail = exc.stored, exc.detail
    elif isinstance(exc, RedisError):
        message, detail = REDIS_LOST, f"{type(exc).__name__}: {exc}"
    else:
        message, detail = N_("The import failed unexpectedly."), ""
    tail = "".join(traceback.format_exception(exc)[-3:])
    detail = "\n".join(part for part in (f"stage: {stage}" if stage else "", detail, tail) if part)
    Document.mark_failed(document_id, message, detail[:8000])
