"""VectorStore on a real LanceDB in tmp_path."""
from __future__ import annotations

import time

import numpy as np
import pytest

from irisrag.errors import EmbedderMismatch, EmbeddingError
from irisrag.vectors.store import ChunkIn, Hit, VectorStore, table_name

DIM = 8


def _unit(*values: float) -> np.ndarray:
    vec = np.zeros(DIM, dtype=np.float32)
    vec[: len(values)] = values
    return vec / np.linalg.norm(vec)


def _chunks(n: int, prefix: str = "chunk") -> list[ChunkIn]:
    return [ChunkIn(index=i, text=f"{prefix} {i}", page=i + 1 if i % 2 else None) for i in range(n)]


def _random(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)


@pytest.fixture
def store(tmp_path) -> VectorStore:
    return VectorStore(str(tmp_path / "lance"), "fake-8", DIM, read_consistency_seconds=None)


def test_vectorstore_missing_table_reads_empty(store):
    assert store.count() == 0
    assert store.search(_unit(1), [1], 5) == []
    assert store.chunks_of(1) == []
    assert store.count_by_document() == {}
    assert store.version() is None
    store.delete_document(1)  # no table yet: nothing to do, no error
    assert store.stored_model_keys() == []


def test_vectorstore_replace_stores_normalised_rows_and_chunks(store):
    chunks = [ChunkIn(0, "null", None), ChunkIn(1, "eins", 7)]
    store.replace_document(5, 2, chunks, np.stack([_unit(3, 4) * 10, _unit(0, 1) * 0.5]))
    hits = store.chunks_of(5)
    assert [(h.document_id, h.area_id, h.chunk_index, h.page, h.text) for h in hits] == [
        (5, 2, 0, None, "null"), (5, 2, 1, 7, "eins")]
    best = store.search(_unit(3, 4), [2], 1)[0]
    assert best.chunk_index == 0 and best.rank == 0
    assert best.score == pytest.approx(1.0, abs=1e-5)  # stored unit-length: cosine 1 for the same direction
    assert table_name("fake-8") == "chunks_fake_8"
    assert store.stored_model_keys() == ["fake-8"]


def test_vectorstore_search_prefilters_area(store):
    query = _unit(1, 0)
    # Area 1: 20 chunks almost identical to the query; area 2: 3 chunks further away.
    near = np.stack([_unit(1, 0.01 * i) for i in range(20)])
    store.replace_document(1, 1, _chunks(20, "near"), near)
    far = np.stack([_unit(1, 2 + i) for i in range(3)])
    store.replace_document(2, 2, _chunks(3, "far"), far)
    assert all(h.area_id == 1 for h in store.search(query, [1, 2], 5))
    hits = store.search(query, [2], 5)
    assert len(hits) == 3
    assert {h.area_id for h in hits} == {2} and {h.document_id for h in hits} == {2}
    assert [h.rank for h in hits] == [0, 1, 2]
    assert [h.chunk_index for h in hits] == [0, 1, 2]  # ordered by similarity
    assert hits[0].score > hits[1].score > hits[2].score
    assert len(store.search(query, [1, 2], 7)) == 7
    assert store.search(query, [], 5) == []
    assert store.search(query, [3], 5) == []
    assert store.search(query, [2], 0) == []


def test_vectorstore_replace_leaves_exactly_new_chunks_in_one_version(store):
    store.replace_document(1, 1, _chunks(5, "old"), _random(5, 1))
    store.replace_document(2, 1, _chunks(2, "other"), _random(2, 2))
    before = store.version()
    store.replace_document(1, 3, _chunks(3, "new"), _random(3, 3))
    assert store.version() == before + 1
    assert store.count_by_document() == {1: 3, 2: 2}
    assert [h.text for h in store.chunks_of(1)] == ["new 0", "new 1", "new 2"]
    assert {h.area_id for h in store.chunks_of(1)} == {3}
    assert [h.text for h in store.chunks_of(2)] == ["other 0", "other 1"]


def test_vectorstore_wrong_vectors_leave_old_chunks(store):
    store.replace_document(1, 1, _chunks(5, "old"), _random(5))
    before = store.version()
    with pytest.raises(EmbeddingError):
        store.replace_document(1, 1, _chunks(3, "new"), _random(2))  # 2 vectors for 3 chunks
    with pytest.raises(EmbeddingError):
        store.replace_document(1, 1, _chunks(3, "new"), np.ones((3, DIM + 1), dtype=np.float32))
    bad = _random(3)
    bad[1, 2] = np.nan
    with pytest.raises(EmbeddingError):
        store.replace_document(1, 1, _chunks(3, "new"), bad)
    assert store.version() == before
    assert [h.text for h in store.chunks_of(1)] == [f"old {i}" for i in range(5)]


def test_vectorstore_failed_commit_leaves_old_chunks(store, monkeypatch):
    store.replace_document(1, 1, _chunks(5, "old"), _random(5))
    before = store.version()
    original = store._arrow_rows

    def duplicated(*args):
        rows = original(*args)
        return rows.take([0, 0, 1])  # two source rows for one stored id: Lance refuses the merge

    monkeypatch.setattr(store, "_arrow_rows", duplicated)
    with pytest.raises(Exception, match="(?i)ambiguous"):
        store.replace_document(1, 1, _chunks(3, "new"), _random(3))
    assert store.version() == before
    assert [h.text for h in store.chunks_of(1)] == [f"old {i}" for i in range(5)]


