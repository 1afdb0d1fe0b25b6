"""Replace a large document's chunks batch by batch, visible all at once: the staged write.

Part of the vector store (with ``vectorstore.py``, ``vectortables.py``, ``vectorindex.py``).
``VectorStore.replace_document`` writes a document in one commit, so the whole document (rows
and vectors) is in memory for that commit and LanceDB's merge needs several times as much
again. ``StagedReplacement`` writes each batch as it is ready and shows all of them at once,
without ever holding or rewriting the whole document in one operation:

1. **Staging.** Every batch is an append whose rows carry ``area_id = -generation``, a negative
   number unique to this import (microseconds since the epoch). Readers only ever see rows
   of areas they ask for (ids of real areas are positive) or, without areas, ``area_id >= 0``:
   staged rows are invisible, and no schema change is needed.
2. **Switch** (one commit, metadata only). A key ``irisrag:staged:<generation>`` =
   ``<document>:<area>:switching`` in the metadata of the ``area_id`` field tells every reader
   to show the staged rows as the document's, in its area, and to hide the document's other
   rows. Readers read this metadata before their query (``Visibility.of``); both come from
   the same sequence of table versions and a reader never reads an older version after a
   newer one, so whoever sees the key sees every staged row, and whoever does not sees the
   old rows: all old chunks or all new ones, never a mix.
3. **Settling** (no change to what readers see): the old rows are deleted (deletion vectors,
   nothing rewritten), the key becomes ``...:shown`` (nothing to hide any more), the staged
   rows get the real area in updates of at most ``write_rows`` rows each, and the key is
   removed. If the work horse dies during settling, the next import of the document or the
   next upkeep pass (``settle_all``) finishes it; readers are right meanwhile.

``abort`` (a failure before the switch) deletes the staged rows; the old chunks were never
touched. Staged rows of an import that died before its switch are invisible; the next import
or deletion of the document removes them, and so does the periodic upkeep pass
(``purge_hidden``) once they are older than a day.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

import numpy as np

from irisrag.vectors import index as upkeep

log = logging.getLogger(__name__)
FIELD = "area_id"
KEY_PREFIX = "irisrag:staged:"
SWITCHING, SHOWN = "switching", "shown"
METADATA_ATTEMPTS = 8
READ_ATTEMPTS = 4
T = TypeVar("T")


def new_generation() -> int:
    """Return a fresh generation number: microseconds since the epoch."""
    return time.time_ns() // 1000


def _ids(values: Iterable[int]) -> str:
    return ", ".join(str(int(v)) for v in values)


@dataclass(frozen=True)
class Entry:
    """One switched import: its rows carry ``-generation`` until settled into ``area``."""

    generation: int
    document_id: int
    area_id: int
    phase: str

    @property
    def staging_area(self) -> int:
        return -self.generation

    @property
    def key(self) -> str:
        return f"{KEY_PREFIX}{self.generation}"

    def value(self, phase: str | None = None) -> str:
        return f"{self.document_id}:{self.area_id}:{phase or self.phase}"


def _entries(table: Any) -> list[Entry]:
    """Return the switched imports recorded in the table's metadata (as of its current version)."""
    metadata = table.schema.field(FIELD).metadata or {}
    found = []
    for key, value in metadata.items():
        key, value = key.decode(), value.decode()
        if key.startswith(KEY_PREFIX):
            document_id, area_id, phase = value.split(":")
            found.append(Entry(int(key[len(KEY_PREFIX):]), int(document_id), int(area_id), phase))
    return found


@dataclass(frozen=True)
class Visibility:
    """What a reader may see at the table version it read: the filter and the staged areas' real areas."""

    entries: tuple[Entry, ...] = ()

    @classmethod
    def of(cls, table: Any) -> Visibility:
        """Read the visibility of the table's current version (before querying it)."""
        return cls(tuple(_entries(table)))

    def where(self, areas: Sequence[int] | None = None) -> str:
        """Return the filter of visible rows (in ``areas`` when given; areas are non-negative ints)."""
        base = "area_id >= 0" if areas is None else f"area_id IN ({_ids(areas)})"
        hidden = sorted({e.document_id for e in self.entries if e.phase == SWITCHING})
        if hidden:
            base = f"({base} AND document_id NOT IN ({_ids(hidden)}))"
        staged = [e.staging_area for e in self.entries if areas is None or e.area_id in set(areas)]
        return f"({base} OR area_id IN ({_ids(staged)}))" if staged else base

    def area(self, stored: int) -> int:
        """Return the real area of a row read with this visibility (staged rows carry -generation)."""
        if stored >= 0:
            return stored
        return next((e.area_id for e in self.entries if e.staging_area == stored), stored)


def read(table: Any, query: Callable[[Visibility], T]) -> tuple[Visibility, T]:
    """Run ``query`` with the visibility of the table version it reads; return both.

    A handle refreshes itself (the read consistency interval), so a writer's commit can land
    between reading the metadata and running the query: a view older than the rows could then
    hide settled rows or miss deleted ones. The table version is compared before and after,
    and the read is repeated when it moved (a handle refreshes at most once per interval).
    """
    for _attempt in range(READ_ATTEMPTS):
        version = table.version
        visible = Visibility.of(table)
        result = query(visible)
        if table.version == version:
            break
    return visible, result


def _set_metadata(table: Any, updates: dict[str, str | None]) -> None:
    """Commit metadata keys (None deletes one); a concurrent metadata commit is retried on the latest version."""
    for attempt in range(METADATA_ATTEMPTS):
        try:
            table.checkout_latest()
            table.update_field_metadata({"path": FIELD, "metadata": updates})
            return
        except Exception as exc:
            text = str(exc).lower()
            if not any(word in text for word in ("incompatible", "conflict", "retryable")) \
                    or attempt == METADATA_ATTEMPTS - 1:
                raise
            time.sleep(0.05 * 2 ** attempt)


