"""Staged replacement on a real LanceDB: batches stay invisible until one switch; failures leave the old chunks.

A second ``VectorStore`` on the same directory (consistency interval 0) plays the web
process: it must see all old chunks or all new ones, through every read path, at every
point of a multi-batch import.
"""
from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from irisrag.embeddings import FakeEmbedder
from irisrag.errors import EmbeddingError
from irisrag.ingest.pipeline import ImportJob, PipelineSettings, run_import
from irisrag.vectors.staging import purge_hidden
from irisrag.vectors.store import ChunkIn, VectorStore

DIM = 16


def _chunks(n: int, prefix: str, start: int = 0) -> list[ChunkIn]:
    return [ChunkIn(i, f"{prefix} Abschnitt {i} Paketverwaltung", i + 1) for i in range(start, start + n)]


def _vectors(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)


@pytest.fixture
def stores(tmp_path):
    uri = str(tmp_path / "lance")
    writer = VectorStore(uri, "fake-16", DIM, read_consistency_seconds=None)
    reader = VectorStore(uri, "fake-16", DIM, read_consistency_seconds=0)
    writer.replace_document(1, 7, _chunks(5, "alt"), _vectors(5, 1))
    writer.replace_document(2, 7, _chunks(3, "nachbar"), _vectors(3, 2))
    writer.refresh_indexes()
    return writer, reader


def _seen(reader: VectorStore, document_id: int = 1) -> dict[str, set[str]]:
    """What each read path shows of a document: the prefix of its chunk texts ("alt", "neu")."""
    def kinds(hits) -> set[str]:
        return {h.text.split()[0] for h in hits if h.document_id == document_id}

    return {
        "chunks_of": kinds(reader.chunks_of(document_id)),
        "search": kinds(reader.search(_vectors(1, 9)[0], [7], 100)),
        "fulltext": kinds(t.hit for t in reader.search_fulltext("Paketverwaltung", [7], 100)),
        "count_by_document": {str(reader.count_by_document().get(document_id))},
        "count": {str(reader.count())},
    }


def _old(reader: VectorStore) -> dict[str, set[str]]:
    return {"chunks_of": {"alt"}, "search": {"alt"}, "fulltext": {"alt"}, "count_by_document": {"5"},
            "count": {"8"}}


def test_readers_see_only_the_old_chunks_until_the_switch_then_only_the_new(stores):
    writer, reader = stores
    staged = writer.staged_replacement(1, 7)
    for batch in range(3):
        staged.add(_chunks(4, "neu", start=4 * batch), _vectors(4, 10 + batch))
        writer.refresh_indexes()  # even folded into the full-text index, staged rows stay hidden
        assert _seen(reader) == _old(reader), batch
    assert staged.commit() == 12
    assert _seen(reader) == _new()
    assert [h.chunk_index for h in reader.chunks_of(1)] == list(range(12))
    assert writer.table().count_rows() == 15  # the old rows are deleted, not just hidden


def test_abort_drops_the_staged_rows_and_keeps_the_old(stores):
    writer, reader = stores
    staged = writer.staged_replacement(1, 7)
    staged.add(_chunks(4, "neu"), _vectors(4))
    staged.abort()
    assert _seen(reader) == _old(reader) and writer.table().count_rows() == 8


