"""Document import jobs: enqueue once per document, run the pipeline, record progress on the row.

Jobs take ids. Progress lives on the Document row (status, done/total), not in job.meta.
Failures are recorded on the row with a technical detail and re-raised so RQ's failed
registry sees them. Only network fetches are retried.
"""
from __future__ import annotations

import logging
import re
import time
import traceback
import uuid
from pathlib import Path

from flask import current_app
from rq import Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job

from irisrag import components
from irisrag.errors import Conflict, ImportStopped, IrisRagError
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.jobs.heartbeat import Heartbeat
from irisrag.jobs.maintenance import maintain_after_import
from irisrag.jobs.queue import JobInfo, enqueue, info, queue_errors
from irisrag.models import Document
from irisrag.models.base import utcnow

log = logging.getLogger(__name__)
PENDING = ("queued", "started", "deferred", "scheduled")
REDIS_LOST = N_("The import was interrupted: the job queue (Redis) could not be reached. Retry it.")
RELEASE_WAIT_SECONDS = 30.0


def _prefix() -> str:
    # One Redis may serve several installations (or test runs): ids carry the queue name.
    return re.sub(r"[^A-Za-z0-9_-]", "_", current_app.config["QUEUE_NAME"])


def _pointer(document_id: int) -> str:
    return f"irisrag:{_prefix()}:doc-job:{document_id}"


def pointer_key(document_id: int) -> str:
    """Return the Redis key that holds the id of the document's latest job."""
    return _pointer(document_id)


def pending_job(document_id: int) -> Job | None:
    """Return the document's queued or running job, if any."""
    job = _pointed_job(document_id)
    return job if job is not None and job.get_status(refresh=False) in PENDING else None


ENDED_BADLY = ("failed", "stopped", "canceled")


def _pointed_job(document_id: int) -> Job | None:
    job_id = components.get().redis.get(_pointer(document_id))
    if not job_id:
        return None
    try:
        return Job.fetch(job_id.decode(), connection=components.get().redis)
    except NoSuchJobError:
        return None


def dead_job(document_id: int) -> JobInfo | None:
    """Return the document's last job when RQ says it ended without finishing (horse killed, stopped)."""
    with queue_errors():
        job = _pointed_job(document_id)
        return info(job) if job is not None and job.get_status(refresh=False) in ENDED_BADLY else None


def cancel_job(document_id: int, wait: float = 10.0) -> str | None:
    """Stop the document's job: cancel it while it waits, stop its work horse while it runs.

    Returns the job's RQ status before, or None when it had none. The document's lock is
    freed once the job has ended (a killed horse cannot free it itself).
    """
    from rq.command import send_stop_job_command
    from rq.exceptions import InvalidJobOperation

    with queue_errors():
        job = pending_job(document_id)
        if job is None:
            return None
        status = job.get_status(refresh=False)
        try:
            if status == "started":
                send_stop_job_command(components.get().redis, job.id)
            else:
                job.cancel()
        except (InvalidJobOperation, NoSuchJobError) as exc:  # it ended meanwhile
            log.info("cancel_job_ended document_id=%s job=%s error=%s", document_id, job.id, exc)
        if _ended(job, wait):
            free_lock(document_id)
    log.info("job_cancelled document_id=%s job=%s was=%s", document_id, job.id, status)
    return status


def free_lock(document_id: int) -> None:
    """Free the document's lock once RQ says its job is dead (a killed horse cannot release it)."""
    with queue_errors():
        components.get().redis.delete(_lock_name(document_id))


def _ended(job: Job, wait: float) -> bool:
    deadline = time.monotonic() + wait
    while job.get_status(refresh=True) in PENDING:
        if time.monotonic() > deadline:
            log.warning("cancel_job_still_running job=%s", job.id)
            return False
        time.sleep(0.1)
    return True


def enqueue_document(document_id: int, *, fetch: bool, force: bool = False, abandoned: bool = False) -> Job | None:
    """Queue the document's job unless one is already pending (double clicks do nothing twice).

    Job ids are derived from the document plus an attempt stamp; a pointer in Redis names
    the current one. ``abandoned`` says the document was marked failed because its worker
    died: a job still registered as started is then a leftover and is not waited for.
    """
    with queue_errors():
        job = pending_job(document_id)
    if job is not None and not (abandoned and job.get_status(refresh=False) == "started"):
        return None
    stamp = uuid.uuid4().hex[:8]
    kind = "fetch" if fetch else "import"
    options = {"job_id": f"{_prefix()}-{kind}-doc-{document_id}-{stamp}", "failure_ttl": 7 * 86400}
    if fetch:
        job = enqueue(fetch_document, document_id, force, retry=Retry(max=2, interval=[5, 30]), **options)
    else:
        job = enqueue(import_document, document_id, force, **options)
    with queue_errors():
        components.get().redis.set(_pointer(document_id), job.id, ex=7 * 86400)
    return job


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
            _log_stage(self.document_id, stage, last_stage, (now - self._stage_started) * 1000)
            self._stage_started = now
        self._last = (stage, now)
        if self.lock is not None:
            self.lock.reacquire()
        if not Document.mark_stage(self.document_id, stage, done, total):
            raise ImportStopped(N_("The import was stopped (cancelled, or marked failed meanwhile)."),
                                f"document {self.document_id} left the running states at stage {stage}")


