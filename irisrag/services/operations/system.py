"""The admin system page: queue, workers, failed jobs (with requeue), index state, disk use.

Every part is read on its own and reports its own failure, so the page still shows the
index and the disks while Redis is down, and the queue while LanceDB is unreadable.
"""
from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from flask import current_app
from peewee import fn

from irisrag import components
from irisrag.errors import Conflict, NotFound
from irisrag.i18n import N_
from irisrag.jobs import queue
from irisrag.jobs.queue import JobInfo
from irisrag.models import Document
from irisrag.services.operations import warmup
from irisrag.vectors import tables as vectortables

log = logging.getLogger(__name__)
T = TypeVar("T")
FAILED_SHOWN = 50
PRUNE_WINDOW = 200  # failed jobs looked at (and cleared when obsolete) per view of the page
SUPERSEDED = ("done", "unchanged")  # a later import of the document succeeded
UNREACHABLE = N_("The job queue (Redis) is not reachable.")
DOCUMENT_TASKS = ("irisrag.jobs.documents.import_document", "irisrag.jobs.documents.fetch_document")


@dataclass(frozen=True)
class WorkerView:
    name: str
    state: str
    last_heartbeat: datetime | None
    current_job: str | None


@dataclass(frozen=True)
class FailedJobView:
    id: str
    task: str
    document_id: int | None
    document_name: str | None
    ended_at: datetime | None
    error: str  # the last line of the traceback (for admins)


@dataclass(frozen=True)
class QueueView:
    name: str
    available: bool
    error: str | None = None
    queued: int = 0
    started: int = 0
    scheduled: int = 0
    deferred: int = 0
    failed_count: int = 0
    workers: tuple[WorkerView, ...] = ()
    failed: tuple[FailedJobView, ...] = ()


@dataclass(frozen=True)
class TableView:
    name: str
    rows: int
    version: int
    versions: int
    fulltext_index: bool
    in_use: bool  # the table of the configured embedder


@dataclass(frozen=True)
class IndexView:
    uri: str
    tables: tuple[TableView, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class DiskView:
    label: str
    path: str
    bytes: int | None
    files: int
    error: str | None = None


@dataclass(frozen=True)
class SystemView:
    queue: QueueView
    index: IndexView
    disks: tuple[DiskView, ...]
    documents: dict[str, int] = field(default_factory=dict)
    warmup: str | None = None      # this web process's warm-up: running | done | failed; None: none ran
    warmup_seconds: float | None = None


def _guarded(what: str, read: Callable[[], T], failed: Callable[[str], T]) -> T:
    try:
        return read()
    except Exception as exc:  # a status page shows what it cannot read; it never fails as a whole
        log.warning("system_read_failed part=%s error=%s", what, exc)
        return failed(f"{type(exc).__name__}: {exc}")


# --- queue ----------------------------------------------------------------------

def _document_id(job: JobInfo) -> int | None:
    if job.task in DOCUMENT_TASKS and job.args and isinstance(job.args[0], int):
        return job.args[0]
    return None


def _last_line(text: str | None) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1][:500] if lines else ""


def _failed_jobs() -> tuple[FailedJobView, ...]:
    jobs = queue.failed_jobs(PRUNE_WINDOW)
    documents = {d.id: d for d in Document.select(Document.id, Document.name, Document.status).where(
        Document.id.in_([i for i in (_document_id(j) for j in jobs) if i is not None] or [0]))}
    jobs = [j for j in jobs if not _obsolete(j, documents)][:FAILED_SHOWN]
    return tuple(FailedJobView(j.id, (j.task or "?").rsplit(".", 1)[-1], _document_id(j),
                               getattr(documents.get(_document_id(j)), "name", None), j.ended_at,
                               _last_line(j.error)) for j in jobs)


def _obsolete(job: JobInfo, documents: dict[int, Document]) -> bool:
    """Drop a failed job whose document was deleted, or has been imported since: nothing is left to retry."""
    document_id = _document_id(job)
    if document_id is None:
        return False
    doc = documents.get(document_id)
    if doc is not None and doc.status not in SUPERSEDED:
        return False
    queue.drop_failed(job.id)
    log.info("failed_job_cleared job=%s document_id=%s reason=%s", job.id, document_id,
             "document deleted" if doc is None else f"document {doc.status}")
    return True


def _workers() -> tuple[WorkerView, ...]:
    return tuple(WorkerView(w.name, w.state, w.last_heartbeat, w.current_job) for w in queue.workers())


def queue_view() -> QueueView:
    """Return the import queue's lengths, its workers and its recent failed jobs."""
    def read() -> QueueView:
        failed = _failed_jobs()
        counts = queue.counts()  # after the pruning, as before: the count shows what is left
        return QueueView(counts.name, True, None, counts.queued, counts.started, counts.scheduled,
                         counts.deferred, counts.failed, _workers(), failed)

    return _guarded("queue", read, lambda error: QueueView(components.get().config["QUEUE_NAME"], False, error))


