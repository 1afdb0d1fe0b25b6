"""Everything LanceDB: schema, replace/delete a document's chunks, search with prefilter.

INTERFACE (fixed; other modules rely on it):

    @dataclass(frozen=True)
    class Hit:
        document_id: int
        area_id: int
        chunk_index: int
        page: int | None
        text: str
        score: float          # cosine similarity, higher is better
        rank: int             # 0-based rank in the search that produced it
        search_text: str = "" # what the full-text index read (title, compound parts); lexical_text: it, else text

    class VectorStore:
        def __init__(self, uri: str, model_key: str, dim: int, *, read_consistency_seconds: float | None = 2.0,
                     fts_language: str = "German", storage_options: Mapping[str, str] | None = None)
        def replace_document(self, document_id: int, area_id: int, chunks: Sequence[ChunkIn], vectors: np.ndarray) -> None
        def delete_document(self, document_id: int) -> None
        def search(self, vector: np.ndarray, area_ids: Sequence[int], k: int) -> list[Hit]
        def chunks_of(self, document_id: int) -> list[Hit]
        def count_by_document(self) -> dict[int, int]
        def count(self) -> int

Also: ``staged_replacement`` (a long document written batch by batch, shown in one commit:
``irisrag.vectors.staging``; every read path here filters with its ``Visibility``),
``set_area``, ``stored_model_keys``, ``version``, ``drop``; bulk ``replace_documents``; for bulk
loads of new documents ``arrow_rows`` + ``append``, then ``compact``; ``table`` (the raw handle,
for benchmarks that measure LanceDB itself).
``connect(uri, storage_options=..., read_consistency_seconds=...)`` opens a LanceDB connection
the same way for every caller (system page, backup): ``storage_options`` (the
``LANCEDB_STORAGE_OPTIONS`` setting) go to the object store of an ``s3://`` URI and override the
standard ``AWS_*`` variables it reads by itself.

Full text (Lance's own inverted index on ``text``, stemming tokenizer of ``fts_language``)::

        def refresh_indexes(self) -> str       # full text only: create, or fold new rows in
        def search_fulltext(self, text: str, area_ids: Sequence[int], k: int, *,
                            vector: np.ndarray | None = None) -> list[TextHit]

Index upkeep (``irisrag.vectors.index``)::

        def maintain(self, policy: IndexPolicy | None = None, *, full: bool = True,
                     retrain: bool = False) -> Maintenance

``maintain`` is the one place that builds the full-text index and, past
``policy.min_rows``, the vector index (IVF_SQ), folds new rows in, compacts and removes old
versions by age; ``irisrag.jobs.maintenance`` runs it after imports and periodically, one
process at a time. Rows written after an index was built ARE found (an unindexed tail is
scanned flat); full-text scores of such rows use other term statistics until folded in.
Deleted rows vanish from results at once. Without a full-text index, full-text search finds
nothing. Vector search uses the index when there is one, with the area prefilter.

One table per embedder (``chunks_<model key>``), so vectors of different models never mix.
Every filter is built from ints only. Readers (the web process) pass a consistency interval,
without which LanceDB serves the snapshot it opened forever.
"""
from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from lancedb.query import MatchQuery

from irisrag.errors import EmbedderMismatch, EmbeddingError
from irisrag.i18n import N_
from irisrag.vectors import index as upkeep
from irisrag.vectors.index import FTS_LANGUAGES, IndexPolicy, Maintenance  # noqa: F401  (public here too)
from irisrag.vectors.mirror import TableMirror
from irisrag.vectors.objectstore import location
from irisrag.vectors.searchtext import SearchText
from irisrag.vectors.staging import StagedReplacement, Visibility, forget_document, purge_hidden, settle_all
from irisrag.vectors.staging import read as staged_read
from irisrag.vectors.tables import (  # noqa: F401
    BOILERPLATE_COLUMN,
    SEARCH_COLUMN,
    TABLE_PREFIX,
    chunk_schema,
    connect,
    has_boilerplate,
    has_search_text,
    opened_here,
    table_name,
)

