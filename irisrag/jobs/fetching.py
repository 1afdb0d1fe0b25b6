"""A URL document's fetch: download the page or file, stage it, and point the row at the staged file."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from flask import current_app

from irisrag.jobs.heartbeat import Heartbeat
from irisrag.jobs.progress import job_id, record_failure
from irisrag.models import Document
from irisrag.models.base import utcnow
from irisrag.services.documents.registration import upload_root

log = logging.getLogger("irisrag.jobs.documents")  # the import job's log lines, as before the split


def fetch_and_stage(doc: Document, lock) -> bool:
    """Fetch the document's URL, stage it, and point the row at the staged file (False: the row may not run)."""
    document_id = doc.id
    if not Document.mark_stage(document_id, "fetching"):
        return False
    began = time.monotonic()
    log.info("job_stage document_id=%s job=%s stage=fetching previous=- previous_ms=0", document_id, job_id())
    try:
        path, kind, title = _fetch(doc, lock)
    except BaseException as exc:
        log.warning("job_failed document_id=%s job=%s stage=fetching error=%s ms=%.0f", document_id, job_id(),
                    type(exc).__name__, (time.monotonic() - began) * 1000)
        record_failure(document_id, exc, "fetching")
        no_retry_unless_network(exc)
        raise
    Document.update(name=path.name, directory=str(path.parent), kind=kind, title=title,
                    updated_at=utcnow()).where(Document.id == document_id).execute()
    _drop_flat_copy(Path(doc.directory) / doc.name, path, upload_root())
    return True


def _fetch(doc: Document, lock) -> tuple[Path, str, str]:
    """Download the URL (the lock and row kept fresh meanwhile) and stage it; return path, kind and title."""
    from irisrag.ingest.fetch import fetch_url
    from irisrag.ingest.stage import stage_bytes

    config = current_app.config
    with Heartbeat(doc.id, lock, max(0.2, config["IMPORT_STALE_SECONDS"] / 4)):
        fetched = fetch_url(doc.source_url, timeout=config["URL_TIMEOUT"], max_bytes=config["MAX_UPLOAD_BYTES"],
                            allowlist=config["URL_ALLOWLIST"], total_timeout=config["URL_TOTAL_TIMEOUT"])
    staged = staged_form(fetched, doc.source_url)
    return stage_bytes(upload_root(), "url", staged.name, staged.content, area_id=doc.area_id), staged.kind, staged.title


@dataclass(frozen=True)
class Staged:
    """A fetched body as it is staged: its file name, kind, bytes (a page as Markdown) and title."""

    name: str
    kind: str
    content: bytes
    title: str


def staged_form(fetched, url: str) -> Staged:
    """Return what is staged for a fetched body (a URL import's and a source sync's pages alike)."""
    from irisrag.ingest.fetch import STAGED_EXTENSIONS
    from irisrag.ingest.sniff import SNIFF_BYTES, check_content
    from irisrag.ingest.stage import url_file_name

    kind = "text" if fetched.kind == "html" else fetched.kind  # pages are staged as Markdown
    content = fetched.content if fetched.kind != "html" else _html_to_markdown(fetched)
    title = _page_title(fetched) if fetched.kind == "html" else ""
    name = url_file_name(url, kind, STAGED_EXTENSIONS.get(fetched.mime_type))
    check_content(name, kind, content[:SNIFF_BYTES])
    return Staged(name, kind, content, title)


def _drop_flat_copy(old: Path, new: Path, root: Path) -> None:
    """Remove the page an older version staged flat in ``url/`` once the area's folder holds it."""
    if old != new and old.parent == root / "url":
        old.unlink(missing_ok=True)


def no_retry_unless_network(exc: BaseException | None) -> None:
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
