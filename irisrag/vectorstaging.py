"""Replace a large document's chunks batch by batch, visible all at once: the staged write.

Part of the vector store (with ``vectorstore.py``, ``vectortables.py``, ``vectorindex.py``).
``VectorStore.replace_document`` writes a document in one commit, so the whole document (rows
and vectors) is in memory for that commit and LanceDB's merge needs several times as much
again. For a document of thousands of chunks ``StagedReplacement`` writes each batch as it
is ready, as its own append, under a *staging area*, and makes them visible in one commit
at the end:

* Every staged row carries ``area_id = -generation``, a negative number unique to this
  import (microseconds since the epoch). Every reader of the store filters on areas: search
  and full-text search prefilter on the caller's areas (ids of real areas are positive),
  ``chunks_of``, ``count_by_document``, ``count`` and ``set_area`` on ``area_id >= 0``. So
  staged rows are never seen, and no schema change is needed: the filter readers already
  pay for (with the BITMAP index on ``area_id`` on large tables) is the visibility flag.
* ``commit`` is one LanceDB ``update``: the staged rows get the document's area and the
  document's visible (old) rows get ``RETIRED_AREA``, in the same version, so a reader sees
  all old chunks or all new ones, never a mix. A second commit deletes the retired rows and
  any leftovers of earlier imports of the document that died (killed work horse).
* ``abort`` (any failure before or during ``commit``) deletes this import's staged rows;
  the old chunks were never touched.

Hidden rows that nobody cleaned up (a worker killed between its batches, a backup taken
during an import) stay invisible; the next import or deletion of the document removes them,
and so does the periodic upkeep pass (``purge_hidden``) once they are older than a day.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import numpy as np

from irisrag import vectorindex as upkeep

log = logging.getLogger(__name__)
RETIRED_AREA = -1  # old rows between the switch and their deletion
VISIBLE = "area_id >= 0"


def new_generation() -> int:
    """Return a fresh generation number: microseconds since the epoch (> 1, so -generation < RETIRED_AREA)."""
    return time.time_ns() // 1000


def purge_hidden(table: Any, older_than: timedelta = timedelta(days=1)) -> int:
    """Delete retired rows and staged rows of imports begun before ``older_than``; return how many."""
    if table is None:
        return 0
    cutoff = new_generation() - int(older_than.total_seconds() * 1_000_000)
    where = f"area_id < 0 AND area_id > {-cutoff}"
    found = table.count_rows(where)
    if found:
        upkeep.retry(lambda: table.delete(where))
        log.info("rows=%d event=hidden_rows_purged", found)
    return found


class StagedReplacement:
    """Write one document's new chunks in batches; ``commit`` shows them, ``abort`` drops them.

    Obtained from ``VectorStore.staged_replacement``. Chunk indices must be unique across all
    batches (the chunker numbers them from 0).
    """

    def __init__(self, store: Any, document_id: int, area_id: int) -> None:
        self.store = store
        self.document_id = int(document_id)
        self.area_id = int(area_id)
        self.generation = new_generation()
        self.rows = 0
        self._last_index = -1
        self._table: Any = None
        self._done = False

    @property
    def staging_area(self) -> int:
        """Return the area id the staged rows carry until the commit."""
        return -self.generation

    def _where(self, condition: str) -> str:
        return f"document_id = {self.document_id} AND {condition}"

    def add(self, chunks: Sequence[Any], vectors: np.ndarray) -> None:
        """Append one batch of chunks (checked, normalised vectors) as staged rows: one LanceDB commit."""
        if self._done:
            raise RuntimeError("staged replacement already committed or aborted")
        if not chunks:
            return
        indices = [int(c.index) for c in chunks]
        if indices != sorted(set(indices)) or indices[0] <= self._last_index:
            raise ValueError(f"document {self.document_id}: chunk indices not increasing across batches")
        rows = self.store.arrow_rows(self.document_id, self.staging_area, chunks, vectors,
                                     id_suffix=f"@{self.generation}")
        if self._table is None:
            self._table = self.store.table(create=True)
        table = self._table
        upkeep.retry(lambda: table.add(rows))
        self.rows += len(chunks)
        self._last_index = indices[-1]

    def commit(self) -> int:
        """Show the staged rows and hide the old ones in one commit, then delete the old ones; return the rows."""
        if self._done:
            raise RuntimeError("staged replacement already committed or aborted")
        if not self.rows:
            raise ValueError(f"document {self.document_id}: nothing staged to commit")
        table, staged = self._table, self.staging_area
        # area := area for staged rows, RETIRED_AREA for the old ones (Lance has no CASE in updates).
        expression = f"{self.area_id - RETIRED_AREA} * CAST(area_id = {staged} AS BIGINT) + {RETIRED_AREA}"
        upkeep.retry(lambda: table.update(where=self._where(f"({VISIBLE} OR area_id = {staged})"),
                                          values_sql={"area_id": expression}))
        self._done = True
        try:
            upkeep.retry(lambda: table.delete(self._where("area_id < 0")))
        except Exception as exc:  # hidden already: the next import, deletion or upkeep pass removes them
            log.warning("document_id=%s event=retired_rows_left error=%s", self.document_id, str(exc)[:200])
        log.debug("document_id=%s rows=%d event=staged_committed", self.document_id, self.rows)
        return self.rows

    def abort(self) -> None:
        """Delete this import's staged rows (best effort; they are invisible either way)."""
        if self._done:
            return
        self._done = True
        if self._table is None:
            return
        try:
            upkeep.retry(lambda: self._table.delete(self._where(f"area_id = {self.staging_area}")))
        except Exception as exc:
            log.warning("document_id=%s event=staged_rows_left error=%s", self.document_id, str(exc)[:200])