def settle(table: Any, entry: Entry, write_rows: int = 512) -> None:
    """Finish a switched import: delete the old rows, give the staged rows their area, drop the key.

    Idempotent; readers see the same rows before, during and after it.
    """
    staged = entry.staging_area
    upkeep.retry(lambda: table.delete(f"document_id = {entry.document_id} AND area_id != {staged}"))
    if entry.phase == SWITCHING:
        _set_metadata(table, {entry.key: entry.value(SHOWN)})
    found = table.search().where(f"area_id = {staged}").select(["chunk_index"]).limit(None).to_arrow()
    indices = np.sort(found.column("chunk_index").to_numpy())  # n small ints, not the rows
    for start in range(0, len(indices), max(1, int(write_rows))):  # each update rewrites a bounded slice
        low, high = int(indices[start]), int(indices[min(start + write_rows, len(indices)) - 1])
        where = f"area_id = {staged} AND chunk_index >= {low} AND chunk_index <= {high}"
        upkeep.retry(lambda where=where: table.update(where=where, values={"area_id": entry.area_id}))
    _set_metadata(table, {entry.key: None})


def settle_all(table: Any, document_ids: Iterable[int] | None = None, write_rows: int = 512) -> int:
    """Settle every switched import (of these documents when given); return how many."""
    if table is None:
        return 0
    table.checkout_latest()  # a writer's handle may be behind: settle what is recorded now
    wanted = None if document_ids is None else {int(d) for d in document_ids}
    entries = [e for e in _entries(table) if wanted is None or e.document_id in wanted]
    for entry in entries:
        settle(table, entry, write_rows)
        log.info("document_id=%s generation=%s event=staged_settled", entry.document_id, entry.generation)
    return len(entries)


def forget_document(table: Any, document_id: int) -> None:
    """Drop the switch records of a deleted document (its rows are gone already)."""
    if table is not None:
        keys = {e.key: None for e in _entries(table) if e.document_id == int(document_id)}
        if keys:
            _set_metadata(table, keys)


def purge_hidden(table: Any, older_than: timedelta = timedelta(days=1)) -> int:
    """Delete staged rows that no switch will show (imports begun before ``older_than``); return how many."""
    if table is None:
        return 0
    cutoff = new_generation() - int(older_than.total_seconds() * 1_000_000)
    table.checkout_latest()
    switched = [e.staging_area for e in _entries(table)]
    where = f"area_id < 0 AND area_id > {-cutoff}" + (f" AND area_id NOT IN ({_ids(switched)})" if switched else "")
    found = table.count_rows(where)
    if found:
        upkeep.retry(lambda: table.delete(where))
        log.info("rows=%d event=hidden_rows_purged", found)
    return found


class StagedReplacement:
    """Write one document's new chunks in batches; ``commit`` shows them, ``abort`` drops them.

    Obtained from ``VectorStore.staged_replacement``. Chunk indices must be increasing across
    batches (the chunker numbers them from 0).
    """

    def __init__(self, store: Any, document_id: int, area_id: int, write_rows: int = 512) -> None:
        self.store = store
        self.entry = Entry(new_generation(), int(document_id), int(area_id), SWITCHING)
        self.write_rows = write_rows
        self.rows = 0
        self._last_index = -1
        self._table: Any = None
        self._done = False

    def _check_open(self) -> None:
        if self._done:
            raise RuntimeError("staged replacement already committed or aborted")

    def add(self, chunks: Sequence[Any], vectors: np.ndarray) -> None:
        """Append one batch of chunks (checked, normalised vectors) as staged rows: one LanceDB commit."""
        self._check_open()
        if not chunks:
            return
        indices = [int(c.index) for c in chunks]
        if indices != sorted(set(indices)) or indices[0] <= self._last_index:
            raise ValueError(f"document {self.entry.document_id}: chunk indices not increasing across batches")
        rows = self.store.arrow_rows(self.entry.document_id, self.entry.staging_area, chunks, vectors,
                                     id_suffix=f"@{self.entry.generation}")
        if self._table is None:
            self._table = self.store.table(create=True)
        table = self._table
        upkeep.retry(lambda: table.add(rows))
        self.rows += len(chunks)
        self._last_index = indices[-1]

    def commit(self) -> int:
        """Show the staged rows in one metadata commit, then settle them; return the rows.

        Once the switch is committed the import has succeeded: a failure while settling is
        logged and left to the next import of the document or the next upkeep pass.
        """
        self._check_open()
        if not self.rows:
            raise ValueError(f"document {self.entry.document_id}: nothing staged to commit")
        self._table.checkout_latest()
        earlier = [e for e in _entries(self._table) if e.document_id == self.entry.document_id]
        # One commit: this import shown, an earlier unsettled one of the document hidden again.
        _set_metadata(self._table, {self.entry.key: self.entry.value(), **{e.key: None for e in earlier}})
        self._done = True
        try:
            settle(self._table, self.entry, self.write_rows)
        except Exception as exc:  # readers are right already; upkeep finishes it
            log.warning("document_id=%s event=staged_unsettled error=%s", self.entry.document_id, str(exc)[:200])
        return self.rows

    def abort(self) -> None:
        """Delete this import's staged rows (best effort; they are invisible either way)."""
        if self._done:
            return
        self._done = True
        if self._table is None:
            return
        try:
            upkeep.retry(lambda: self._table.delete(
                f"document_id = {self.entry.document_id} AND area_id = {self.entry.staging_area}"))
        except Exception as exc:
            log.warning("document_id=%s event=staged_rows_left error=%s", self.entry.document_id, str(exc)[:200])
