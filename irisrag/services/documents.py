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
from irisrag.errors import Conflict, NotFound
from irisrag.models import Area, Document
from irisrag.models.base import utcnow
from irisrag.models.documents import RUNNING
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
    Document.update(status="queued", progress_done=0, progress_total=0, error=None, error_detail=None,
                    updated_at=utcnow()).where(Document.id == doc.id).execute()
    try:
        document_jobs.enqueue_document(doc.id, fetch=bool(doc.source_url), force=force, abandoned=abandoned)
    except Exception as exc:
        message = getattr(exc, "message", "The import could not be queued.")
        Document.update(status="failed", error=message, error_detail=getattr(exc, "detail", str(exc)),
                        updated_at=utcnow()).where(Document.id == doc.id).execute()
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
        raise NotFound(f"There is no document with id {document_id}.")
    return doc


def rebuild(document_id: int) -> Document:
    """Re-chunk and re-embed one document, even when its file is unchanged."""
    return queue_import(registration.existing(document_id)[0], force=True)


def rebuild_all() -> list[Document]:
    """Queue a rebuild of every document that is not being imported right now."""
    return [queue_import(doc, force=True) for doc in Document.select() if not doc.is_running]


def delete_document(document_id: int) -> str:
    """Delete a document with all its chunks and its staged file; return its name."""
    doc = get_document(document_id)
    if doc.is_running and doc.status != "queued":
        raise Conflict(f"“{doc.name}” is being imported right now; delete it when the import has finished.")
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
    if not Document.select(Document.id).where(stale).exists():
        return _mark_lost_jobs_failed(limit)
    return (
        Document.update(status="failed", error="The import stopped unexpectedly (its worker stopped). Retry it.",
                        error_detail=f"no progress since before {limit:%Y-%m-%d %H:%M:%S} UTC", updated_at=utcnow())
        .where(stale)
        .execute()
    ) + _mark_lost_jobs_failed(limit)


LOST_CHECK_SECONDS = 60.0
_last_lost_check: float | None = None  # monotonic time of this process's last look for lost jobs


def _mark_lost_jobs_failed(limit) -> int:
    """Fail documents queued before ``limit`` whose job is gone from Redis (emptied, or restarted without data).

    At most once a minute per process and 100 documents a time: each needs a Redis lookup.
    While Redis is down nothing is decided: the jobs may come back with it.
    """
    import time

    from redis.exceptions import RedisError

    from irisrag.jobs.documents import pending_job

    global _last_lost_check
    if _last_lost_check is not None and time.monotonic() - _last_lost_check < LOST_CHECK_SECONDS:
        return 0
    _last_lost_check = time.monotonic()
    waiting = Document.select(Document.id).where((Document.status == "queued") & (Document.updated_at < limit))
    try:
        lost = [d.id for d in waiting.order_by(Document.updated_at).limit(100) if pending_job(d.id) is None]
    except RedisError:
        return 0
    if lost:
        log.warning("import_jobs_lost document_ids=%s", lost)
    return Document.update(
        status="failed", error="The import's job was lost from the queue (Redis was emptied or restarted). Retry it.",
        error_detail=f"queued before {limit:%Y-%m-%d %H:%M:%S} UTC, no job in the queue", updated_at=utcnow(),
    ).where(Document.id.in_(lost) & (Document.status == "queued")).execute() if lost else 0
