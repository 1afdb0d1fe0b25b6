"""The chunk table's navigation mark (issue 37 item 2): stored, read back, and tables made before it still work."""
from __future__ import annotations

import numpy as np

from irisrag.vectors.index import add_boilerplate
from irisrag.vectors.store import ChunkIn, VectorStore
from irisrag.vectors.tables import BOILERPLATE_COLUMN, chunk_schema, connect, table_name

DIM = 8


def _vectors(n: int) -> np.ndarray:
    return np.random.default_rng(n).normal(size=(n, DIM)).astype(np.float32)


def _put(store: VectorStore, document_id: int, marks: list[bool]) -> None:
    chunks = [ChunkIn(i, f"Abschnitt {i} über Urlaub", None, "", mark) for i, mark in enumerate(marks)]
    store.replace_document(document_id, 1, chunks, _vectors(len(marks)))


def _store(uri: str) -> VectorStore:
    return VectorStore(uri, "fake-8", DIM, read_consistency_seconds=None)


def test_the_mark_is_stored_and_read_back_by_every_read(tmp_path):
    store = _store(str(tmp_path / "lance"))
    _put(store, 1, [True, False, False])
    assert BOILERPLATE_COLUMN in store.table().schema.names
    assert [h.boilerplate for h in store.chunks_of(1)] == [True, False, False]
    found = {h.chunk_index: h.boilerplate for h in store.search(_vectors(3)[0], [1], 3)}
    assert found == {0: True, 1: False, 2: False}
    store.refresh_indexes()
    assert {t.hit.chunk_index: t.hit.boilerplate for t in store.search_fulltext("Urlaub", [1], 3)} == found


def test_a_table_made_before_the_mark_is_read_and_written_as_body_text_until_init_db(tmp_path):
    uri = str(tmp_path / "lance")
    connect(uri).create_table(table_name("fake-8"), schema=chunk_schema(DIM, "fake-8", boilerplate=False))
    old = _store(uri)
    _put(old, 1, [True, False])      # written without the column: the table keeps its schema
    assert BOILERPLATE_COLUMN not in old.table().schema.names
    assert [h.boilerplate for h in old.chunks_of(1)] == [False, False]
    table = connect(uri).open_table(table_name("fake-8"))        # as init-db opens it
    assert add_boilerplate(table) is True and add_boilerplate(table) is False
    migrated = _store(uri)
    assert [h.boilerplate for h in migrated.chunks_of(1)] == [False, False]   # old rows: body text
    _put(migrated, 1, [True, False])                                          # a re-import marks
    assert [h.boilerplate for h in migrated.chunks_of(1)] == [True, False]
