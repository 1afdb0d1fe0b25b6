"""Batch imports for the CLI (SPEC 3): many inputs at once, queued, followed to the end, or run in-process.

Each input becomes an ``Item``: a label and a ``prepare`` step that validates it and
registers its Document (returning whether the row is new). ``start`` then queues every
prepared document, or (``SYNC``) runs the import job in this process without a queue,
as the original's folder import did; ``follow`` polls the rows until the queued jobs have
ended. A bad input becomes a failed entry with its message and the rest continues.

Outcomes: ``new`` (the row was created by this import), ``updated`` (it existed and was
re-embedded, or, without waiting, re-queued), ``unchanged`` (same hash, nothing to do),
``failed`` (the import failed, or the input was refused before anything was queued).
"""
from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePath

from irisrag import components
from irisrag.errors import IrisRagError, NotFound, QueueUnavailable
from irisrag.extensions import db
from irisrag.i18n import N_, english_stored
from irisrag.ingest import stage
from irisrag.ingest.extract import SUPPORTED
from irisrag.jobs import queue
from irisrag.models import Area, Document
from irisrag.models.documents import RUNNING
from irisrag.services.documents import documents, registration

log = logging.getLogger(__name__)

QUEUE, WAIT, SYNC = "queue", "wait", "sync"
OUTCOMES = ("new", "updated", "unchanged", "failed")
POLL_SECONDS = 0.5

Progress = Callable[[int], None]
Prepared = tuple[Document, bool]


@dataclass(frozen=True)
class Item:
    """One input of a batch: what to show when it fails, and how to register its document."""

    label: str
    area: str
    prepare: Callable[[], Prepared]


@dataclass(frozen=True)
class Entry:
    """The state of one input after the run (``id`` is None when it was refused before registering)."""

    id: int | None
    name: str
    area: str
    status: str
    chunks: int
    error: str | None
    existed: bool

    @property
    def outcome(self) -> str:
        """Return new, updated, unchanged or failed."""
        if self.status == "failed" or self.error:
            return "failed"
        if self.status == "unchanged":
            return "unchanged"
        return "updated" if self.existed else "new"

    @property
    def running(self) -> bool:
        return self.id is not None and self.status in RUNNING and not self.error

    def as_dict(self) -> dict:
        """Return the ``--json`` form of the entry."""
        return {"id": self.id, "name": self.name, "area": self.area, "status": self.status,
                "chunks": self.chunks, "error": self.error}


@dataclass(frozen=True)
class Report:
    """The entries of a batch, plus folder files skipped for their type."""

    entries: tuple[Entry, ...]
    skipped: tuple[str, ...] = ()

    @property
    def summary(self) -> dict[str, int]:
        counts = dict.fromkeys(OUTCOMES, 0)
        for entry in self.entries:
            counts[entry.outcome] += 1
        return counts

    @property
    def failed(self) -> int:
        return self.summary["failed"]

    def as_dict(self) -> dict:
        """Return the ``--json`` document of the batch."""
        out = {"documents": [e.as_dict() for e in self.entries], "summary": self.summary}
        if self.skipped:
            out["skipped"] = list(self.skipped)
        return out


# --- inputs -------------------------------------------------------------------


def folder_files(folder: str | Path) -> tuple[list[Path], list[Path]]:
    """Return (supported, unsupported) files below a folder, sorted; hidden files and folders are left out."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise NotFound(N_("There is no folder at %(path)s."), params={"path": str(root)})
    found: list[Path] = []
    skipped: list[Path] = []
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(n for n in names if not n.startswith(".")):
            path = Path(directory) / name
            (found if PurePath(name).suffix.lower() in SUPPORTED else skipped).append(path)
    return found, skipped


def file_items(area_ident: str, paths: Iterable[str | Path]) -> list[Item]:
    """Return items for local files (anywhere on this machine)."""
    area = documents.area_of(area_ident)
    return [Item(str(p), area.name, lambda p=p: registration.local_file(area, p)) for p in paths]


def path_items(area_ident: str, texts: Iterable[str]) -> list[Item]:
    """Return items for paths relative to the source volume, or absolute original paths."""
    area = documents.area_of(area_ident)
    return [Item(t, area.name, lambda t=t: registration.volume_path(area, t)) for t in texts]


def url_items(area_ident: str, urls: Iterable[str]) -> list[Item]:
    """Return items for web addresses (fetched by the job into <upload root>/url/)."""
    area = documents.area_of(area_ident)
    return [Item(u, area.name, lambda u=u: registration.url(area, u)) for u in urls]


def read_url_list(lines: Iterable[str]) -> list[str]:
    """Return the URLs of a list file: one a line; blank lines and ``#`` comments are ignored."""
    return [s for s in (line.strip() for line in lines) if s and not s.startswith("#")]