def test_vectorstore_reader_sees_writes_after_interval(tmp_path):
    uri = str(tmp_path / "lance")
    reader = VectorStore(uri, "fake-8", DIM, read_consistency_seconds=0.1)
    writer = VectorStore(uri, "fake-8", DIM, read_consistency_seconds=None)
    assert reader.count() == 0  # opened before the table exists
    writer.replace_document(1, 1, _chunks(2), _random(2))
    time.sleep(0.2)
    assert reader.count() == 2
    assert {h.document_id for h in reader.search(_unit(1), [1], 10)} == {1}
    writer.replace_document(2, 1, _chunks(4), _random(4))  # the reader's table handle is already open
    writer.delete_document(1)
    time.sleep(0.2)
    assert reader.count_by_document() == {2: 4}


def test_vectorstore_delete_and_set_area(store):
    store.replace_document(1, 1, _chunks(3), _random(3, 1))
    store.replace_document(2, 1, _chunks(2), _random(2, 2))
    store.set_area(2, 9)
    assert {h.document_id for h in store.search(_unit(1), [9], 10)} == {2}
    assert {h.document_id for h in store.search(_unit(1), [1], 10)} == {1}
    store.delete_document(1)
    assert store.count_by_document() == {2: 2}
    assert store.count() == 2
    store.replace_document(2, 9, [], np.zeros((0, DIM), dtype=np.float32))  # no chunks: removes the document
    assert store.count() == 0


def test_vectorstore_count_by_document_scans_all_rows(store):
    for doc in range(1, 6):
        store.replace_document(doc, 1, _chunks(doc * 4), _random(doc * 4, doc))
    assert store.count_by_document() == {d: d * 4 for d in range(1, 6)}
    assert store.count() == 60
    assert len(store.chunks_of(5)) == 20


def test_vectorstore_dimension_mismatch(tmp_path):
    uri = str(tmp_path / "lance")
    VectorStore(uri, "model-x", DIM).replace_document(1, 1, _chunks(1), _random(1))
    other = VectorStore(uri, "model-x", DIM * 2)
    with pytest.raises(EmbedderMismatch) as info:
        other.count()
    assert "16" in info.value.detail and "8" in info.value.detail
    with pytest.raises(EmbedderMismatch):
        other.replace_document(1, 1, _chunks(1), np.ones((1, DIM * 2), dtype=np.float32))


def test_vectorstore_tables_per_embedder_and_drop(tmp_path):
    uri = str(tmp_path / "lance")
    use = VectorStore(uri, "use-m3-512", DIM)
    use.replace_document(1, 1, _chunks(2), _random(2))
    ollama = VectorStore(uri, "ollama-nomic-embed-text-768", DIM)
    assert ollama.count() == 0
    ollama.replace_document(1, 1, _chunks(1), _random(1))
    assert use.stored_model_keys() == ["ollama-nomic-embed-text-768", "use-m3-512"]
    use.drop()
    assert use.count() == 0
    assert ollama.stored_model_keys() == ["ollama-nomic-embed-text-768"]
    assert isinstance(ollama.chunks_of(1)[0], Hit)


def test_vectorstore_replace_runs_again_when_lance_gives_up_on_contention(store, monkeypatch):
    """Lance gives up a merge after 30 s of lost commits (seen on S3 under load): it is retried."""
    from lancedb.merge import LanceMergeInsertBuilder

    from irisrag.vectors import index as vectorindex

    monkeypatch.setattr(vectorindex.time, "sleep", lambda s: None)
    store.replace_document(1, 1, _chunks(2, "old"), _random(2))
    original, calls = LanceMergeInsertBuilder.execute, []

    def contended(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("lance error: Too many concurrent writers. Attempted 4 times, but failed on "
                               "retry_timeout of 30.000 seconds.")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(LanceMergeInsertBuilder, "execute", contended)
    store.replace_document(1, 1, _chunks(3, "new"), _random(3))
    assert len(calls) == 2 and [h.text for h in store.chunks_of(1)] == [f"new {i}" for i in range(3)]


def test_vectorstore_new_document_is_appended_in_one_version_and_replaced_by_the_merge_later(store, monkeypatch):
    store.replace_document(1, 1, _chunks(3, "first"), _random(3, 1))
    table = store.table()
    merges = []
    original = type(table).merge_insert
    monkeypatch.setattr(type(table), "merge_insert", lambda self, on: merges.append(on) or original(self, on))
    before = store.version()
    store.replace_document(2, 1, _chunks(4, "new"), _random(4, 2))  # nothing of document 2 stored yet: append
    assert store.version() == before + 1 and merges == []
    assert store.count_by_document() == {1: 3, 2: 4}
    store.replace_document(2, 1, _chunks(2, "again"), _random(2, 3))  # stored: the merge drops the leftovers
    assert merges == ["id"] and store.count_by_document() == {1: 3, 2: 2}
    assert [h.text for h in store.chunks_of(2)] == ["again 0", "again 1"]
