"""The context gate: the original's lexical rule, and the default that keeps what the ranking is sure of."""
from __future__ import annotations

import pytest

from irisrag.config import DEFAULTS
from irisrag.rag.retrieve import GateSettings, RetrievalSettings, build_context

from .fakes import unit

QUESTION = "Wer hat die Brücke über den Fluss entworfen?"       # German ...
ENGLISH = "The bridge across the river was designed by Gustave Eiffel in 1884."  # ... English answer: no shared term
OTHER = "Opening hours of the museum shop are listed on the website."

RANKED = RetrievalSettings(gate=GateSettings(rule="ranked", top_documents=2, min_similarity=0.3))
LEXICAL = RetrievalSettings(gate=GateSettings(rule="lexical"))


def _ask(store, embedder, settings):
    return build_context(QUESTION, [1], embedder=embedder, store=store, settings=settings)


def test_gate_ranked_keeps_the_top_document_across_languages(store, embedder):
    store.add(1, 1, 0, ENGLISH, unit(0.45))
    store.add(2, 1, 0, OTHER, unit(0.2))
    ranked = _ask(store, embedder, RANKED)
    assert [c.hit.document_id for c in ranked.chunks] == [1]          # the sure one, not the weak second
    assert {c.hit.document_id: c.gate for c in ranked.candidates} == {1: None, 2: "lexical"}
    original = _ask(store, embedder, LEXICAL)
    assert original.chunks == () and all(c.gate == "lexical" for c in original.candidates)


def test_gate_ranked_only_trusts_the_first_documents(store, embedder):
    for doc in range(3):
        store.add(doc, 1, 0, f"{ENGLISH} ({doc})", unit(0.5 - doc * 0.01))
    ranked = _ask(store, embedder, RANKED)
    assert [c.hit.document_id for c in ranked.chunks] == [0, 1]  # the third is below GATE_TOP_DOCUMENTS


def test_gate_ranked_still_answers_an_off_topic_question_with_nothing(store, embedder):
    store.add(1, 1, 0, OTHER, unit(0.25))  # the nearest chunk, but not similar: below GATE_MIN_SIMILARITY
    assert _ask(store, embedder, RANKED).chunks == ()


def test_gate_settings_from_config_and_validation():
    gate = RetrievalSettings.from_config({"GATE_RULE": "Lexical", "GATE_TOP_DOCUMENTS": "5",
                                          "GATE_MIN_SIMILARITY": "0.4"}).gate
    assert gate == GateSettings(rule="lexical", top_documents=5, min_similarity=0.4)
    assert RetrievalSettings.from_config(DEFAULTS).gate.rule == "ranked"  # the app's default
    assert RetrievalSettings().gate.rule == "lexical"  # the original's, for callers that pass nothing
    with pytest.raises(ValueError, match="unknown gate rule"):
        GateSettings(rule="semantic")