def requeue_failed(job_id: str) -> str:
    """Put a failed job back on the queue (its document shows queued again); return what was requeued."""
    with queue.queue_errors(UNREACHABLE, with_url=False):
        _refuse_requeue_without_document(job_id)
        job = queue.requeue_failed(job_id)
    if job is None:
        raise NotFound(N_("There is no such failed job (it may have been requeued already)."), job_id)
    document_id = _document_id(job)
    if document_id is not None:
        Document.mark_queued(document_id)
    log.info("job_requeued job=%s document_id=%s", job.id, document_id)
    return (job.task or job.id).rsplit(".", 1)[-1] + (f" (document {document_id})" if document_id else "")


def _refuse_requeue_without_document(job_id: str) -> None:
    """Refuse (and clear) a failed job whose document is gone; refuse one whose document is importing."""
    job = queue.fetch(job_id)
    document_id = None if job is None else _document_id(job)  # no job: requeue_failed says so
    if document_id is None:
        return
    doc = Document.get_or_none(Document.id == document_id)
    if doc is None:
        queue.drop_failed(job_id)
        raise NotFound(N_("This job cannot run again: its document (id %(id)s) was deleted. It has been removed."),
                       params={"id": document_id})
    if doc.is_running:
        raise Conflict(N_("“%(name)s” is being imported right now; this old job was not requeued."),
                       params={"name": doc.name})


# --- index and disks --------------------------------------------------------------

def index_view() -> IndexView:
    """Return every LanceDB table with its rows, current version and number of kept versions."""
    comps = components.get()
    uri = comps.lancedb_uri()

    def read() -> IndexView:
        current = comps.store.table_name
        tables = tuple(TableView(t.name, t.rows, t.version, t.versions, t.fulltext, t.name == current)
                       for t in vectortables.describe_tables(comps.lancedb_connection()))
        return IndexView(uri, tables)

    return _guarded("index", read, lambda error: IndexView(uri, (), error))


def disk_use(path: Path) -> tuple[int, int]:
    """Return (bytes, files) below a path; a missing path uses nothing."""
    if path.is_file():
        return path.stat().st_size, 1
    total = count = 0
    for directory, _dirs, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
                count += 1
            except OSError:  # deleted while we looked
                continue
    return total, count


def _disk(label: str, path: Path | None, shown: str) -> DiskView:
    if path is None:
        return DiskView(label, shown, None, 0, "not a local path")

    def read() -> DiskView:
        size, files = disk_use(path)
        return DiskView(label, shown, size, files)

    return _guarded(f"disk:{label}", read, lambda error: DiskView(label, shown, None, 0, error))


def sqlite_path() -> Path | None:
    """Return the SQLite database file, None for PostgreSQL or an in-memory database."""
    from irisrag.extensions import db

    name = getattr(db.obj, "database", "")
    if type(db.obj).__name__ != "SqliteDatabase" or name in ("", ":memory:"):
        return None
    return Path(name)


def disk_views() -> tuple[DiskView, ...]:
    """Return the space used by the staged files, LanceDB and (SQLite) the database with its WAL."""
    from irisrag.services.documents.documents import upload_root

    uri = components.get().lancedb_uri()
    lance = None if "://" in uri else Path(uri)
    views = [_disk("staging", upload_root(), str(upload_root())), _disk("lancedb", lance, uri)]
    database = sqlite_path()
    if database is not None:
        parts = [_disk("database", Path(f"{database}{suffix}"), str(database)) for suffix in ("", "-wal", "-shm")]
        sizes = [p.bytes for p in parts if p.bytes is not None]
        views.append(DiskView("database", str(database), sum(sizes), sum(p.files for p in parts)))
    return tuple(views)


def system_view() -> SystemView:
    """Return everything the system page shows."""
    counts = Counter({row.status: row.count for row in Document.select(
        Document.status, fn.COUNT(Document.id).alias("count")).group_by(Document.status)})
    warming = warmup.state_of(current_app)
    return SystemView(queue_view(), index_view(), disk_views(), dict(sorted(counts.items())),
                      warming.state if warming else None, warming.seconds if warming else None)


def _chunk_tables() -> list[tuple[str, Any]]:
    """Return (name, table) of every chunk table; none for a new installation (and no folder made for it here)."""
    comps = components.get()
    uri = comps.lancedb_uri()
    if "://" not in uri and not Path(uri).is_dir():
        return []
    connection = comps.lancedb_connection()
    return [(name, connection.open_table(name)) for name in vectortables.table_names(connection)
            if name.startswith(vectortables.TABLE_PREFIX)]


def add_search_text() -> list[str]:
    """Give every chunk table made before the search text column that column (``flask rag init-db``); their names."""
    from irisrag.vectors import index as vectorindex

    language = vectorindex.fulltext_language(components.get().config["FTS_LANGUAGE"])
    return [name for name, table in _chunk_tables() if vectorindex.add_search_text(table, language)]


def add_boilerplate() -> list[str]:
    """Give every chunk table made before the navigation mark that column (``flask rag init-db``); their names."""
    from irisrag.vectors import index as vectorindex

    return [name for name, table in _chunk_tables() if vectorindex.add_boilerplate(table)]
