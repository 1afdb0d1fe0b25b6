"""The term bridge with the real USE embedder and a real LanceDB (full text in German, as the default)."""
from __future__ import annotations

import functools
from dataclasses import replace

import pytest

from irisrag.embeddings import UseEmbedder
from irisrag.rag.bridge import BridgeSettings, WordVectors
from irisrag.rag.lexical import normal_form
from irisrag.rag.retrieve import GateSettings, RetrievalSettings, build_context
from irisrag.vectors.store import ChunkIn, VectorStore

PARAGRAPHS = [
    "The Panthers defense gave up just 308 points, ranking sixth in the league, while also leading the NFL "
    "in interceptions with 24 and boasting four Pro Bowl selections.",
    "The summer theatre festival ran for eleven seasons in the old harbour warehouse before the city "
    "sold the building to a developer.",
    "The river Rhine flows through six countries and is one of the most important shipping routes in Europe.",
    "Photosynthesis converts light energy into chemical energy stored in glucose inside the chloroplasts.",
    "The university library opened a new reading room with four hundred seats and extended opening hours.",
]
ON = RetrievalSettings.original(mode="hybrid", gate=GateSettings.of(), bridge=BridgeSettings.plain("embedder"))
OFF = replace(ON, bridge=BridgeSettings.plain())


def paragraph_store(directory, embedder) -> VectorStore:
    """A real LanceDB store (German full text) holding each of PARAGRAPHS as one document in area 1."""
    store = VectorStore(str(directory / "lance"), embedder.key, embedder.dim,
                        read_consistency_seconds=None, fts_language="German")
    vectors = embedder.embed_documents(PARAGRAPHS)
    for document, (text, vector) in enumerate(zip(PARAGRAPHS, vectors, strict=True), start=1):
        store.replace_document(document, 1, [ChunkIn(0, text)], vector[None, :])
    store.refresh_indexes()
    return store


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    embedder = UseEmbedder()
    return embedder, paragraph_store(tmp_path_factory.mktemp("bridge"), embedder)


@functools.cache
def words_of(embedder):
    """The term bridge's word vectors, as ``Components.word_vectors`` makes them (the USE embedder's)."""
    return WordVectors(embedder.embed_documents)


def ask(corpus, question, settings, areas=(1,)):
    embedder, store = corpus
    return build_context(question, areas, embedder=embedder, store=store, settings=settings, words=words_of(embedder))


def test_a_german_question_is_searched_with_the_english_words_of_its_paragraph(corpus):
    question = "Wie viele Punkte gab die Verteidigung der Panthers ab?"
    context = ask(corpus, question, ON)
    assert context.bridge.words.get("Verteidigung") == "defense"
    assert context.bridge.words.get("Punkte") == "points"
    assert {normal_form("defense"), normal_form("points")} <= context.terms
    assert normal_form("verteidigung") not in context.terms        # counted as its English word instead
    assert context.chunks and context.chunks[0].hit.document_id == 1
    assert context.chunks[0].match.count >= 3                        # panthers, defense, points
    assert context.timings["bridge"] > 0
    without = ask(corpus, question, OFF)
    assert not without.bridge and without.timings["bridge"] == 0
    assert without.terms == context.terms - {normal_form("defense"), normal_form("points")} \
        | {normal_form("verteidigung"), normal_form("punkte")}


def test_an_english_question_over_english_text_is_searched_as_asked(corpus):
    context = ask(corpus, "In which statistic did the Panthers defense lead the league?", ON)
    assert not context.bridge                                        # every word is in the paragraph
    assert context.chunks[0].hit.document_id == 1


def test_an_irregular_form_the_stemmer_misses_is_bridged_too(corpus):
    context = ask(corpus, "How many points did the Panthers defense give up?", ON)
    assert context.bridge.words == {"give": "gave"}                  # Snowball: "give" -> give, "gave" -> gave
    assert context.chunks[0].hit.document_id == 1


def test_the_bridge_only_sees_the_searched_areas(corpus):
    context = ask(corpus, "Wie viele Punkte gab die Verteidigung der Panthers ab?", ON, areas=(2,))
    assert not context.bridge and not context.chunks and not context.candidates


def test_an_off_topic_german_question_still_gets_no_passages(corpus):
    context = ask(corpus, "Wie beantrage ich Elternzeit bei meinem Arbeitgeber?", ON)
    assert context.chunks == ()


