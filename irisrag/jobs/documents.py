"""Document import jobs: enqueue once per document, run the pipeline, record progress on the row.

Jobs take ids. Progress lives on the Document row (status, done/total), not in job.meta.
Failures are recorded on the row with a technical detail and re-raised so RQ's failed
registry sees them. Only network fetches are retried.
"""
from __future__ import annotations

import logging
import time
import traceback
from pathlib import Path

from flask import current_app
from rq import Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job

from irisrag import components
from irisrag.errors import Conflict, IrisRagError
from irisrag.extensions import db
from irisrag.jobs.queue import enqueue
from irisrag.models import Document
from irisrag.models.base import utcnow

log = logging.getLogger(__name__)
PENDING = ("queued", "started", "deferred", "scheduled")


def job_ids(document_id: int) -> tuple[str, str]:
    """Return the (fetch, import) job ids of a document."""
    return f"fetch-doc-{document_id}", f"import-doc-{document_id}"


def pending_job(document_id: int) -> Job | None:
    """Return the document's queued or running job, if any."""
    redis = components.get().redis
    for job_id in job_ids(document_id):
        try:
            job = Job.fetch(job_id, connection=redis)
        except NoSuchJobError:
            continue
        if job.get_status(refresh=False) in PENDING:
            return job
    return None


def enqueue_document(document_id: int, *, fetch: bool, force: bool = False) -> Job | None:
    """Queue the document's job unless one is already pending (double clicks do nothing twice)."""
    if pending_job(document_id) is not None:
        return None
    fetch_id, import_id = job_ids(document_id)
    if fetch:
        return enqueue(fetch_document, document_id, force, job_id=fetch_id,
                       retry=Retry(max=2, interval=[5, 30]), failure_ttl=7 * 86400)
    return enqueue(import_document, document_id, force, job_id=import_id, failure_ttl=7 * 86400)


class RowProgress:
    """Write stage and done/total to the Document row, at most every 0.5 s within a stage."""

    def __init__(self, document_id: int) -> None:
        self.document_id = document_id
        self._last = (None, 0.0)

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        last_stage, last_time = self._last
        if stage == last_stage and now - last_time < 0.5 and done < total:
            return
        self._last = (stage, now)
        Document.update(status=stage, progress_done=done, progress_total=total, updated_at=utcnow()).where(
            Document.id == self.document_id).execute()


def record_failure(document_id: int, exc: BaseException, stage: str | None = None) -> None:
    """Store a failure's message and technical detail on the row."""
    if isinstance(exc, IrisRagError):
        message, detail = exc.message, exc.detail
    else:
        message, detail = "The import failed unexpectedly.", ""
    tail = "".join(traceback.format_exception(exc)[-3:])
    detail = "\n".join(part for part in (f"stage: {stage}" if stage else "", detail, tail) if part)
    Document.update(status="failed", error=message, error_detail=detail[:8000], updated_at=utcnow()).where(
        Document.id == document_id).execute()


def _lock(document_id: int):
    timeout = current_app.config["JOB_TIMEOUT"] + 60
    return components.get().redis.lock(f"irisrag:lock:doc:{document_id}", timeout=timeout, blocking_timeout=0)


def import_document(document_id: int, force: bool = False) -> dict:
    """Run the pipeline for one document (the RQ task)."""
    from irisrag.ingest.pipeline import ImportJob, PipelineSettings, run_import

    with db.connection_context():
        doc = Document.get_or_none(Document.id == document_id)
        if doc is None:
            return {"document_id": document_id, "status": "deleted"}
        lock = _lock(document_id)
        if not lock.acquire():
            raise Conflict("This document is being imported by another job.", f"document {document_id}")
        progress = RowProgress(document_id)
        comps, config = components.get(), current_app.config
        try:
            job = ImportJob(doc.id, doc.area_id, Path(doc.directory) / doc.name, doc.kind, doc.sha256,
                            doc.chunk_count if doc.embedder_key == comps.embedder.key else 0, force)
            settings = PipelineSettings(config["CHUNK_SIZE"], config["CHUNK_OVERLAP"], config["EMBEDDING_BATCH_SIZE"])
            result = run_import(job, embedder=comps.embedder, store=comps.store, settings=settings, progress=progress)
        except BaseException as exc:
            record_failure(document_id, exc, progress._last[0])
            raise
        finally:
            lock.release()
        Document.update(status=result.status, sha256=result.sha256, size_bytes=result.size_bytes,
                        chunk_count=result.chunks, embedder_key=comps.embedder.key, imported_at=utcnow(),
                        progress_done=result.chunks, progress_total=result.chunks, error=None, error_detail=None,
                        updated_at=utcnow()).where(Document.id == document_id).execute()
        return {"document_id": document_id, "status": result.status, "chunks": result.chunks,
                "timings": result.timings}


def fetch_document(document_id: int, force: bool = False) -> dict:
    """Fetch a URL document into <upload root>/url/ (retried on network errors), then import it."""
    from irisrag.ingest.fetch import fetch_url
    from irisrag.ingest.stage import stage_bytes, url_file_name
    from irisrag.services.documents import upload_root

    with db.connection_context():
        doc = Document.get_or_none(Document.id == document_id)
        if doc is None:
            return {"document_id": document_id, "status": "deleted"}
        config = current_app.config
        Document.update(status="fetching", updated_at=utcnow()).where(Document.id == document_id).execute()
        try:
            fetched = fetch_url(doc.source_url, timeout=config["URL_TIMEOUT"], max_bytes=config["MAX_UPLOAD_BYTES"],
                                allowlist=config["URL_ALLOWLIST"])
            kind = "pdf" if fetched.kind == "pdf" else "html" if fetched.kind == "html" else "text"
            content = fetched.content if kind != "html" else _html_to_markdown(fetched)
            name = url_file_name(doc.source_url, "pdf" if kind == "pdf" else "html")
            path = stage_bytes(upload_root(), "url", name, content)
        except BaseException as exc:
            record_failure(document_id, exc, "fetching")
            raise
        Document.update(name=path.name, directory=str(path.parent), kind="pdf" if kind == "pdf" else "text",
                        updated_at=utcnow()).where(Document.id == document_id).execute()
    return import_document(document_id, force)


def _html_to_markdown(fetched) -> bytes:
    from irisrag.ingest.extract_html import extract_html_bytes

    text = extract_html_bytes(fetched.content, url=fetched.final_url, charset=fetched.charset)
    return text.encode("utf-8")