def rebuild_items(document_id: int | None = None) -> list[Item]:
    """Return items to rebuild one document, or every document not being imported now (None)."""
    if document_id is not None:
        doc = documents.get_document(document_id)
        return [Item(doc.name, doc.area.name, lambda: registration.existing(document_id))]
    query = Document.select(Document, Area).join(Area).order_by(Document.id)
    return [Item(d.name, d.area.name, lambda i=d.id: registration.existing(i)) for d in query if not d.is_running]


# --- running ------------------------------------------------------------------


def redis_answers() -> bool:
    """Return whether the configured Redis answers a ping."""
    return queue.answers()


def workers_listening() -> int:
    """Return how many RQ workers listen on the import queue."""
    return queue.worker_count()


def entry_for(document_id: int, existed: bool, error: str | None = None) -> Entry:
    """Return the entry of a document as its row stands now."""
    doc = Document.select(Document, Area).join(Area).where(Document.id == document_id).get_or_none()
    if doc is None:
        return Entry(document_id, "?", "?", "failed", 0, "The document was deleted meanwhile.", existed)
    status = "failed" if error and doc.status != "failed" else doc.status
    message = english_stored(doc.error or error) if status == "failed" else None
    return Entry(doc.id, doc.name, doc.area.name, status, doc.chunk_count, message, existed)


def _run_now(doc: Document, force: bool, use_lock: bool) -> str | None:
    """Run the document's job in this process; return an error the row may not show."""
    from irisrag.jobs import documents as document_jobs

    job = document_jobs.fetch_document if doc.source_url else document_jobs.import_document
    Document.mark_queued(doc.id)  # the import starts here, as a queued job would; a running one was refused
    try:
        job(doc.id, force, use_lock=use_lock)
    except IrisRagError as exc:
        return exc.message
    except Exception as exc:  # the job recorded it on the row; the rest of the batch goes on
        log.warning("sync_import_failed document_id=%s error=%r", doc.id, exc)
        return "The import failed unexpectedly."
    return None


def _start_one(item: Item, mode: str, force: bool, use_lock: bool) -> Entry:
    try:
        doc, created = item.prepare()
    except IrisRagError as exc:
        return Entry(None, item.label, item.area, "failed", 0, exc.message, False)
    if mode == SYNC:
        return entry_for(doc.id, not created, _run_now(doc, force, use_lock))
    try:
        documents.queue_import(doc, force=force)
    except QueueUnavailable as exc:
        raise _queue_down(exc) from exc
    return entry_for(doc.id, not created)


def _queue_down(exc: Exception | None = None) -> QueueUnavailable:
    detail = getattr(exc, "detail", None) or (str(exc) if exc else components.get().config["REDIS_URL"])
    return QueueUnavailable(N_("The job queue (Redis) is not reachable, so the import could not be started."),
                            f"{detail}; use --sync to import without the queue")


def start(items: Sequence[Item], mode: str = QUEUE, *, force: bool = False,
          progress: Progress | None = None) -> Report:
    """Register every item and queue its job, or run it here (SYNC); a refused item fails alone."""
    if not items:
        return Report(())
    use_lock = redis_answers()  # in-process runs take the worker's lock when Redis is there
    if mode != SYNC and not use_lock:
        raise _queue_down()  # before anything is registered
    entries = []
    for item in items:
        entries.append(_start_one(item, mode, force, use_lock))
        if progress:
            progress(1)
    return Report(tuple(entries))


def follow(report: Report, *, timeout: float | None = None, progress: Progress | None = None,
           poll: float = POLL_SECONDS) -> Report:
    """Poll the rows of queued entries until each has a final status (or the timeout passes)."""
    entries = list(report.entries)
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        pending = [i for i, e in enumerate(entries) if e.running]
        if not pending:
            break
        with db.connection_context():
            for i in pending:
                entry = entry_for(entries[i].id, entries[i].existed)
                entries[i] = entry
                if not entry.running and progress:
                    progress(1)
        if not any(e.running for e in entries):
            break
        if deadline is not None and time.monotonic() > deadline:
            note = f"Still {{}} after {timeout:g} s; the job goes on in the background."
            entries = [replace(e, error=note.format(e.status)) if e.running else e for e in entries]
            break
        time.sleep(poll)
    return replace(report, entries=tuple(entries))


# --- stage and listing --------------------------------------------------------


def stage_file(path: str | Path) -> tuple[Path, str]:
    """Copy a file into the source volume; return (copy, original path to import it by)."""
    return stage.stage_into_volume(components.get().config["SRC_VOLUME_PATH"], Path(path).expanduser())


def source_of(doc: Document) -> str:
    """Return where a document came from: its URL, its original path, or its file."""
    return doc.source_url or doc.original_path or str(Path(doc.directory) / doc.name)