def test_a_failed_switch_keeps_the_old_chunks_and_leaves_no_staged_rows(stores, monkeypatch):
    writer, reader = stores
    staged = writer.staged_replacement(1, 7)
    staged.add(_chunks(4, "neu"), _vectors(4))

    def refuse(self, *args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(type(writer.table()), "update_field_metadata", refuse)
    with pytest.raises(OSError):
        staged.commit()
    staged.abort()
    assert _seen(reader) == _old(reader) and writer.table().count_rows() == 8


def _new(count: str = "15") -> dict[str, set[str]]:
    return {"chunks_of": {"neu"}, "search": {"neu"}, "fulltext": {"neu"}, "count_by_document": {"12"},
            "count": {count}}


def test_readers_see_all_new_chunks_at_every_step_of_settling(stores, monkeypatch):
    writer, reader = stores
    staged = writer.staged_replacement(1, 7, write_rows=5)
    for batch in range(3):
        staged.add(_chunks(4, "neu", start=4 * batch), _vectors(4, 10 + batch))
    steps: list[dict] = []
    table_type = type(writer.table())
    for name in ("delete", "update", "update_field_metadata"):
        original = getattr(table_type, name)

        def watched(self, *args, _original=original, **kwargs):
            result = _original(self, *args, **kwargs)
            steps.append(_seen(reader))
            return result
        monkeypatch.setattr(table_type, name, watched)
    staged.commit()
    # switch, delete of the old rows, key to "shown", 3 bounded updates (5 + 5 + 2 rows), key removed
    assert len(steps) == 7 and all(step == _new() for step in steps)
    assert writer.table().count_rows() == 15 and writer.table().count_rows("area_id = 7") == 15


def test_a_commit_between_a_readers_metadata_and_its_query_does_not_hide_rows(stores, monkeypatch):
    """The reader's handle refreshes itself, so settling can land after it read the switch record."""
    from irisrag.vectors import staging as vectorstaging

    writer, reader = stores
    staged = writer.staged_replacement(1, 7)
    staged.add(_chunks(12, "neu"), _vectors(12))
    with monkeypatch.context() as patch:
        patch.setattr(vectorstaging, "settle", lambda *args, **kwargs: None)
        staged.commit()  # switched, not settled: old rows still there, hidden by the record
    assert _seen(reader) == _new("15")
    original = vectorstaging.Visibility.of.__func__
    pending = ["chunks_of", "search", "fulltext", "count_by_document", "count"]

    def of_then_settle(cls, table):
        visible = original(cls, table)
        if pending and visible.entries:  # the record was read; now the writer settles before the query
            pending.clear()
            writer.maintain()
        return visible
    monkeypatch.setattr(vectorstaging.Visibility, "of", classmethod(of_then_settle))
    assert _seen(reader) == _new() and not pending
    assert writer.table().count_rows("area_id = 7") == 15


def test_a_worker_dying_while_settling_leaves_readers_right_and_upkeep_finishes(stores, monkeypatch):
    writer, reader = stores
    staged = writer.staged_replacement(1, 7)
    staged.add(_chunks(12, "neu"), _vectors(12))

    def dies(self, *args, **kwargs):
        raise OSError("killed")

    with monkeypatch.context() as patch:
        patch.setattr(type(writer.table()), "update", dies)
        assert staged.commit() == 12  # shown: the import succeeded, settling is left to upkeep
    assert _seen(reader) == _new()
    assert {h.area_id for h in reader.search(_vectors(1, 9)[0], [7], 100)} == {7}  # the real area, not -generation
    assert {h.area_id for h in reader.chunks_of(1)} == {7}
    writer.maintain()
    assert _seen(reader) == _new() and writer.table().count_rows("area_id = 7") == 15
    assert writer.table().count_rows("area_id < 0") == 0


def test_moving_a_document_with_an_unsettled_import_moves_all_its_chunks(stores, monkeypatch):
    writer, reader = stores
    staged = writer.staged_replacement(1, 7)
    staged.add(_chunks(6, "neu"), _vectors(6))
    with monkeypatch.context() as patch:
        patch.setattr(type(writer.table()), "update", lambda self, *a, **k: (_ for _ in ()).throw(OSError("killed")))
        staged.commit()
    writer.set_area(1, 8)
    assert {h.text.split()[0] for h in reader.search(_vectors(1)[0], [8], 100)} == {"neu"}
    assert reader.search(_vectors(1)[0], [7], 100) and all(h.document_id == 2 for h in reader.search(
        _vectors(1)[0], [7], 100))


def test_moving_and_deleting_a_document_during_staging(stores):
    writer, reader = stores
    staged = writer.staged_replacement(2, 7)
    staged.add(_chunks(4, "neu"), _vectors(4))
    writer.set_area(2, 8)  # moves the visible rows only: the staged ones stay hidden
    assert {h.text.split()[0] for h in reader.search(_vectors(1)[0], [8], 100)} == {"nachbar"}
    writer.delete_document(2)  # removes staged rows too
    assert writer.table().count_rows() == 5


def test_leftovers_of_a_killed_import_stay_hidden_until_the_next_import_or_upkeep(stores):
    writer, reader = stores
    writer.staged_replacement(1, 7).add(_chunks(4, "tot"), _vectors(4))  # never committed nor aborted
    assert _seen(reader) == _old(reader)
    assert purge_hidden(writer.table()) == 0  # younger than a day: could still be running
    second = writer.staged_replacement(1, 7)
    second.add(_chunks(2, "neu"), _vectors(2))
    second.commit()
    assert {h.text.split()[0] for h in reader.chunks_of(1)} == {"neu"} and writer.table().count_rows() == 5
    writer.staged_replacement(2, 7).add(_chunks(2, "tot"), _vectors(2))
    assert purge_hidden(writer.table(), timedelta(0)) == 2 and writer.table().count_rows() == 5


def test_batches_must_continue_the_chunk_numbering(stores):
    writer, _ = stores
    staged = writer.staged_replacement(1, 7)
    staged.add(_chunks(2, "neu"), _vectors(2))
    with pytest.raises(ValueError, match="increasing"):
        staged.add(_chunks(2, "neu"), _vectors(2))
    with pytest.raises(EmbeddingError):
        staged.add(_chunks(2, "neu", start=2), _vectors(3))
    staged.abort()


class _FailingEmbedder(FakeEmbedder):
    """Fails on the n-th call: an embedding service that goes away halfway through a document."""

    def __init__(self, fail_on_call: int) -> None:
        super().__init__(DIM)
        self.calls, self.fail_on_call = 0, fail_on_call

    def embed_documents(self, texts):
        self.calls += 1
        if self.calls == self.fail_on_call:
            raise EmbeddingError("The embedding service is not reachable", f"call {self.calls}")
        return super().embed_documents(texts)


def _new_text(tmp_path, sections: int = 30):
    path = tmp_path / "neu.md"
    path.write_text("\n\n".join(f"Neu Abschnitt {i} Paketverwaltung mit apt. " * 4 for i in range(sections)))
    return path


def test_pipeline_stages_a_long_document_and_readers_see_old_chunks_between_its_batches(stores, tmp_path):
    writer, reader = stores
    seen_between: list[dict] = []

    def progress(stage, done, total):  # called after every embedding batch: the hook between writes
        if stage == "embedding" and done:
            seen_between.append(_seen(reader))

    result = run_import(ImportJob(1, 7, _new_text(tmp_path), "text"), embedder=FakeEmbedder(DIM), store=writer,
                        settings=PipelineSettings(200, 40, batch_size=2, write_rows=4), progress=progress)
    assert result.chunks > 12 and writer.version() > 8  # several batches, each its own commit
    assert seen_between and all(seen == _old(reader) for seen in seen_between)
    chunks = reader.chunks_of(1)
    assert [h.chunk_index for h in chunks] == list(range(result.chunks))
    assert all(not h.text.startswith("alt") for h in chunks) and writer.table().count_rows() == result.chunks + 3


@pytest.mark.parametrize("fail_on_call", [1, 3, 6])
def test_pipeline_failure_in_batch_k_keeps_the_old_chunks_and_no_partial_rows(stores, tmp_path, fail_on_call):
    writer, reader = stores
    embedder = _FailingEmbedder(fail_on_call)
    with pytest.raises(EmbeddingError):
        run_import(ImportJob(1, 7, _new_text(tmp_path), "text"), embedder=embedder, store=writer,
                   settings=PipelineSettings(200, 40, batch_size=2, write_rows=4), progress=lambda *a: None)
    assert embedder.calls == fail_on_call
    assert _seen(reader) == _old(reader) and writer.table().count_rows() == 8


def test_two_workers_switching_documents_at_the_same_time_both_land(stores, tmp_path):
    writer, reader = stores
    other = VectorStore(str(tmp_path / "lance"), "fake-16", DIM, read_consistency_seconds=None)  # a second worker
    first, second = writer.staged_replacement(1, 7), other.staged_replacement(2, 7)
    first.add(_chunks(6, "neu"), _vectors(6))
    second.add(_chunks(4, "neu"), _vectors(4))
    first.commit()  # the second worker's table handle is now behind the first's switch
    second.commit()
    assert {h.text.split()[0] for h in reader.chunks_of(1)} == {"neu"} and len(reader.chunks_of(1)) == 6
    assert {h.text.split()[0] for h in reader.chunks_of(2)} == {"neu"} and len(reader.chunks_of(2)) == 4
    assert reader.table().count_rows() == 10 and reader.table().count_rows("area_id = 7") == 10