def test_the_gate_takes_the_cosine_of_the_question_in_the_paragraphs_words(corpus):
    question = "Wie viele Punkte gab die Verteidigung der Panthers ab?"
    context = ask(corpus, question, ON)
    assert context.bridge.translated(question) == "Wie viele points gab die defense der Panthers ab?"
    asked = {c.hit.document_id: c.hit.score for c in context.candidates}
    assert context.bridge.cosines[1] > asked[1] + 0.02              # nearer in the paragraph's own words (0.57 vs 0.53)
    evidence = {c.hit.document_id: c.evidence for c in context.candidates if c.evidence is not None}
    plain = ask(corpus, question, replace(ON, bridge=replace(ON.bridge, vector_search=False)))
    assert not plain.bridge.cosines
    plain_evidence = {c.hit.document_id: c.evidence for c in plain.candidates if c.evidence is not None}
    assert evidence[1] == pytest.approx(plain_evidence[1] + context.bridge.cosines[1] - asked[1])
    assert [c.hit.document_id for c in context.candidates] == [c.hit.document_id for c in plain.candidates]


def test_a_failing_second_embedding_keeps_the_bridge_without_its_cosines(corpus, caplog):
    from irisrag.errors import EmbeddingError

    embedder, store = corpus

    class SecondCallFails:
        key, dim = embedder.key, embedder.dim

        def __init__(self):
            self.calls = 0

        def embed_query(self, text):
            self.calls += 1
            if self.calls > 1:
                raise EmbeddingError("The embedding service did not answer")
            return embedder.embed_query(text)

    flaky = SecondCallFails()
    question = "Wie viele Punkte gab die Verteidigung der Panthers ab?"
    context = build_context(question, (1,), embedder=flaky, store=store, settings=ON, words=words_of(embedder))
    assert flaky.calls == 2 and context.bridge.words and not context.bridge.cosines
    assert context.chunks and context.chunks[0].hit.document_id == 1   # the question's own cosines still gate
    assert "bridge_vector_search_failed" in caplog.text


def test_the_debian_word_list_adds_the_words_the_embedder_cannot_bridge(corpus, word_list, tmp_path):
    from irisrag.rag import dictionary

    settings = replace(ON, bridge=replace(ON.bridge, dictionary=str(dictionary.DEFAULT_PATH),
                                          dictionary_cache=str(tmp_path)))
    question = "Wie viele Spielzeiten lief das Sommertheater im alten Lagerhaus?"
    plain, translated = ask(corpus, question, ON), ask(corpus, question, settings)
    assert "Lagerhaus" not in plain.bridge.words and not plain.bridge.search_only
    assert translated.bridge.search_only.get("Lagerhaus") == "warehouse"     # in paragraph 2's words
    assert translated.bridge.search_only.get("Spielzeiten") == "seasons"
    assert "warehouse" in translated.bridge.searched(question)
    assert translated.bridge.words == plain.bridge.words                     # the gate's words: the embedder's
    assert translated.terms == plain.terms
    assert translated.chunks[0].hit.document_id == 2
    assert not ask(corpus, question, settings, areas=(2,)).bridge            # nothing outside the areas
    assert translated.bridge.crosses and not plain.bridge.crosses           # a translated question: another language
    assert translated.bridge.agreed == 2 and plain.bridge.agreed is None    # both legs rank the warehouse first


def test_an_off_topic_german_question_gets_no_passages_with_the_word_list_either(corpus, word_list, tmp_path):
    from irisrag.rag import dictionary

    settings = replace(ON, bridge=replace(ON.bridge, dictionary=str(dictionary.DEFAULT_PATH),
                                          dictionary_cache=str(tmp_path)))
    context = ask(corpus, "Wie beantrage ich Elternzeit bei meinem Arbeitgeber?", settings)
    assert context.chunks == () and {c.gate for c in context.candidates} == {"evidence"}


def test_the_inspector_names_the_lowered_threshold_and_the_agreement(corpus, word_list, tmp_path):
    from flask import render_template

    from irisrag import create_app
    from irisrag.rag import dictionary
    from irisrag.rag.inspect import inspect_document

    embedder, store = corpus
    settings = replace(ON, bridge=replace(ON.bridge, dictionary=str(dictionary.DEFAULT_PATH),
                                          dictionary_cache=str(tmp_path)))
    question = "Wie viele Spielzeiten lief das Sommertheater im alten Lagerhaus?"
    words = words_of(embedder)
    agreed = inspect_document(question, (1,), 2, 1, embedder=embedder, store=store, settings=settings, words=words)
    assert (agreed.evidence_needed, agreed.translated_question, agreed.agreement_bonus) == (0.44, True, 0.12)
    other = inspect_document(question, (1,), 3, 1, embedder=embedder, store=store, settings=settings, words=words)
    assert other.agreement_bonus is None and other.translated_question
    with create_app({"TESTING": True}).test_request_context():
        form = {"question": question, "previous": "", "user": "", "areas": [1], "document": 2}
        html = render_template("admin/_inspector.html", trace=agreed, form=form, users=[], areas=[], documents=[])
    assert "both searches rank this document first" in html and "+0.12" in html
