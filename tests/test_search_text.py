"""The chunks' search text (``searchtext.py``): titles and German compounds in a real LanceDB full-text index."""
from __future__ import annotations

import numpy as np
import pytest

from irisrag.vectors.index import fts_index
from irisrag.vectors.searchtext import SearchText
from irisrag.vectors.store import ChunkIn, VectorStore
from irisrag.vectors.tables import SEARCH_COLUMN, chunk_schema, connect, table_name

DIM = 8
WORDS = ["Hymne {f} :: anthem\n", "national {adj} :: national\n", "Bevölkerung {f} :: population\n",
         "Zahl {f} :: number\n"]


def _vectors(n: int) -> np.ndarray:
    return np.random.default_rng(n).normal(size=(n, DIM)).astype(np.float32)


def _put(store: VectorStore, document_id: int, *texts: str, title: str = "") -> None:
    chunks = [ChunkIn(i, t, None, title) for i, t in enumerate(texts)]
    store.replace_document(document_id, 1, chunks, _vectors(len(texts)))


def _found(store: VectorStore, text: str) -> list[tuple[int, int]]:
    return [(t.hit.document_id, t.hit.chunk_index) for t in store.search_fulltext(text, [1], 10)]


@pytest.fixture
def word_list(tmp_path):
    path = tmp_path / "de-en"
    path.write_text("".join(WORDS), encoding="utf-8")
    return str(path)


def test_a_chunk_is_searched_with_its_documents_title_and_shown_without_it(tmp_path):
    store = VectorStore(str(tmp_path / "lance"), "fake-8", DIM, read_consistency_seconds=None, fts_language="English")
    _put(store, 1, "Diffusion tensor imaging of newborns.", "The second chunk names no subject.",
         title="Cerebral white matter")
    _put(store, 2, "Cerebral arteries in adults.", "Another text.")
    store.refresh_indexes()
    assert _found(store, "white matter") == [(1, 0), (1, 1)]     # the title is in both chunks' search text
    hit = store.search_fulltext("white matter", [1], 10)[1].hit
    assert hit.text == "The second chunk names no subject."    # the text shown is the chunk's own
    untitled = VectorStore(str(tmp_path / "plain"), "fake-8", DIM, read_consistency_seconds=None,
                           fts_language="English", search_text=SearchText.plain(titles=False))
    _put(untitled, 1, "Diffusion tensor imaging of newborns.", title="Cerebral white matter")
    untitled.refresh_indexes()
    assert _found(untitled, "white matter") == []


def test_a_title_the_chunk_contains_is_not_added_again():
    search = SearchText.plain()
    assert search.chunk("Lagerhaus", "Das Lagerhaus am Hafen") == "Das Lagerhaus am Hafen"
    assert search.chunk("  Das   Lager ", "Ein Text") == "Das Lager\nEin Text"
    assert search.chunk("", "Ein Text") == "Ein Text"


def test_german_compounds_are_split_on_both_sides(tmp_path, word_list):
    search = SearchText.plain(compounds=word_list)
    store = VectorStore(str(tmp_path / "lance"), "fake-8", DIM, read_consistency_seconds=None,
                        fts_language="German", search_text=search)
    _put(store, 1, "Die Nationalhymne wurde gesungen.")
    _put(store, 2, "Die Bevölkerung wuchs.")
    _put(store, 3, "Ein Lied ohne Worte.")
    store.refresh_indexes()
    assert _found(store, "Hymne") == [(1, 0)]                     # the document's compound, split
    assert _found(store, "Bevölkerungszahl") == [(2, 0)]          # the question's compound, split
    plain = VectorStore(str(tmp_path / "plain"), "fake-8", DIM, read_consistency_seconds=None, fts_language="German")
    _put(plain, 1, "Die Nationalhymne wurde gesungen.")
    _put(plain, 2, "Die Bevölkerung wuchs.")
    plain.refresh_indexes()
    assert _found(plain, "Hymne") == [] and _found(plain, "Bevölkerungszahl") == []


