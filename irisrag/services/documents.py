"""Import use cases (SPEC 3): every entry point registers a Document (``registration``) and queues one job.

Identity of a document is (area, directory, file name); its SHA256 decides unchanged /
replaced in the pipeline. A same-named file imported into another area is another document:
no import ever changes a document's area. Validation happens here, before anything is queued, so a bad input is
refused with a clear message and leaves everything else untouched.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import BinaryIO

from irisrag import components
from irisrag.errors import Conflict, NotFound, QueueUnavailable
from irisrag.i18n import N_
from irisrag.jobs.queue import JobInfo
from irisrag.models import Area, Document
from irisrag.models.base import utcnow
from irisrag.models.documents import RUNNING, WORKING
from irisrag.services import registration
from irisrag.services.admin import get as get_named
from irisrag.services.registration import upload_root

log = logging.getLogger(__name__)


def _config():
    return components.get().config


def area_of(ident: int | str) -> Area:
    """Return an area by id or name (a clear error for an unknown one)."""
    return get_named(Area, ident)


def queue_import(doc: Document, *, force: bool = False) -> Document:
    """Mark the document queued and enqueue its job (once: the job id is derived from the document)."""
    from irisrag.jobs import documents as document_jobs

    abandoned = doc.status == "failed"
    if not Document.mark_queued(doc.id):
        raise Conflict(N_("“%(name)s” is being imported right now; wait until it has finished."), params={"name": doc.name})
    try:
        document_jobs.enqueue_document(doc.id, fetch=bool(doc.source_url), force=force, abandoned=abandoned)
    except Exception as exc:
        message = getattr(exc, "stored", N_("The import could not be queued."))
        Document.mark_failed(doc.id, message, getattr(exc, "detail", str(exc)))
        raise
    return Document.get_by_id(doc.id)


def import_upload(area_ident: int | str, filename: str, data: bytes | BinaryIO) -> Document:
    """Stage an uploaded file under <upload root>/upload/<area id>/ and queue its import."""
    return queue_import(registration.upload(area_of(area_ident), filename, data)[0])


def import_url(area_ident: int | str, url: str) -> Document:
    """Register a web page (fetched by the worker into <upload root>/url/<area id>/) and queue it."""
    return queue_import(registration.url(area_of(area_ident), url)[0])


def import_path(area_ident: int | str, path_text: str) -> Document:
    """Queue a path import: relative to the source volume, or an absolute original path copied there."""
    return queue_import(registration.volume_path(area_of(area_ident), path_text)[0])


def import_local_file(area_ident: int | str, path: Path | str) -> Document:
    """Import a file from anywhere on this machine (operators, CLI and benchmarks only)."""
    return queue_import(registration.local_file(area_of(area_ident), path)[0])


def get_document(document_id: int) -> Document:
    """Return a document or raise NotFound."""
    doc = Document.get_or_none(Document.id == document_id)
    if doc is None:
        raise NotFound(N_("There is no document with id %(id)s."), params={"id": document_id})
    return doc


def rebuild(document_id: int) -> Document:
    """Re-chunk and re-embed one document, even when its file is unchanged."""
    return queue_import(registration.existing(document_id)[0], force=True)


def rebuild_all() -> list[Document]:
    """Queue a rebuild of every document that is not being imported right now."""
    return [queue_import(doc, force=True) for doc in Document.select() if not doc.is_running]


def cancel_import(document_id: int) -> Document:
    """Cancel a queued or running import: the row says cancelled at once, the job stops, the old chunks stay."""
    from irisrag.jobs.cancel import cancel_job

    doc = get_document(document_id)
    if not Document.mark_cancelled(doc.id, f"cancelled at {utcnow():%Y-%m-%d %H:%M:%S} UTC (was {doc.status})"):
        raise Conflict(N_("“%(name)s” is not being imported, so there is nothing to cancel."), params={"name": doc.name})
    try:
        cancel_job(doc.id)
    except QueueUnavailable as exc:  # the job stops at its next progress step, as it finds the row cancelled
        log.warning("cancel_without_queue document_id=%s detail=%s", doc.id, exc.detail)
    return get_document(doc.id)


def delete_document(document_id: int) -> str:
    """Delete a document with all its chunks and its staged file (a running import is cancelled first)."""
    doc = get_document(document_id)
    if doc.is_running:
        doc = cancel_import(doc.id)
    store = components.get().store
    store.delete_document(doc.id)
    store.refresh_indexes()
    staged = Path(doc.directory) / doc.name
    if _inside(staged, upload_root()) and staged.is_file():
        staged.unlink()
    doc.delete_instance()
    return doc.name


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def list_documents(area_id: int | None = None) -> list[Document]:
    """Return documents, newest first, optionally of one area."""
    query = Document.select(Document, Area).join(Area).order_by(Document.created_at.desc(), Document.id.desc())
    if area_id:
        query = query.where(Document.area == area_id)
    return list(query)


def mark_stale_failed() -> int:
    """Mark imports whose progress stopped moving as failed (their worker died); return how many."""
    from datetime import timedelta

    limit = utcnow() - timedelta(seconds=_config()["IMPORT_STALE_SECONDS"])
    running = [s for s in RUNNING if s != "queued"]
    stale = Document.status.in_(running) & (Document.updated_at < limit)
    # Look before writing: an UPDATE takes SQLite's write lock even when nothing matches, and
    # every admin documents view and API status call runs this.
    dead = _mark_dead_jobs_failed()
    if not Document.select(Document.id).where(stale).exists():
        return dead + _mark_lost_jobs_failed(limit)
    return dead + Document.fail_where(stale, N_("The import stopped unexpectedly (its worker stopped). Retry it."),
                                      f"no progress since before {limit:%Y-%m-%d %H:%M:%S} UTC") + _mark_lost_jobs_failed(limit)


DEAD_CHECK_SECONDS = 2.0
_last_dead_check: float | None = None  # monotonic time of this process's last look for dead jobs


def _mark_dead_jobs_failed() -> int:
    """Fail running imports whose RQ job ended without finishing (its horse was killed, or it was stopped).

    RQ records that within seconds of the horse's death, long before the progress timeout.
    At most every DEAD_CHECK_SECONDS per process; while Redis is down nothing is decided.
    """
    import time

    from irisrag.jobs.pointers import dead_job

    global _last_dead_check
    if _last_dead_check is not None and time.monotonic() - _last_dead_check < DEAD_CHECK_SECONDS:
        return 0
    _last_dead_check = time.monotonic()
    working = Document.select(Document.id).where(Document.status.in_(WORKING)).order_by(Document.id).limit(100)
    try:
        dead = [(d.id, job) for d in working if (job := dead_job(d.id)) is not None]
    except QueueUnavailable:
        return 0
    return sum(_fail_dead(document_id, job) for document_id, job in dead)


def _fail_dead(document_id: int, job: JobInfo) -> int:
    """Fail the row of a dead job and free the lock its killed horse could not release."""
    from irisrag.jobs.locks import free_lock

    failed = Document.fail_where((Document.id == document_id) & Document.status.in_(WORKING),
                                 N_("The import stopped unexpectedly (its job ended without finishing). Retry it."),
                                 f"RQ job {job.id}: {job.status}; {_last_line(job.error)}")
    if failed:
        log.warning("import_job_dead document_id=%s job=%s", document_id, job.id)
        free_lock(document_id)
    return failed


def _last_line(text: str | None) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1][:500] if lines else "no detail"


LOST_CHECK_SECONDS = 60.0
_last_lost_check: float | None = None  # monotonic time of this process's last look for lost jobs


def _mark_lost_jobs_failed(limit) -> int:
    """Fail documents queued before ``limit`` whose job is gone from Redis (emptied, or restarted without data).

    At most once a minute per process and 100 documents a time: each needs a Redis lookup.
    While Redis is down nothing is decided: the jobs may come back with it.
    """
    import time

    from irisrag.jobs.pointers import pending_job
    from irisrag.jobs.queue import queue_errors

    global _last_lost_check
    if _last_lost_check is not None and time.monotonic() - _last_lost_check < LOST_CHECK_SECONDS:
        return 0
    _last_lost_check = time.monotonic()
    waiting = Document.select(Document.id).where((Document.status == "queued") & (Document.updated_at < limit))
    try:
        with queue_errors():
            lost = [d.id for d in waiting.order_by(Document.updated_at).limit(100) if pending_job(d.id) is None]
    except QueueUnavailable:
        return 0
    if lost:
        log.warning("import_jobs_lost document_ids=%s", lost)
    return Document.fail_where(
        Document.id.in_(lost) & (Document.status == "queued"),
        "The import's job was lost from the queue (Redis was emptied or restarted). Retry it.",
        f"queued before {limit:%Y-%m-%d %H:%M:%S} UTC, no job in the queue") if lost else 0
