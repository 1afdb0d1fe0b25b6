"""Import use cases (SPEC 3): every entry point registers a Document and queues one job.

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
from irisrag.errors import Conflict, NotFound, ValidationError
from irisrag.extensions import db
from irisrag.ingest import stage
from irisrag.ingest.extract import kind_for
from irisrag.models import Area, Document
from irisrag.models.base import utcnow
from irisrag.models.documents import RUNNING
from irisrag.services.admin import get as get_named

log = logging.getLogger(__name__)


def _config():
    return components.get().config


def upload_root() -> Path:
    """Return the staging root with a relative path resolved against the project root."""
    root = Path(_config()["UPLOAD_ROOT"])
    return root if root.is_absolute() else _config()["IRISRAG_ROOT"] / root


def area_of(ident: int | str) -> Area:
    """Return an area by id or name (a clear error for an unknown one)."""
    return get_named(Area, ident)


def _identified(area: Area, directory: Path | str, name: str):
    return (Document.area == area.id) & (Document.directory == str(directory)) & (Document.name == name)


def register(area: Area, directory: Path | str, name: str, kind: str, **extra) -> tuple[Document, bool]:
    """Create or find the document of (area, directory, name); never one of another area."""
    directory = str(directory)
    with db.atomic():
        doc = Document.get_or_none(_identified(area, directory, name))
        if doc is None:
            doc = Document.create(area=area, directory=directory, name=name, kind=kind, **extra)
            return doc, True
        if doc.is_running and doc.status != "queued":
            raise Conflict(f"“{name}” is being imported right now; wait until it has finished.")
        doc.kind = kind
        for key, value in extra.items():
            setattr(doc, key, value)
        doc.save()
    return doc, False


def _adopt_flat_upload(area: Area, name: str, directory: Path) -> None:
    """Move this area's document staged flat by an older version (``upload/name``) to the area's folder."""
    flat = upload_root() / "upload"
    doc = Document.get_or_none(_identified(area, flat, name))
    if doc is None:
        return
    if doc.is_running and doc.status != "queued":
        raise Conflict(f"“{name}” is being imported right now; wait until it has finished.")
    Document.update(directory=str(directory)).where(Document.id == doc.id).execute()
    (flat / name).unlink(missing_ok=True)


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
    """Stage an uploaded file under <upload root>/upload/ and queue its import."""
    area = area_of(area_ident)
    name = stage.safe_file_name(filename)
    kind = kind_for(name)
    path = stage.stage_bytes(upload_root(), "upload", name, data, _config()["MAX_UPLOAD_BYTES"], area_id=area.id)
    _adopt_flat_upload(area, name, path.parent)
    doc, _ = register(area, path.parent, name, kind)
    return queue_import(doc)


def import_url(area_ident: int | str, url: str) -> Document:
    """Register a web page (fetched by the worker into <upload root>/url/) and queue it."""
    area = area_of(area_ident)
    url = (url or "").strip()
    if not url.lower().startswith(("http://", "https://")) or len(url) > 2048:
        raise ValidationError("Please enter a web address starting with http:// or https://.", field="url")
    known = _url_document(area, url)
    if known is not None:  # the fetch may have renamed it (a PDF behind the URL)
        doc, _ = register(area, known.directory, known.name, known.kind, source_url=url)
    else:
        directory = stage.staging_dir(upload_root(), "url", area.id)
        doc, _ = register(area, directory, stage.url_file_name(url, "html"), "html", source_url=url)
    return queue_import(doc)


def _url_document(area: Area, url: str) -> Document | None:
    """Return this area's document of a URL (found by its address: a fetched PDF was renamed)."""
    query = Document.select().where((Document.area == area.id) & (Document.source_url == url))
    return query.order_by(Document.id).first()


def import_volume_path(area_ident: int | str, relpath: str) -> Document:
    """Import a file given relative to the source volume (it must stay inside it)."""
    area = area_of(area_ident)
    path = stage.resolve_in_volume(_config()["SRC_VOLUME_PATH"], relpath)
    doc, _ = register(area, path.parent, path.name, kind_for(path.name))
    return queue_import(doc)


def import_original_path(area_ident: int | str, original_path: str) -> Document:
    """Import a file copied into the source volume beforehand, found there by its name (SPEC 3)."""
    area = area_of(area_ident)
    path = stage.find_by_original_path(_config()["SRC_VOLUME_PATH"], original_path)
    doc, _ = register(area, path.parent, path.name, kind_for(path.name), original_path=original_path.strip())
    return queue_import(doc)


def import_path(area_ident: int | str, path_text: str) -> Document:
    """Dispatch a path import: an absolute original path, or a path relative to the volume."""
    text = (path_text or "").strip()
    if not text:
        raise ValidationError("Please enter a path.", field="path")
    is_absolute = text.startswith(("/", "\\")) or (len(text) > 2 and text[1] == ":" and text[2] in "\\/")
    return import_original_path(area_ident, text) if is_absolute else import_volume_path(area_ident, text)


def import_local_file(area_ident: int | str, path: Path | str) -> Document:
    """Import a file from anywhere on this machine (operators, CLI only)."""
    area = area_of(area_ident)
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise NotFound(f"There is no file at {path}.")
    doc, _ = register(area, path.parent, path.name, kind_for(path.name))
    return queue_import(doc)


def get_document(document_id: int) -> Document:
    """Return a document or raise NotFound."""
    doc = Document.get_or_none(Document.id == document_id)
    if doc is None:
        raise NotFound(f"There is no document with id {document_id}.")
    return doc


def rebuild(document_id: int) -> Document:
    """Re-chunk and re-embed one document, even when its file is unchanged."""
    doc = get_document(document_id)
    if doc.is_running and doc.status != "queued":
        raise Conflict(f"“{doc.name}” is being imported right now.")
    return queue_import(doc, force=True)


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