def _job_id() -> str:
    from rq import get_current_job

    job = get_current_job()
    return job.id if job is not None else "-"


def _log_stage(document_id: int, stage: str, previous: str | None, previous_ms: float) -> None:
    """Log one line per job stage: the stage begun and how long the previous one took."""
    log.info("job_stage document_id=%s job=%s stage=%s previous=%s previous_ms=%.0f",
             document_id, _job_id(), stage, previous or "-", previous_ms)


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


def _lock_name(document_id: int) -> str:
    return f"irisrag:{_prefix()}:lock:doc:{document_id}"


def _lock(document_id: int):
    timeout = max(2, current_app.config["IMPORT_STALE_SECONDS"])
    # Not thread-local: the fetch's heartbeat thread renews the lock its job thread took.
    return components.get().redis.lock(_lock_name(document_id), timeout=timeout, blocking_timeout=0,
                                       thread_local=False)


class _NoLock:
    """Stands in for the Redis lock when the CLI imports in-process without Redis (``--sync``)."""

    def acquire(self) -> bool:
        return True

    def release(self) -> None:
        pass

    def reacquire(self) -> bool:
        return True


def _forget_ended_job(document_id: int) -> None:
    """Drop the pointer to the document's ended job: an in-process run (``--sync``) has no job of its own."""
    job = _pointed_job(document_id)
    if job is not None and job.get_status(refresh=False) not in PENDING:
        components.get().redis.delete(_pointer(document_id))


def _release(lock) -> None:
    """Free the document's lock; while Redis is away, keep trying a little so a retry is not refused."""
    from redis.exceptions import LockError, RedisError

    deadline = time.monotonic() + RELEASE_WAIT_SECONDS
    while True:
        try:
            lock.release()
            return
        except LockError:  # expired while we were stuck: someone may hold it now; nothing to free
            log.warning("import_lock_expired name=%s", lock.name)
            return
        except RedisError as exc:
            if time.monotonic() > deadline:
                log.warning("import_lock_not_released name=%s error=%s", lock.name, exc)
                return
            time.sleep(1.0)


def title_of(doc: Document) -> str:
    """The title a document's chunks are searched with: a page's title, else its file name without the ending."""
    return doc.title or Path(doc.name).stem


def _pipeline_inputs(doc: Document, force: bool):
    """Return the pipeline's job and settings for a document, its file re-checked in the source volume."""
    from irisrag.ingest.ocr import OcrSettings
    from irisrag.ingest.pipeline import ImportJob, PipelineSettings
    from irisrag.ingest.stage import recheck_in_volume

    comps, config = components.get(), current_app.config
    # Re-checked here, at read time: a symlink swapped into the volume since is not followed out.
    path = recheck_in_volume(config["SRC_VOLUME_PATH"], Path(doc.directory) / doc.name)
    job = ImportJob(doc.id, doc.area_id, path, doc.kind, doc.sha256,
                    doc.chunk_count if doc.embedder_key == comps.embedder.key else 0, force, title_of(doc))
    settings = PipelineSettings(config["CHUNK_SIZE"], config["CHUNK_OVERLAP"], config["EMBEDDING_BATCH_SIZE"],
                                OcrSettings(config["OCR_LANGUAGES"], config["OCR_PAGE_TIMEOUT"]),
                                config["IMPORT_WRITE_ROWS"])
    return job, settings


def import_document(document_id: int, force: bool = False, *, use_lock: bool = True, lock=None) -> dict:
    """Run the pipeline for one document (the RQ task; the CLI's --sync calls it in-process).

    ``lock``: the document's lock, already held by the caller (a fetch), who releases it.
    """
    from irisrag.ingest.pipeline import run_import

    with db.connection_context():
        doc = Document.get_or_none(Document.id == document_id)
        if doc is None:
            return {"document_id": document_id, "status": "deleted"}
        held = lock is not None
        lock = lock if held else _lock(document_id) if use_lock else _NoLock()
        if not held and not lock.acquire():
            raise Conflict(N_("This document is being imported by another job."), f"document {document_id}")
        if use_lock and _job_id() == "-":
            _forget_ended_job(document_id)
        progress = RowProgress(document_id, lock)
        comps = components.get()
        began = time.monotonic()
        log.info("job_start document_id=%s job=%s task=import force=%s", document_id, _job_id(), force)
        try:
            job, settings = _pipeline_inputs(doc, force)
            result = run_import(job, embedder=comps.embedder, store=comps.store, settings=settings, progress=progress)
            # Indexes current for hybrid retrieval; a failure here is logged, never fails the import.
            upkeep = (maintain_after_import(use_lock=use_lock, document_id=document_id)
                      if result.status == "done" else None)
        except ImportStopped:
            log.info("job_stopped document_id=%s job=%s stage=%s", document_id, _job_id(), progress.stage or "-")
            return {"document_id": document_id, "status": Document.get_by_id(document_id).status}
        except BaseException as exc:
            log.warning("job_failed document_id=%s job=%s stage=%s error=%s ms=%.0f", document_id, _job_id(),
                        progress.stage or "-", type(exc).__name__, (time.monotonic() - began) * 1000)
            record_failure(document_id, exc, progress.stage)
            raise
        finally:
            if not held:
                _release(lock)
        Document.mark_finished(document_id, result.status, sha256=result.sha256, size_bytes=result.size_bytes,
                               chunk_count=result.chunks, embedder_key=comps.embedder.key, imported_at=utcnow(),
                               progress_done=result.chunks, progress_total=result.chunks)
        log.info("job_done document_id=%s job=%s status=%s chunks=%d ms=%.0f", document_id, _job_id(),
                 result.status, result.chunks, (time.monotonic() - began) * 1000)
        return {"document_id": document_id, "status": result.status, "chunks": result.chunks,
                "timings": result.timings, "maintenance": upkeep}


