"""A local copy of one LanceDB table that lives on an object store, for a web process's reads.

Why: a question on S3 sends ~950 ranged GETs (one per candidate row and column), and they
hardly repeat from one question to the next, so no request cache helps (bench/README.md,
"Requests per question on S3"). Lance's files never change once written: data fragments,
deletion files, index files, transaction files and the manifests in ``_versions/`` are only
added (a new version) or deleted (compaction and version cleanup). So a process can read a
local copy of the table's directory and keep it current by downloading the files it lacks.

``TableMirror.sync`` (every half ``interval`` in a daemon thread, and at once after this
process wrote to the table):

1. LIST the table's prefix on the store (one request when nothing changed);
2. download what is missing locally (by name, size and the store's modification time, which the
   copy keeps: a table dropped and made again reuses the manifests' names), each to a ``.part``
   name and then renamed, the manifests last: a manifest never lies on disk before the files it names;
3. open the newest local version (a handle that never moves by itself), then
4. delete the local files the store no longer has (only versions older than upkeep's cleanup
   age refer to them, never the version just opened).

The copy lies in ``directory/<hash of the store's URI>/<table>.lance``. Several processes on one
machine may share it: a sync holds an exclusive file lock, so one process downloads a file and
the others find it there, and a process whose turn comes less than half an interval after
another's LIST reuses that LIST (``.listed``): a machine LISTs about twice an interval, however
many web processes it runs. ``latest_version_hint.json`` is
the one file Lance rewrites in place; it is not copied (Lance then lists ``_versions/``).

Reads use the mirror only while it is fresh: its last completed sync began less than
``interval`` ago (LanceDB's own bound for a reader: ``LANCEDB_READ_CONSISTENCY_SECONDS``), and
nothing was written through this process since (``invalidate``). Otherwise they go to the
store as before, so a stalled, slow or failing mirror costs speed, never staler answers than
reading the store. Writers (workers, the CLI, upkeep) keep writing to the store.
"""
from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.fs as pafs

from irisrag.vectors.objectstore import Location
from irisrag.vectors.tables import connect

log = logging.getLogger(__name__)
DIRECTORY = "lancedb-mirror"          # below the instance folder
VERSIONS = "_versions/"
MUTABLE = {"_versions/latest_version_hint.json"}   # rewritten in place by Lance: never copied
PART = ".part"
LOCK = ".lock"
LISTED = ".listed"   # when this machine's last complete sync LISTed (wall clock), for the other processes
DOWNLOAD_THREADS = 8
FIRST_SYNC_WAIT_SECONDS = 600.0       # the warm-up waits this long at most for the first copy


@dataclass(frozen=True)
class SyncReport:
    """What one sync did: files and bytes downloaded, files removed, the version now read (None: no table)."""

    fetched: int
    fetched_bytes: int
    removed: int
    version: int | None
    listed: bool = True   # False: another process's LIST of the last half interval was reused


def _remote_files(source: Location, below: str) -> dict[str, tuple[int, int]]:
    """Relative path -> (size, modification time in ns) of every object below a prefix: one LIST."""
    selector = pafs.FileSelector(below, recursive=True, allow_not_found=True)
    return {info.path[len(below) + 1:]: (info.size, info.mtime_ns or 0) for info in source.fs.get_file_info(selector)
            if info.type == pafs.FileType.File and info.path[len(below) + 1:] not in MUTABLE
            and inside(info.path[len(below) + 1:])}


def inside(name: str) -> bool:
    """Tell whether an object's relative name stays inside the copy (no ``..``, no absolute or empty part)."""
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and all(part not in ("", ".", "..") for part in parts)


