"""Full-text search and index upkeep of VectorStore on a real LanceDB in tmp_path."""
from __future__ import annotations

import numpy as np
import pytest

from irisrag.vectors.store import ChunkIn, VectorStore

DIM = 8


def _vectors(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)


def _put(store: VectorStore, document_id: int, area_id: int, *texts: str, seed: int = 0) -> None:
    store.replace_document(document_id, area_id, [ChunkIn(i, t) for i, t in enumerate(texts)],
                           _vectors(len(texts), seed + document_id))


def _found(store: VectorStore, text: str, areas=(1, 2, 3), k: int = 10) -> list[tuple[int, int]]:
    return [(t.hit.document_id, t.hit.chunk_index) for t in store.search_fulltext(text, areas, k)]


@pytest.fixture
def store(tmp_path) -> VectorStore:
    return VectorStore(str(tmp_path / "lance"), "fake-8", DIM, read_consistency_seconds=None)


def test_fulltext_needs_an_index_and_refresh_creates_it_once(store):
    assert store.refresh_indexes() == "none"  # no table yet
    assert store.search_fulltext("Haus", [1], 5) == []
    _put(store, 1, 1, "Das Haus am See", "Ein Garten")
    assert _found(store, "Haus") == []  # no index: nothing, and no error
    assert store.refresh_indexes() == "created"
    assert _found(store, "Haus") == [(1, 0)]
    version = store.version()
    assert store.refresh_indexes() == "current"
    assert store.version() == version  # nothing changed: nothing written


def test_fulltext_german_stemming_and_ranking(store):
    _put(store, 1, 1, "Die Häuser wurden 1990 entwickelt.")
    _put(store, 2, 1, "Berechtigungen für Gruppen konfigurieren.")
    _put(store, 3, 1, "Ein Baum im Park.")
    store.refresh_indexes()
    assert _found(store, "Haus") == [(1, 0)]              # Häuser -> haus
    assert _found(store, "entwickelte Häuser") == [(1, 0)]
    assert _found(store, "Berechtigung Gruppe") == [(2, 0)]
    hits = store.search_fulltext("Haus Baum Baum", [1], 10)
    assert [h.hit.rank for h in hits] == list(range(len(hits)))
    assert [h.bm25 for h in hits] == sorted((h.bm25 for h in hits), reverse=True)
    assert {h.hit.document_id for h in hits} == {1, 3}


def test_fulltext_english_tokenizer_when_configured(tmp_path):
    store = VectorStore(str(tmp_path / "lance"), "fake-8", DIM, read_consistency_seconds=None, fts_language="English")
    _put(store, 1, 1, "The studies were running for years.")
    store.refresh_indexes()
    assert _found(store, "study run") == [(1, 0)]
    assert VectorStore(str(tmp_path / "x"), "fake-8", DIM, fts_language=" english ").fts_language == "English"
    with pytest.raises(ValueError, match="Klingon"):
        VectorStore(str(tmp_path / "x"), "fake-8", DIM, fts_language="Klingon")


def test_fulltext_language_change_rebuilds_the_index(tmp_path):
    uri = str(tmp_path / "lance")
    german = VectorStore(uri, "fake-8", DIM, read_consistency_seconds=None, fts_language="German")
    _put(german, 1, 1, "The studies were running.")
    german.refresh_indexes()
    assert _found(german, "study") == []  # the German stemmer leaves "studies" alone
    english = VectorStore(uri, "fake-8", DIM, read_consistency_seconds=None, fts_language="English")
    assert english.refresh_indexes() == "created"
    assert _found(english, "study") == [(1, 0)]


def test_fulltext_prefilters_areas_before_the_limit(store):
    for doc in range(20):  # better matches in a forbidden area
        _put(store, 100 + doc, 2, "Observability Observability Observability")
    _put(store, 1, 1, "Observability mit OpenTelemetry")
    _put(store, 2, 3, "Nur Observability")
    store.refresh_indexes()
    hits = store.search_fulltext("Observability", [1, 3], 2)
    assert sorted(h.hit.document_id for h in hits) == [1, 2]
    assert {h.hit.area_id for h in hits} == {1, 3}
    assert store.search_fulltext("Observability", [], 5) == []
    assert store.search_fulltext("Observability", [1], 0) == []
    assert len(store.search_fulltext("Observability", [1, 2, 3], 7)) == 7


def test_fulltext_rows_written_after_the_index(store):
    """lancedb 0.40 finds unindexed rows (flat scan); refresh folds them into the index."""
    _put(store, 1, 1, "Der Exporter sendet Metriken.", "Zweiter Abschnitt.")
    store.refresh_indexes()
    _put(store, 2, 1, "Der Exporter sendet Metriken.")
    assert sorted(_found(store, "Exporter")) == [(1, 0), (2, 0)]  # found before any refresh
    assert store.refresh_indexes() == "optimized"
    assert store.refresh_indexes() == "current"
    scores = {t.hit.document_id: t.bm25 for t in store.search_fulltext("Exporter", [1], 5)}
    assert scores[1] == pytest.approx(scores[2])  # one set of term statistics for old and new rows
    _put(store, 1, 1, "Jetzt ohne das Wort.")  # replaced: the old text is gone at once
    assert _found(store, "Exporter") == [(2, 0)]
    store.delete_document(2)
    assert _found(store, "Exporter") == []
    assert store.refresh_indexes() == "optimized"  # the replacement row is new
    assert _found(store, "Wort") == [(1, 0)]


def test_fulltext_query_syntax_is_plain_words(store):
    _put(store, 1, 1, 'Das "Haus" (alt): foo-bar AND baz*')
    store.refresh_indexes()
    for query in ['"Haus"', "(Haus)", "text:Haus", "Haus~2", "Haus^3", "foo-bar", "Haus AND", 'Haus"']:
        assert _found(store, query) == [(1, 0)], query
    for query in ["", "   ", "*", '"', "der die das"]:
        assert _found(store, query) == [], query


def test_fulltext_cosine_of_the_query_vector(store):
    vectors = np.eye(DIM, dtype=np.float32)[:2] * 3
    store.replace_document(1, 1, [ChunkIn(0, "Haus eins"), ChunkIn(1, "Haus zwei")], vectors)
    store.refresh_indexes()
    query = np.eye(DIM, dtype=np.float32)[0] * 0.5
    by_chunk = {t.hit.chunk_index: t.hit.score for t in store.search_fulltext("Haus", [1], 5, vector=query)}
    assert by_chunk == {0: pytest.approx(1.0), 1: pytest.approx(0.0)}
    assert {t.hit.score for t in store.search_fulltext("Haus", [1], 5)} == {0.0}


def test_replace_documents_is_one_commit_and_drops_leftovers(store):
    _put(store, 1, 1, "a", "b", "c")
    before = store.version()
    store.replace_documents([(1, 2, [ChunkIn(0, "neu")], _vectors(1)),
                             (2, 2, [ChunkIn(0, "x"), ChunkIn(1, "y")], _vectors(2, 5))])
    assert store.version() == before + 1
    assert store.count_by_document() == {1: 1, 2: 2}
    assert [h.text for h in store.chunks_of(1)] == ["neu"]
    store.replace_documents([(2, 2, [], _vectors(0))])
    assert store.count_by_document() == {1: 1}