def test_compounds_only_for_german_and_with_the_word_list(tmp_path, word_list):
    config = {"FTS_LANGUAGE": "German", "BRIDGE_DICTIONARY": word_list, "INSTANCE_PATH": str(tmp_path)}
    assert SearchText.from_config(config).compounds == word_list
    assert SearchText.from_config({**config, "FTS_LANGUAGE": "English"}).compounds == ""
    assert SearchText.from_config({**config, "FULLTEXT_COMPOUNDS": "false"}).compounds == ""
    assert SearchText.from_config({**config, "FULLTEXT_TITLES": "false"}).titles is False
    missing = SearchText.from_config({**config, "BRIDGE_DICTIONARY": str(tmp_path / "none")})
    assert missing.splitter() is None and missing.chunk("", "Nationalhymne") == "Nationalhymne"
    assert missing.as_dict()["compounds_found"] is False


def _older_table(uri: str) -> VectorStore:
    """A chunk table with the schema from before the search text column, one titled document in it."""
    connect(uri).create_table(table_name("fake-8"), schema=chunk_schema(DIM, "fake-8", search_text=False))
    store = VectorStore(uri, "fake-8", DIM, read_consistency_seconds=None, fts_language="English")
    _put(store, 1, "Diffusion tensor imaging.", title="Cerebral white matter")
    store.refresh_indexes()
    return store


def test_a_table_made_before_the_search_text_keeps_indexing_the_text(tmp_path):
    store = _older_table(str(tmp_path / "lance"))
    table = store.table()
    assert SEARCH_COLUMN not in table.schema.names and fts_index(table) is not None
    assert _found(store, "diffusion") == [(1, 0)] and _found(store, "white matter") == []
    store.drop()                                                   # a rebuild makes the table anew
    _put(store, 1, "Diffusion tensor imaging.", title="Cerebral white matter")
    store.refresh_indexes()
    assert SEARCH_COLUMN in store.table().schema.names
    assert _found(store, "white matter") == [(1, 0)]


def test_init_db_adds_the_column_to_a_table_made_before_it(tmp_path):
    from irisrag.vectors.index import add_search_text

    uri = str(tmp_path / "lance")
    _older_table(uri)
    old = connect(uri).open_table(table_name("fake-8"))      # as init-db opens it
    assert add_search_text(old, "English") is True and add_search_text(old, "English") is False
    migrated = VectorStore(uri, "fake-8", DIM, read_consistency_seconds=None, fts_language="English")
    assert _found(migrated, "diffusion") == [(1, 0)]                # the old rows: their text, searchable
    assert _found(migrated, "white matter") == []                   # ... without the title until re-imported
    _put(migrated, 1, "Diffusion tensor imaging.", title="Cerebral white matter")   # a rebuild of the document
    _put(migrated, 2, "Another text.")
    migrated.refresh_indexes()
    assert _found(migrated, "white matter") == [(1, 0)]
    assert fts_index(migrated.table()).index_details["language"] == "English"


def _unit(*values: float) -> np.ndarray:
    vector = np.array([*values, *[0.0] * (DIM - len(values))], dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_the_gate_and_the_sources_match_the_question_in_the_search_text(tmp_path):
    """A question whose words are only in the document's title (its file name) gets the document, as full text found it."""
    from irisrag.rag.retrieve import RetrievalSettings, build_context

    store = VectorStore(str(tmp_path / "lance"), "fake-8", DIM, read_consistency_seconds=None, fts_language="German")
    chunks = [ChunkIn(0, "Am ersten Mai wird im Park gesungen und getanzt.", None, "Hymnen und Feiern")]
    store.replace_document(1, 1, chunks, _unit(1.0)[None, :])
    store.replace_document(2, 1, [ChunkIn(0, "Die Kantine öffnet um acht Uhr.", None, "Kantine")], _unit(0.0, 1.0)[None, :])
    store.refresh_indexes()
    settings = RetrievalSettings.from_config({"RETRIEVAL_MODE": "hybrid", "GATE_RULE": "evidence",
                                              "TERM_BRIDGE": "none", "CONTEXT_SPREAD": "true"})
    context = build_context("Welche Hymnen und Feiern gibt es?", [1], embedder=None, store=store, settings=settings,
                            query_vector=_unit(0.1, 0.0, 1.0))      # cosine 0.1 to the document: the words decide
    assert [c.hit.document_id for c in context.chunks] == [1]
    assert context.chunks[0].hit.text == chunks[0].text           # shown and cited without the title
    assert context.chunks[0].match.terms == context.terms           # both words, from the title
    assert [s.document_id for s in context.sources] == [1]
    old = _older_table(str(tmp_path / "old"))                       # no search text: the text is matched
    hit = old.search(_unit(1.0), [1], 5)[0]
    assert hit.search_text == "" and hit.lexical_text == hit.text