def _local_files(root: Path) -> dict[str, tuple[int, int]]:
    """The same for the copy; leftover ``.part`` files of a dead sync are deleted."""
    found: dict[str, tuple[int, int]] = {}
    for path in root.rglob("*") if root.is_dir() else ():
        if not path.is_file():
            continue
        if path.name.endswith(PART):
            path.unlink(missing_ok=True)
            continue
        stat = path.stat()
        found[path.relative_to(root).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return found


def _manifests(table: Path) -> frozenset[str]:
    """The manifests of the copy (what another process's sync left), as names below the table."""
    folder = table / VERSIONS
    return frozenset(f"{VERSIONS}{p.name}" for p in folder.glob("*.manifest")) if folder.is_dir() else frozenset()


def _fetch_order(names: list[str]) -> list[str]:
    """Data, deletion and index files first, the manifests last."""
    return sorted(names, key=lambda name: (name.startswith(VERSIONS), name))


@contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class TableMirror:
    """One table of an object store, copied to ``directory/<table>.lance`` and kept current."""

    def __init__(self, source: Location, table_name: str, directory: Path, interval: float) -> None:
        self.source, self.table_name, self.directory = source, table_name, Path(directory)
        self.interval = max(float(interval), 0.1)
        self._prefix = f"{table_name}.lance"
        self._root = self.directory / hashlib.sha256(source.uri.encode()).hexdigest()[:16]
        self._local = self._root / self._prefix
        self._db: Any = None
        self._handle: Any = None
        self._manifests: frozenset[str] = frozenset()
        self._fresh_until = 0.0
        self._generation = 0
        self._written_at = 0.0
        self._wake = threading.Event()
        self._synced_once = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    # --- reading --------------------------------------------------------------

    def table(self) -> Any:
        """The mirrored table while it is fresh, else None (read the store instead)."""
        handle = self._handle
        return handle if handle is not None and time.monotonic() < self._fresh_until else None

    def invalidate(self) -> None:
        """This process wrote to the store: read the store until a sync that began after it completes."""
        self._written_at = time.time()
        self._generation += 1
        self._fresh_until = 0.0
        self._wake.set()

    def wait_first_sync(self, seconds: float = FIRST_SYNC_WAIT_SECONDS) -> bool:
        """Wait until the first sync ended (done or failed); True if it did within the time."""
        return self._synced_once.wait(seconds)

    # --- keeping it current -----------------------------------------------------

    def start(self) -> TableMirror:
        """Sync now and then every interval, in a daemon thread."""
        self._thread = threading.Thread(target=self._run, name="irisrag-lancedb-mirror", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """End the sync thread (tests; a web process's thread ends with it)."""
        self._stopped.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(30)

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                self.sync()
            except Exception as exc:  # the store is unreachable or a file vanished: reads use the store
                log.warning("table=%s event=mirror_sync_failed error=%s", self.table_name, exc)
            self._synced_once.set()
            self._wake.wait(self.interval / 2)   # fresh for one interval: sync twice in it
            self._wake.clear()

    def sync(self) -> SyncReport:
        """Bring the local copy up to the store's newest version and read that one from now on.

        A LIST another process of this machine made less than half an interval ago, and after
        this process last wrote, is reused: that process held the lock until its copy was complete.
        """
        generation = self._generation
        with _exclusive(self._root / LOCK):
            age = self._shared_list_age()
            if age is None:
                began, listed = time.monotonic(), time.time()
                report = self._copy()
                (self._root / LISTED).write_text(repr(listed))
            else:
                began = time.monotonic() - age
                report = SyncReport(0, 0, 0, self._reopen(_manifests(self._local)), listed=False)
        if generation == self._generation and report.version is not None:
            self._fresh_until = began + self.interval
        return report

    def _shared_list_age(self) -> float | None:
        """Seconds since this machine's last LIST when it can be reused, else None."""
        try:
            listed = float((self._root / LISTED).read_text())
        except (OSError, ValueError):
            return None
        age = time.time() - listed
        return age if 0 <= age < self.interval / 2 and listed > self._written_at else None

    def _copy(self) -> SyncReport:
        """LIST, download what is missing, open the newest version, delete what the store dropped."""
        remote = _remote_files(self.source, f"{self.source.root}/{self._prefix}")
        local = _local_files(self._local)
        missing = _fetch_order([name for name, stamp in remote.items() if local.get(name) != stamp])
        self._download(missing, remote)
        version = self._reopen(frozenset(name for name in remote if name.startswith(VERSIONS)))
        gone = [name for name in local if name not in remote]
        for name in gone:
            (self._local / name).unlink(missing_ok=True)
        report = SyncReport(len(missing), sum(remote[name][0] for name in missing), len(gone), version)
        if missing or gone:
            log.info("table=%s event=mirror_synced fetched=%d bytes=%d removed=%d version=%s", self.table_name,
                     report.fetched, report.fetched_bytes, report.removed, report.version)
        return report

    def _download(self, names: list[str], remote: dict[str, tuple[int, int]]) -> None:
        data = [name for name in names if not name.startswith(VERSIONS)]
        if data:
            with ThreadPoolExecutor(min(DOWNLOAD_THREADS, len(data))) as pool:
                list(pool.map(lambda name: self._download_one(name, remote[name][1]), data))
        for name in names[len(data):]:  # the manifests, after everything they name
            self._download_one(name, remote[name][1])

    def _download_one(self, name: str, mtime_ns: int) -> None:
        target = self._local / name
        part = target.with_name(target.name + PART)
        self.source.download(f"{self._prefix}/{name}", part)
        os.utime(part, ns=(mtime_ns, mtime_ns))   # the store's time: a rewritten object differs from its copy
        os.replace(part, target)

    def _reopen(self, manifests: frozenset[str]) -> int | None:
        """Open the newest local version when the versions changed; None when the table is gone."""
        if not manifests:
            self._handle, self._manifests = None, manifests
            return None
        if self._handle is None or manifests != self._manifests:
            if self._db is None:
                self._db = connect(str(self._root))  # no consistency interval: the handle moves only here
            self._handle, self._manifests = self._db.open_table(self.table_name), manifests
        return self._handle.version