def fetch_document(document_id: int, force: bool = False, *, use_lock: bool = True) -> dict:
    """Fetch a URL document into <upload root>/url/ (retried on network errors), then import it.

    The document's lock is held from before the fetch to the end of the import, so a second
    job for it (a retry, a requeue) never fetches while this one runs.
    """
    with db.connection_context():
        doc = Document.get_or_none(Document.id == document_id)
        if doc is None:
            return {"document_id": document_id, "status": "deleted"}
        lock = _lock(document_id) if use_lock else _NoLock()
        if not lock.acquire():
            _no_retry_unless_network(None)
            raise Conflict(N_("This document is being imported by another job."), f"document {document_id}")
        try:
            if not _fetch_and_stage(doc, lock):  # cancelled (or failed) before it began: nothing to do
                return {"document_id": document_id, "status": Document.get_by_id(document_id).status}
            return import_document(document_id, force, use_lock=use_lock, lock=lock)
        finally:
            _release(lock)


def _fetch_and_stage(doc: Document, lock) -> bool:
    """Fetch the document's URL, stage it, and point the row at the staged file (False: the row may not run)."""
    from irisrag.ingest.fetch import STAGED_EXTENSIONS, fetch_url
    from irisrag.ingest.sniff import SNIFF_BYTES, check_content
    from irisrag.ingest.stage import stage_bytes, url_file_name
    from irisrag.services.documents import upload_root

    document_id, config = doc.id, current_app.config
    if not Document.mark_stage(document_id, "fetching"):
        return False
    began = time.monotonic()
    log.info("job_stage document_id=%s job=%s stage=fetching previous=- previous_ms=0", document_id, _job_id())
    try:
        with Heartbeat(document_id, lock, max(0.2, config["IMPORT_STALE_SECONDS"] / 4)):
            fetched = fetch_url(doc.source_url, timeout=config["URL_TIMEOUT"], max_bytes=config["MAX_UPLOAD_BYTES"],
                                allowlist=config["URL_ALLOWLIST"], total_timeout=config["URL_TOTAL_TIMEOUT"])
        kind = "text" if fetched.kind == "html" else fetched.kind  # pages are staged as Markdown
        content = fetched.content if fetched.kind != "html" else _html_to_markdown(fetched)
        title = _page_title(fetched) if fetched.kind == "html" else ""
        name = url_file_name(doc.source_url, kind, STAGED_EXTENSIONS.get(fetched.mime_type))
        check_content(name, kind, content[:SNIFF_BYTES])
        path = stage_bytes(upload_root(), "url", name, content, area_id=doc.area_id)
    except BaseException as exc:
        log.warning("job_failed document_id=%s job=%s stage=fetching error=%s ms=%.0f", document_id, _job_id(),
                    type(exc).__name__, (time.monotonic() - began) * 1000)
        record_failure(document_id, exc, "fetching")
        _no_retry_unless_network(exc)
        raise
    Document.update(name=path.name, directory=str(path.parent), kind=kind, title=title,
                    updated_at=utcnow()).where(Document.id == document_id).execute()
    _drop_flat_copy(Path(doc.directory) / doc.name, path, upload_root())
    return True


def _drop_flat_copy(old: Path, new: Path, root: Path) -> None:
    """Remove the page an older version staged flat in ``url/`` once the area's folder holds it."""
    if old != new and old.parent == root / "url":
        old.unlink(missing_ok=True)


def _no_retry_unless_network(exc: BaseException | None) -> None:
    """Only network errors and server errors are worth another try; stop RQ retrying the rest."""
    from rq import get_current_job

    job = get_current_job()
    if job is not None and not getattr(exc, "retryable", False):
        job.retries_left = 0  # the worker reads this very object when it handles the failure


def _page_title(fetched) -> str:
    from irisrag.ingest.extract_html import html_title

    return html_title(fetched.content, fetched.charset)


def _html_to_markdown(fetched) -> bytes:
    from irisrag.ingest.extract_html import extract_html_bytes

    text = extract_html_bytes(fetched.content, url=fetched.final_url, charset=fetched.charset)
    return text.encode("utf-8")