log = logging.getLogger(__name__)
_COLUMNS = ["document_id", "area_id", "chunk_index", "page", "text"]
QUERY_WORDS = re.compile(r"[^\W_]+")  # query words only: no phrase, field or boolean syntax reaches Lance


@dataclass(frozen=True)
class ChunkIn:
    index: int
    text: str
    page: int | None = None
    title: str = ""   # the document's title: in the chunk's search text (``searchtext.py``)
    boilerplate: bool = False  # navigation or a table of contents (``ingest.boilerplate``)


@dataclass(frozen=True)
class Hit:
    document_id: int
    area_id: int
    chunk_index: int
    page: int | None
    text: str
    score: float
    rank: int
    search_text: str = ""   # what the full-text index read (title, compound parts: ``searchtext.py``); "" = text
    boilerplate: bool = False   # navigation or a table of contents: ranked below body text, never answer text

    @property
    def lexical_text(self) -> str:
        """The text the gate and the found sources match the question in: the search text, else the text."""
        return self.search_text or self.text


@dataclass(frozen=True)
class TextHit:
    """A full-text match: ``hit.rank`` is its BM25 rank, ``hit.score`` the cosine to the query
    vector passed to the search (0.0 without one), ``bm25`` the full-text score."""

    hit: Hit
    bm25: float


