"""Document import tasks (the RQ entry points): enqueue once per document, run the pipeline.

Jobs take ids. Progress lives on the Document row (``progress``), a document's lock keeps a
second job off it (``locks``), the pointer names its latest job (``pointers``); cancelling is
``cancel`` and a URL's download ``fetching``. Failures are recorded on the row with a
technical detail and re-raised so RQ's failed registry sees them. Only network fetches are retried.
"""
from __future__ import annotations

import logging
import time
import uuid
from pathlib import Path

from flask import current_app
from rq import Retry
from rq.job import Job

from irisrag import components
from irisrag.errors import Conflict, ImportStopped
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.jobs import chain
from irisrag.jobs.fetching import fetch_and_stage, no_retry_unless_network
from irisrag.jobs.keys import prefix
from irisrag.jobs.liveness import abandon, worker_gone
from irisrag.jobs.locks import NoLock, document_lock, free_lock, release
from irisrag.jobs.maintenance import maintain_after_import
from irisrag.jobs.pointers import ended_within, forget_ended_job, pending_job, point_at
from irisrag.jobs.progress import RowProgress, job_id, record_failure
from irisrag.jobs.queue import enqueue, queue_errors
from irisrag.models import Document
from irisrag.models.base import utcnow

log = logging.getLogger(__name__)
FINISH_WAIT_SECONDS = 3.0  # how long a restart waits for the document's previous job to end
STILL_STOPPING = N_("The import could not be queued: this document's previous job is still stopping. "
                    "Try again in a moment.")


def enqueue_document(document_id: int, *, fetch: bool, force: bool = False, abandoned: bool = False,
                     restart: bool = False) -> Job | None:
    """Queue the document's job unless one is already pending (double clicks do nothing twice).

    Job ids are derived from the document plus an attempt stamp; a pointer in Redis names
    the current one. ``abandoned`` says the document was marked failed because its worker
    died: a job still registered as started is then a leftover and is not waited for. A
    started job whose worker is gone is ended (RQ's cleanup) and its lock freed, so the new
    job runs at once. ``restart``: the row had ended (cancelled, done); a job of it still
    running on a live worker is then in the way, and the new one is refused (Conflict).
    """
    with queue_errors():
        job = _pending_and_alive(document_id)
        if job is not None and restart and not abandoned:
            job = _not_running(job)
    if job is not None and not (abandoned and job.get_status(refresh=False) == "started"):
        return None
    stamp = uuid.uuid4().hex[:8]
    kind = "fetch" if fetch else "import"
    options = {"job_id": f"{prefix()}-{kind}-doc-{document_id}-{stamp}", "failure_ttl": 7 * 86400}
    if fetch:
        job = enqueue(fetch_document, document_id, force, retry=Retry(max=2, interval=[5, 30]), **options)
    else:
        job = enqueue(import_document, document_id, force, **options)
    point_at(document_id, job)
    return job


def _not_running(job: Job) -> Job | None:
    """Return a waiting job as it is; wait a little for a running one to end (None), else refuse (Conflict)."""
    if job.get_status(refresh=False) != "started":
        return job
    if ended_within(job, FINISH_WAIT_SECONDS):  # it was just finishing, or stopping after a cancel
        return None
    raise Conflict(STILL_STOPPING, f"RQ job {job.id} still runs on worker {job.worker_name}")


def _pending_and_alive(document_id: int) -> Job | None:
    """Return the document's pending job; one whose worker is gone is ended first and its lock freed."""
    job = pending_job(document_id)
    if job is None or not worker_gone(job):
        return job
    abandon(job)
    free_lock(document_id)
    return None


def title_of(doc: Document) -> str:
    """The title a document's chunks are searched with: a page's title, else its file name without the ending."""
    return doc.title or Path(doc.name).stem


def _holder_name(doc: Document, sha256: str) -> str | None:
    """The name of an earlier document of the area holding this content (the import is refused), else None."""
    holder = Document.holder_of(doc.area_id, sha256, doc.id)
    return holder.display_name if holder is not None else None


