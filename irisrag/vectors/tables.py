"""LanceDB tables as a whole: connect, name and schema them; for the system page and backups: list,
describe, pin versions, check copies.

Part of the vector store (with ``vectorstore.py`` and ``vectorindex.py``): the only modules
that use LanceDB. Services pass a connection (``Components.lancedb_connection``, i.e.
``vectorstore.connect``) and ask these functions; they never call LanceDB themselves.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import lancedb
import pyarrow as pa

TABLE_PREFIX = "chunks_"
SEARCH_COLUMN = "search_text"   # what the full-text index reads (``searchtext.py``); tables made before lack it
BOILERPLATE_COLUMN = "boilerplate"  # navigation or a table of contents (``ingest.boilerplate``); older tables lack it


@dataclass(frozen=True)
class TableInfo:
    """One LanceDB table: rows, current version, kept versions, whether it has a full-text index."""

    name: str
    rows: int
    version: int
    versions: int
    fulltext: bool


def table_name(model_key: str) -> str:
    """Return the LanceDB table name for an embedder key."""
    return TABLE_PREFIX + (re.sub(r"[^A-Za-z0-9]+", "_", model_key).strip("_") or "default")


def chunk_schema(dim: int, model_key: str, search_text: bool = True, boilerplate: bool = True) -> pa.Schema:
    """Return the Arrow schema of a chunk table (the model key is kept in its metadata).

    ``search_text=False``: the schema of a table made before the search text column, which
    such a table keeps (its full-text index reads ``text``) until ``flask rag init-db`` adds it.
    ``boilerplate=False``: a table made before the navigation mark; its chunks read as body
    text until ``flask rag init-db`` adds the column (false for every row; a re-import marks).
    """
    search = [pa.field(SEARCH_COLUMN, pa.string(), nullable=False)] if search_text else []
    mark = [pa.field(BOILERPLATE_COLUMN, pa.bool_(), nullable=True)] if boilerplate else []
    return pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("document_id", pa.int64(), nullable=False),
            pa.field("area_id", pa.int64(), nullable=False),
            pa.field("chunk_index", pa.int32(), nullable=False),
            pa.field("page", pa.int32(), nullable=True),
            pa.field("text", pa.string(), nullable=False),
            *search,
            *mark,
            pa.field("vector", pa.list_(pa.float32(), dim), nullable=False),
        ],
        metadata={"model_key": model_key, "dim": str(dim)},
    )


def has_search_text(table: Any) -> bool:
    """Whether a chunk table has the search text column (made since it existed)."""
    return SEARCH_COLUMN in table.schema.names


def has_boilerplate(table: Any) -> bool:
    """Whether a chunk table has the navigation mark column (made since it existed)."""
    return BOILERPLATE_COLUMN in table.schema.names


_OPENED_IN: set[int] = set()  # pids that opened a connection (LanceDB's Rust runtime runs in them)


def opened_here() -> bool:
    """Return True when this process has opened a LanceDB connection (a forked child inherits none of it)."""
    return os.getpid() in _OPENED_IN


def connect(uri: str, *, storage_options: Mapping[str, str] | None = None,
            read_consistency_seconds: float | None = None) -> Any:
    """Open a LanceDB connection; object-store options only for a URI with a scheme."""
    _OPENED_IN.add(os.getpid())
    interval = None if read_consistency_seconds is None else timedelta(seconds=read_consistency_seconds)
    options = dict(storage_options or {}) if "://" in uri else {}
    return lancedb.connect(uri, read_consistency_interval=interval, storage_options=options or None)


def table_names(connection: Any) -> list[str]:
    """Return the names of the tables of a LanceDB connection (all pages), sorted."""
    names: list[str] = []
    token = None
    while True:
        page = connection.list_tables(page_token=token)
        names.extend(page.tables)
        token = page.page_token
        if not token:
            return sorted(names)


def describe_tables(connection: Any) -> list[TableInfo]:
    """Return every table of a connection with its rows, version, kept versions and full-text index."""
    infos = []
    for name in table_names(connection):
        table = connection.open_table(name)
        fulltext = any(i.index_type == "FTS" for i in table.list_indices())
        infos.append(TableInfo(name, table.count_rows(), table.version, len(table.list_versions()), fulltext))
    return infos


def pinned_versions(connection: Any) -> dict[str, dict[str, int]]:
    """Return each table's current version and its rows at exactly that version (``{"version", "rows"}``)."""
    pinned = {}
    for name in table_names(connection):
        table = connection.open_table(name)
        version = table.version
        table.checkout(version)  # pinned: the rows counted are those of this version
        pinned[name] = {"version": version, "rows": table.count_rows()}
    return pinned


def mismatches(connection: Any, expected: dict[str, dict[str, int]]) -> list[str]:
    """Return how the tables of a connection differ from the expected versions and rows (empty: they match)."""
    found = []
    for name, want in expected.items():
        table = connection.open_table(name)
        if table.version != want["version"] or table.count_rows() != want["rows"]:
            found.append(f"{name}: version {table.version}/{want['version']}, "
                         f"rows {table.count_rows()}/{want['rows']}")
    return found