def _writes(method):
    """A write through this store: its reads go to the store, not the mirror, until the mirror caught up."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        finally:
            self._wrote()
    return wrapper


def _in_list(ids: Sequence[int]) -> str:
    return ", ".join(str(int(i)) for i in ids)


class VectorStore:
    """The chunk vectors of one embedder in one LanceDB table."""

    def __init__(self, uri: str, model_key: str, dim: int, *, read_consistency_seconds: float | None = 2.0,
                 fts_language: str = "German", storage_options: Mapping[str, str] | None = None,
                 search_text: SearchText | None = None) -> None:
        self.fts_language = upkeep.fulltext_language(fts_language)
        self.search_text = search_text or SearchText.plain()
        self.uri = uri
        self.model_key = model_key
        self.dim = int(dim)
        self.table_name = table_name(model_key)
        self.schema = chunk_schema(self.dim, model_key)
        self._db = connect(uri, storage_options=storage_options, read_consistency_seconds=read_consistency_seconds)
        self._storage_options = dict(storage_options or {})
        self._interval = 2.0 if read_consistency_seconds is None else float(read_consistency_seconds)
        self._mirror: TableMirror | None = None
        self._table: Any = None
        self._searchable = True
        self._marked = True   # the table has the boilerplate column (one made before it has not)
        self._lock = threading.Lock()
        self._warned_no_index = False

    # --- tables ---------------------------------------------------------------

    def _table_names(self) -> list[str]:
        names: list[str] = []
        token = None
        while True:
            page = self._db.list_tables(page_token=token)
            names.extend(page.tables)
            token = page.page_token
            if not token:
                return names

    def _check_dim(self, table: Any) -> None:
        stored = table.schema.field("vector").type.list_size
        if stored != self.dim:
            raise EmbedderMismatch(
                N_("The stored vectors have another dimension than the configured embedder; a rebuild is needed"),
                f"table {self.table_name} at {self.uri} holds {stored}-d vectors, embedder {self.model_key} makes {self.dim}-d",
            )

    def _open(self, create: bool = False) -> Any:
        """Return the table handle, creating the table when asked; None if it does not exist."""
        with self._lock:
            if self._table is None:
                if self.table_name in self._table_names():
                    table = self._db.open_table(self.table_name)
                elif create:
                    table = self._db.create_table(self.table_name, schema=self.schema, exist_ok=True)
                    log.info("table=%s dim=%d event=created", self.table_name, self.dim)
                else:
                    return None
                self._check_dim(table)
                self._table = table
                self._searchable = has_search_text(table)
                self._marked = has_boilerplate(table)
            return self._table

    def read_from_mirror(self, directory: Path) -> TableMirror | None:
        """Read from a local copy of an object store's table, kept current (``irisrag.vectors.mirror``).

        For web processes; nothing (None) for a local directory. Writes still go to the store.
        """
        if "://" in self.uri and self._mirror is None:
            source = location(self.uri, self._storage_options)
            self._mirror = TableMirror(source, self.table_name, directory, self._interval).start()
        return self._mirror

    def _reader(self) -> Any:
        """The table to read: the mirror while it is fresh, else the store's (None before the first write)."""
        table = self._open()
        mirrored = self._mirror.table() if self._mirror is not None and table is not None else None
        return table if mirrored is None else mirrored

    def _wrote(self) -> None:
        """After a write through this process: its next reads go to the store until the mirror caught up."""
        if self._mirror is not None:
            self._mirror.invalidate()

    def _has_search_text(self) -> bool:
        """Whether rows carry a search text: yes for a table made now, no for one made before the column."""
        return self._open() is None or self._searchable

    def _columns(self) -> list[str]:
        """The columns a read returns: the search text and the mark too where the table has them (after ``_open``)."""
        return [*_COLUMNS, *([SEARCH_COLUMN] if self._searchable else []),
                *([BOILERPLATE_COLUMN] if self._marked else [])]

    def table(self, create: bool = False) -> Any:
        """Return the raw LanceDB table (None before the first write unless ``create``): for tools measuring LanceDB."""
        return self._open(create)

    def stored_model_keys(self) -> list[str]:
        """Return the embedder keys that have a chunk table at this location."""
        keys = []
        for name in sorted(self._table_names()):
            if not name.startswith(TABLE_PREFIX):
                continue
            metadata = self._db.open_table(name).schema.metadata or {}
            keys.append(metadata.get(b"model_key", name[len(TABLE_PREFIX):].encode()).decode())
        return keys

    def version(self) -> int | None:
        """Return the table's current version, None before the first write."""
        table = self._open()
        return None if table is None else table.version

    @_writes
    def drop(self) -> None:
        """Drop this embedder's table (a rebuild starts empty)."""
        with self._lock:
            self._table = None
            if self.table_name in self._table_names():
                self._db.drop_table(self.table_name)

    # --- writes ---------------------------------------------------------------

    def _vectors(self, chunks: Sequence[ChunkIn], vectors: np.ndarray) -> np.ndarray:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.shape != (len(chunks), self.dim):
            raise EmbeddingError(
                N_("The embedder returned vectors of the wrong shape"),
                f"expected ({len(chunks)}, {self.dim}) for {self.table_name}, got {matrix.shape}",
            )
        if not np.isfinite(matrix).all():
            raise EmbeddingError(N_("The embedder returned invalid vectors"), "vectors contain NaN or infinity")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32, copy=False)

    def _arrow_rows(self, document_id: int, area_id: int, chunks: Sequence[ChunkIn],
                    vectors: np.ndarray, id_suffix: str = "") -> pa.Table:
        """Build the Arrow rows of one document's chunks."""
        doc, area = int(document_id), int(area_id)
        flat = pa.array(vectors.reshape(-1), type=pa.float32())
        searchable, marked = self._has_search_text(), self._open() is None or self._marked
        search = [pa.array([self.search_text.chunk(c.title, c.text) for c in chunks], pa.string())] if searchable else []
        mark = [pa.array([bool(c.boilerplate) for c in chunks], pa.bool_())] if marked else []
        columns = [
            pa.array([f"{doc}:{int(c.index)}{id_suffix}" for c in chunks], pa.string()),
            pa.array([doc] * len(chunks), pa.int64()),
            pa.array([area] * len(chunks), pa.int64()),
            pa.array([int(c.index) for c in chunks], pa.int32()),
            pa.array([None if c.page is None else int(c.page) for c in chunks], pa.int32()),
            pa.array([c.text for c in chunks], pa.string()),
            *search,
            *mark,
            pa.FixedSizeListArray.from_arrays(flat, self.dim),
        ]
        schema = chunk_schema(self.dim, self.model_key, search_text=searchable, boilerplate=marked)
        return pa.Table.from_arrays(columns, schema=schema)

    def arrow_rows(self, document_id: int, area_id: int, chunks: Sequence[ChunkIn], vectors: np.ndarray,
                   id_suffix: str = "") -> pa.Table:
        """Return a document's chunks as checked, normalised Arrow rows (for ``append``)."""
        return self._arrow_rows(document_id, area_id, chunks, self._vectors(chunks, vectors), id_suffix)

    @_writes
    def append(self, rows: pa.Table) -> None:
        """Add prepared rows in one commit, creating the table: bulk loads of new documents only."""
        self._open(create=True).add(rows)

    @_writes
    def compact(self, *, drop_old_versions: bool = False) -> int:
        """Compact the table's fragments (and remove every older version if asked); return the fragments left."""
        table = self._open()
        if drop_old_versions:
            table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
        else:
            upkeep.retry(table.optimize)
        return table.stats()["fragment_stats"]["num_fragments"]

    def replace_document(self, document_id: int, area_id: int, chunks: Sequence[ChunkIn],
                         vectors: np.ndarray) -> None:
        """Replace a document's chunks in one commit: readers see all old or all new."""
        self.replace_documents([(document_id, area_id, chunks, vectors)])

    def staged_replacement(self, document_id: int, area_id: int, write_rows: int = 512) -> StagedReplacement:
        """Start replacing a document batch by batch (``add`` ..., then ``commit`` or ``abort``).

        Readers see the old chunks until ``commit``, then all the new ones (``irisrag.vectors.staging``);
        memory holds one batch, not the document; no write touches more than ``write_rows`` rows.
        """
        return StagedReplacement(self, document_id, area_id, write_rows)

    @_writes
    def replace_documents(self, documents: Sequence[tuple[int, int, Sequence[ChunkIn], np.ndarray]]) -> None:
        """Replace the chunks of several (document id, area id, chunks, vectors) in one commit."""
        rows, ids = [], []
        settle_all(self._open(), [d[0] for d in documents])  # an unsettled staged import would hide the merge
        for document_id, area_id, chunks, vectors in documents:
            matrix = self._vectors(chunks, vectors)
            indices = [int(c.index) for c in chunks]
            if len(set(indices)) != len(indices):
                raise ValueError(f"document {document_id}: duplicate chunk indices")
            ids.append(int(document_id))
            if chunks:
                rows.append(self._arrow_rows(document_id, area_id, chunks, matrix))
        if not rows:
            for document_id in ids:
                self.delete_document(document_id)
            return
        table = self._open(create=True)
        data = pa.concat_tables(rows) if len(rows) > 1 else rows[0]
        if not table.count_rows(f"document_id IN ({_in_list(ids)})"):
            # New documents (nothing of them stored, staged rows included): one append is one
            # version too, and it does not join the whole table on id as the merge below does.
            upkeep.retry(lambda: table.add(data))
            log.debug("table=%s documents=%d event=added", self.table_name, len(ids))
            return
        # One merge = one version: upsert by id and delete these documents' leftovers together.
        # Lance retries lost commits itself for 30 s; under heavy load on S3 it can give up ("Too
        # many concurrent writers"). A failed merge commits nothing and the merge is idempotent,
        # so it is simply run again (with backoff) instead of failing the import.
        upkeep.retry(lambda: (
            table.merge_insert("id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .when_not_matched_by_source_delete(f"document_id IN ({_in_list(ids)})")
            .execute(data)
        ))
        log.debug("table=%s documents=%d event=replaced", self.table_name, len(ids))

    @_writes
    def delete_document(self, document_id: int) -> None:
        """Delete a document's chunks (staged ones too)."""
        table = self._open()
        if table is not None:
            table.delete(f"document_id = {int(document_id)}")
            forget_document(table, document_id)

    @_writes
    def set_area(self, document_id: int, area_id: int) -> None:
        """Move a document's chunks to another area."""
        table = self._open()
        if table is not None:
            settle_all(table, [document_id])  # staged rows then carry the old area like the rest
            table.update(where=f"document_id = {int(document_id)} AND area_id >= 0", values={"area_id": int(area_id)})

    # --- reads ----------------------------------------------------------------

    def search(self, vector: np.ndarray, area_ids: Sequence[int], k: int) -> list[Hit]:
        """Return the k nearest chunks by cosine similarity within the given areas."""
        areas = sorted({int(a) for a in area_ids if int(a) >= 0})  # negative ids are staged rows
        if not areas or k <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape != (self.dim,):
            raise EmbeddingError(N_("The query vector has the wrong dimension"),
                                 f"expected {self.dim} for {self.table_name}, got {query.shape}")
        table = self._reader()
        if table is None:
            return []
        norm = float(np.linalg.norm(query))
        if norm > 0:
            query = (query / norm).astype(np.float32)
        visible, result = staged_read(table, lambda visible: upkeep.tune_query(
            table.search(query, vector_column_name="vector")
            .distance_type("cosine")
            .where(visible.where(areas), prefilter=True)
            .select([*self._columns(), "_distance"])
            .limit(int(k))
        ).to_arrow())
        rows = result.to_pylist()
        return [_hit(row, visible, score=1.0 - float(row["_distance"]), rank=rank) for rank, row in enumerate(rows)]

    def search_fulltext(self, text: str, area_ids: Sequence[int], k: int, *,
                        vector: np.ndarray | None = None) -> list[TextHit]:
        """Return the k best BM25 matches of the text's words within the given areas."""
        areas = sorted({int(a) for a in area_ids if int(a) >= 0})  # negative ids are staged rows
        words = QUERY_WORDS.findall(text or "")
        table = self._reader()
        if not areas or k <= 0 or not words or table is None:
            return []
        column = SEARCH_COLUMN if self._searchable else upkeep.TEXT_COLUMN   # as the table was opened
        if upkeep.fts_index(table, column) is None:
            if not self._warned_no_index:  # once per store: the next refresh_indexes fixes it
                log.warning("table=%s event=fulltext_without_index (refresh_indexes not run yet)", self.table_name)
                self._warned_no_index = True
            return []
        if column == SEARCH_COLUMN:  # the chunks' compounds are split there: split the question's too
            words = self.search_text.query_words(words)
        columns = [*self._columns(), "_score", *(["vector"] if vector is not None else [])]
        visible, result = staged_read(table, lambda visible: (
            table.search(MatchQuery(" ".join(words), column), query_type="fts")
            .where(visible.where(areas), prefilter=True)
            .select(columns)
            .limit(int(k))
            .to_arrow()
        ))
        similarity = np.zeros(result.num_rows, dtype=np.float32)
        if vector is not None and result.num_rows:
            query = np.asarray(vector, dtype=np.float32).reshape(-1)
            matrix = result.column("vector").combine_chunks().flatten().to_numpy().reshape(-1, self.dim)
            similarity = matrix @ (query / max(float(np.linalg.norm(query)), 1e-12)).astype(np.float32)
        rows = result.select([*self._columns(), "_score"]).to_pylist()
        return [TextHit(_hit(row, visible, score=float(similarity[rank]), rank=rank), float(row["_score"]))
                for rank, row in enumerate(rows)]

    @_writes
    def refresh_indexes(self) -> str:
        """Create the full-text index or fold new rows into it; return what was done.

        ``"none"`` (no rows), ``"current"`` (nothing to do: two metadata reads), ``"created"``
        (no index yet, or one of another language), ``"optimized"`` (unindexed rows merged).
        """
        return upkeep.refresh_fulltext(self._open(), self.fts_language)

    @_writes
    def maintain(self, policy: IndexPolicy | None = None, *, full: bool = True,
                 retrain: bool = False) -> Maintenance:
        """Run one index upkeep pass (``irisrag.vectors.index.maintain``); one process at a time.

        A full pass first finishes switched imports whose worker died while settling them and
        deletes staged rows a dead import left (``vectorstaging.settle_all``, ``purge_hidden``).
        """
        if full:
            settle_all(self._open())
            purge_hidden(self._open())
        return upkeep.maintain(self._open(), self.fts_language, policy or IndexPolicy(), full=full, retrain=retrain)

    def warm(self) -> None:
        """Open the table and load what a question reads (index metadata, vector and full-text index readers).

        One vector and one full-text query over every visible row, one row each; the web
        process's warm-up (``services.operations.warmup``) runs it before the first question,
        on the mirror once its first copy is there (``read_from_mirror``).
        """
        if self._mirror is not None:
            self._mirror.wait_first_sync()
        table = self._reader()
        if table is None or table.count_rows() == 0:
            return
        probe = np.zeros(self.dim, dtype=np.float32)
        probe[0] = 1.0
        upkeep.tune_query(table.search(probe, vector_column_name="vector").distance_type("cosine")
                          .where("area_id >= 0", prefilter=True).select(["document_id"]).limit(1)).to_arrow()
        column = SEARCH_COLUMN if self._searchable else upkeep.TEXT_COLUMN
        if upkeep.fts_index(table, column) is not None:
            (table.search(MatchQuery("warm", column), query_type="fts").where("area_id >= 0", prefilter=True)
             .select(["document_id"]).limit(1).to_arrow())

    def sample_texts(self, limit: int) -> list[str]:
        """Return the text of up to ``limit`` stored chunks, in storage order (one scan; the warm-up's word sample)."""
        table = self._open()
        if table is None:
            return []
        _visible, result = staged_read(table, lambda visible: (
            table.search().where(visible.where()).select([upkeep.TEXT_COLUMN]).limit(limit).to_arrow()))
        return [str(text) for text in result.column(upkeep.TEXT_COLUMN).to_pylist()]

    def chunks_of(self, document_id: int) -> list[Hit]:
        """Return a document's chunks ordered by chunk index (score 0, rank = position)."""
        table = self._reader()
        if table is None:
            return []
        visible, result = staged_read(table, lambda visible: (
            table.search().where(f"document_id = {int(document_id)} AND {visible.where()}").select(self._columns())
            .limit(None).to_arrow()
        ))
        rows = result.to_pylist()
        rows.sort(key=lambda row: row["chunk_index"])
        return [_hit(row, visible, score=0.0, rank=rank) for rank, row in enumerate(rows)]

    def count_by_document(self) -> dict[int, int]:
        """Return the number of chunks per document id."""
        table = self._reader()
        if table is None:
            return {}
        _visible, result = staged_read(
            table, lambda visible: table.search().where(visible.where()).select(["document_id"]).limit(None).to_arrow())
        column = result.column("document_id")
        counts = column.value_counts().to_pylist() if len(column) else []
        return {int(item["values"]): int(item["counts"]) for item in counts}

    def count(self) -> int:
        """Return the number of stored chunks (not counting staged or retired rows)."""
        table = self._reader()
        return 0 if table is None else staged_read(table, lambda visible: table.count_rows(visible.where()))[1]


def _hit(row: dict[str, Any], visible: Visibility, *, score: float, rank: int) -> Hit:
    return Hit(
        document_id=int(row["document_id"]),
        area_id=visible.area(int(row["area_id"])),
        chunk_index=int(row["chunk_index"]),
        page=None if row["page"] is None else int(row["page"]),
        text=row["text"],
        score=score,
        rank=rank,
        search_text=row.get(SEARCH_COLUMN) or "",
        boilerplate=bool(row.get(BOILERPLATE_COLUMN)),
    )