def _pipeline_inputs(doc: Document, force: bool):
    """Return the pipeline's job and settings for a document, its file re-checked in the source volume."""
    from irisrag.ingest.ocr import OcrSettings
    from irisrag.ingest.pipeline import ImportJob, PipelineSettings
    from irisrag.ingest.stage import recheck_in_volume

    comps, config = components.get(), current_app.config
    # Re-checked here, at read time: a symlink swapped into the volume since is not followed out.
    path = recheck_in_volume(config["SRC_VOLUME_PATH"], Path(doc.directory) / doc.name)
    job = ImportJob(doc.id, doc.area_id, path, doc.kind, doc.sha256,
                    doc.chunk_count if doc.embedder_key == comps.embedder.key else 0, force, title_of(doc),
                    holder=lambda sha256: _holder_name(doc, sha256))
    settings = PipelineSettings(config["CHUNK_SIZE"], config["CHUNK_OVERLAP"], config["EMBEDDING_BATCH_SIZE"],
                                OcrSettings(config["OCR_LANGUAGES"], config["OCR_PAGE_TIMEOUT"]),
                                config["IMPORT_WRITE_ROWS"])
    return job, settings


def import_document(document_id: int, force: bool = False, *, use_lock: bool = True, lock=None) -> dict:
    """Run the pipeline for one document (the RQ task; the CLI's --sync calls it in-process).

    ``lock``: the document's lock, already held by the caller (a fetch), who releases it. In a
    worker, the short documents queued next are imported in the same work horse afterwards
    (``chain``); their results are under ``chained``.
    """
    began = time.monotonic()
    result = _import_one(document_id, force, use_lock=use_lock, lock=lock)
    if lock is None and use_lock and chain.in_worker():
        result["chained"] = chain.run_queued(_import_one, document_id, began)
    return result


def _import_one(document_id: int, force: bool = False, *, use_lock: bool = True, lock=None) -> dict:
    """Import one document: its lock, progress, pipeline, upkeep and final row."""
    from irisrag.ingest.pipeline import run_import

    with db.connection_context():
        doc = Document.get_or_none(Document.id == document_id)
        if doc is None:
            return {"document_id": document_id, "status": "deleted"}
        held = lock is not None
        lock = lock if held else document_lock(document_id) if use_lock else NoLock()
        if not held and not lock.acquire():
            raise Conflict(N_("This document is being imported by another job."), f"document {document_id}")
        if use_lock and job_id() == "-":
            forget_ended_job(document_id)
        progress = RowProgress(document_id, lock)
        comps = components.get()
        began = time.monotonic()
        log.info("job_start document_id=%s job=%s task=import force=%s", document_id, job_id(), force)
        try:
            job, settings = _pipeline_inputs(doc, force)
            result = run_import(job, embedder=comps.embedder, store=comps.store, settings=settings, progress=progress)
            # Indexes current for hybrid retrieval; a failure here is logged, never fails the import.
            upkeep = (maintain_after_import(use_lock=use_lock, document_id=document_id)
                      if result.status == "done" else None)
        except ImportStopped:
            log.info("job_stopped document_id=%s job=%s stage=%s", document_id, job_id(), progress.stage or "-")
            return {"document_id": document_id, "status": Document.get_by_id(document_id).status}
        except BaseException as exc:
            log.warning("job_failed document_id=%s job=%s stage=%s error=%s ms=%.0f", document_id, job_id(),
                        progress.stage or "-", type(exc).__name__, (time.monotonic() - began) * 1000)
            record_failure(document_id, exc, progress.stage)
            raise
        finally:
            if not held:
                release(lock)
        Document.mark_finished(document_id, result.status, sha256=result.sha256, size_bytes=result.size_bytes,
                               chunk_count=result.chunks, embedder_key=comps.embedder.key, imported_at=utcnow(),
                               progress_done=result.chunks, progress_total=result.chunks)
        log.info("job_done document_id=%s job=%s status=%s chunks=%d ms=%.0f", document_id, job_id(),
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
        lock = document_lock(document_id) if use_lock else NoLock()
        if not lock.acquire():
            no_retry_unless_network(None)
            raise Conflict(N_("This document is being imported by another job."), f"document {document_id}")
        try:
            if not fetch_and_stage(doc, lock):  # cancelled (or failed) before it began: nothing to do
                return {"document_id": document_id, "status": Document.get_by_id(document_id).status}
            return import_document(document_id, force, use_lock=use_lock, lock=lock)
        finally:
            release(lock)
