"""The evidence gate with the real e5 embedder: its calibrated threshold, not USE's, tells off-topic questions."""
from __future__ import annotations

from dataclasses import replace

import pytest

from irisrag.config import load
from irisrag.embeddings import E5Embedder, UseEmbedder
from irisrag.rag.retrieve import GateSettings, RetrievalSettings, build_context

from .test_bridge_use import paragraph_store, words_of

USE = UseEmbedder()
E5 = RetrievalSettings.from_config(load({"IRISRAG_EMBEDDER": "e5"}))
USE_NUMBERS = replace(E5, gate=GateSettings.of())      # the app's gate as it was for every embedder
OFF_TOPIC = ["Statins increase blood cholesterol.", "Wie beantrage ich Elternzeit bei meinem Arbeitgeber?",
             "Which enzyme phosphorylates the T cell receptor?"]
ON_TOPIC = {"How many points did the Panthers defense give up?": 1,
            "Wie viele Punkte gab die Verteidigung der Panthers ab?": 1,
            "Durch wie viele Länder fließt der Rhein?": 3,
            "Where is the chemical energy of photosynthesis stored?": 4}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    embedder = E5Embedder()
    return embedder, paragraph_store(tmp_path_factory.mktemp("gate-e5"), embedder)


def ask(corpus, question, settings):
    embedder, store = corpus
    return build_context(question, [1], embedder=embedder, store=store, settings=settings,
                         words=words_of(USE))   # the bridge's words: USE's, whatever EMBEDDER is


@pytest.mark.parametrize("question", OFF_TOPIC)
def test_an_off_topic_question_gets_no_passages_with_e5s_calibrated_gate(corpus, question):
    assert ask(corpus, question, E5).chunks == ()


def test_uses_threshold_let_off_topic_questions_through_with_e5(corpus):
    english = [q for q in OFF_TOPIC if not q.startswith("Wie")]
    assert all(ask(corpus, question, USE_NUMBERS).chunks for question in english)   # the defect it fixes
    # none of the German question's nouns is in the paragraphs: the noun rule refuses it with either
    # threshold (nouns.none_known; the word list is German, so it does not act on the English ones)
    assert ask(corpus, "Wie beantrage ich Elternzeit bei meinem Arbeitgeber?", USE_NUMBERS).chunks == ()


@pytest.mark.parametrize(("question", "document"), ON_TOPIC.items())
def test_an_on_topic_question_gets_its_paragraph_with_e5s_calibrated_gate(corpus, question, document):
    context = ask(corpus, question, E5)
    assert context.chunks and context.chunks[0].hit.document_id == document
