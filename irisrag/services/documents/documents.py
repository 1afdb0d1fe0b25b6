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
from irisrag.models import Area, Document
from irisrag.models.base import utcnow
from irisrag.models.documents import FINAL
from irisrag.services.admin.admin import get as get_named
from irisrag.services.documents import registration
from irisrag.services.documents.registration import upload_root

log = logging.getLogger(__name__)


def _config():
    return components.get().config


def area_of(ident: int | str) -> Area:
    """Return an area by id or name (a clear error for an unknown one)."""
    return get_named(Area, ident)


def queue_import(doc: Document, *, force: bool = False) -> Document:
    """Mark the document queued and enqueue its job (once: the job id is derived from the document)."""
    from irisrag.jobs import documents as document_jobs

    if not Document.mark_queued(doc.id) and not _requeued_from_lost_worker(doc.id):
        raise Conflict(N_("“%(name)s” is being imported right now; wait until it has finished."), params={"name": doc.name})
    try:
        document_jobs.enqueue_document(doc.id, fetch=bool(doc.source_url), force=force,
                                       abandoned=doc.status == "failed", restart=doc.status in FINAL)
    except Exception as exc:
        message = getattr(exc, "stored", N_("The import could not be queued."))
        Document.mark_failed(doc.id, message, getattr(exc, "detail", str(exc)))
        raise
    return Document.get_by_id(doc.id)


def _requeued_from_lost_worker(document_id: int) -> bool:
    """Queue a running row again when its job's worker is gone (killed): the row is failed first, as the sweep would."""
    return _failed_if_worker_gone(document_id) and Document.mark_queued(document_id)


def _failed_if_worker_gone(document_id: int) -> bool:
    """Fail a running row whose job's worker is gone (killed), so a Rebuild need not wait for the sweep."""
    from irisrag.jobs.import_checks import fail_if_worker_gone

    try:
        return fail_if_worker_gone(document_id)
    except QueueUnavailable:
        return False


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
    """Re-chunk and re-embed one document, even when its file is unchanged (a killed worker's one too)."""
    if get_document(document_id).is_running:
        _failed_if_worker_gone(document_id)
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
