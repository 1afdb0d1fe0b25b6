"""The term bridge (bridge.py): unknown question words mapped onto the candidates' words."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from irisrag.rag.bridge import Bridge, BridgeSettings, WordVectors, bridge, unknown_words
from irisrag.rag.lexical import normal_form, terms
from irisrag.vectors.store import Hit

ON = BridgeSettings.plain("embedder", chunks=2, min_similarity=0.8)

# A tiny "embedding" of words: each listed word points along its own meaning's axis.
MEANINGS = {"verteidigung": 0, "defense": 0, "defence": 0, "saison": 1, "season": 1, "mannschaft": 2,
            "team": 2, "crew": 2, "nationalhymne": 8, "national anthem": 8, "fremdwort": 6}


def fake_vectors(calls: list[list[str]] | None = None):
    def embed(words):
        words = list(words)
        if calls is not None:
            calls.append(words)
        rows = np.zeros((len(words), 9), dtype=np.float32)
        for i, word in enumerate(words):
            rows[i, MEANINGS.get(word.lower(), 3 + sum(map(ord, word.lower())) % 3)] = 1.0
        return rows
    return embed


def hit(text: str, document: int = 1) -> Hit:
    return Hit(document, 1, 0, None, text, 0.5, 0)


def test_bridge_settings_from_config():
    assert BridgeSettings.from_config({}) == replace(BridgeSettings.plain(), kind="embedder",
                                                     dictionary="/usr/share/trans/de-en")   # the app's default
    assert not BridgeSettings.plain().enabled
    assert BridgeSettings.from_config({"TERM_BRIDGE": " Embedder ", "BRIDGE_CHUNKS": "7", "BRIDGE_DICTIONARY": "",
                                       "BRIDGE_MIN_SIMILARITY": "0.7"}) == BridgeSettings.plain("embedder", 7, 0.7)
    with pytest.raises(ValueError, match="term bridge"):
        BridgeSettings.plain("dictionary")
    with pytest.raises(ValueError, match="between 0 and 1"):
        BridgeSettings.plain("embedder", evidence=1.5)


def test_unknown_words_are_those_no_candidate_holds():
    question = "Wie stark war die Verteidigung in der Saison 2015?"
    known = [frozenset({normal_form("saison")}), frozenset()]
    assert unknown_words(question, known) == ["stark", "Verteidigung"]  # stop words and numbers are no words


def test_bridge_maps_an_unknown_word_to_the_most_similar_candidate_word():
    dense = [hit("The defense allowed few points."), hit("A long season for the team.")]
    found = bridge("Verteidigung und Saison", ["Verteidigung", "Saison"], dense, ON, fake_vectors())
    assert found.words == {"Verteidigung": "defense", "Saison": "season"}
    assert found.search_words == "defense season"


def test_bridge_needs_the_similarity_and_looks_at_the_first_chunks_only():
    dense = [hit("Points were allowed."), hit("Nothing here."), hit("The defense held.")]
    assert not bridge("Verteidigung", ["verteidigung"], dense, ON, fake_vectors())          # 3rd chunk: not looked at
    assert bridge("Verteidigung", ["verteidigung"], dense, BridgeSettings.plain("embedder", 3, 0.8),
                  fake_vectors()).words == {"verteidigung": "defense"}
    assert not bridge("Verteidigung", ["verteidigung"], dense, BridgeSettings.plain("embedder", 3, 1.01), fake_vectors())


def test_bridge_is_off_without_the_setting_or_unknown_words():
    dense = [hit("The defense held.")]
    calls: list[list[str]] = []
    assert not bridge("Verteidigung", ["verteidigung"], dense, BridgeSettings.plain(), fake_vectors(calls))
    assert not bridge("Verteidigung", [], dense, ON, fake_vectors(calls))
    assert not bridge("Verteidigung", ["verteidigung"], [], ON, fake_vectors(calls))
    assert calls == []  # nothing embedded


def test_bridge_never_maps_onto_a_word_of_the_question():
    dense = [hit("Verteidigung defence")]
    found = bridge("Verteidigung Defence", ["verteidigung"], dense, ON, fake_vectors())
    assert not found  # "defence" is the question's own word, "verteidigung" the unknown one itself


def test_bridged_terms_replace_their_source_terms():
    question_terms = terms("Verteidigung der Panthers")
    bridged = Bridge({"verteidigung": "defense"})
    assert bridged.terms(question_terms) == {normal_form("panthers"), normal_form("defense")}
    assert Bridge().terms(question_terms) == question_terms


def test_word_vectors_embed_each_word_once_and_forget_the_oldest():
    calls: list[list[str]] = []
    words = WordVectors(fake_vectors(calls), capacity=3)
    first = words(["team", "crew", "team"])
    assert first.shape == (3, 9) and first.dtype == np.float32
    assert calls == [["team", "crew"]]
    words(["crew", "season", "defense"])       # "team" is now the oldest of four: forgotten
    assert calls[-1] == ["season", "defense"]
    words(["team"])
    assert calls[-1] == ["team"]
    np.testing.assert_allclose(words(["crew"])[0], fake_vectors()(["crew"])[0])


def test_bridged_terms_get_the_gate_credit_unless_they_are_question_terms():
    bridged = Bridge({"Verteidigung": "defense", "Panther": "panthers"})
    asked = terms("Verteidigung der Panther Panthers")
    assert bridged.credit(asked, 0.5) == {normal_form("defense"): 0.5}   # "panthers" was asked as well
    assert bridged.credit(asked, 1.0) == {}                               # whole credit: nothing to scale
    assert BridgeSettings.from_config({"BRIDGE_EVIDENCE": "0.25"}).evidence == 0.25


def test_a_long_word_without_a_bridge_is_tried_against_two_word_phrases():
    dense = [hit("They sang the national anthem before the game."), hit("The defense held.")]
    found = bridge("Wer sang die Nationalhymne?", ["Nationalhymne"], dense, ON, fake_vectors())
    assert found.words == {"Nationalhymne": "national anthem"}
    assert found.terms(terms("Wer sang die Nationalhymne?")) == {normal_form("sang"), normal_form("national"),
                                                                  normal_form("anthem")}
    calls: list[list[str]] = []
    assert not bridge("Fremdwort", ["Fremdwort"], dense, ON, fake_vectors(calls))   # 9 letters: no phrases
    assert all(" " not in word for batch in calls for word in batch)


def test_words_with_digits_are_never_bridged():
    dense = [hit("Siehe stichwort4 in handbuch-4 und Version v3.")]
    question = "Wo steht stichwort5 in v12?"
    unknown = unknown_words(question, [frozenset()])
    assert unknown == ["steht"]                                              # the identifiers are not offered
    vectors = lambda words: np.ones((len(words), 9), dtype=np.float32) / 3.0  # noqa: E731 (every word alike)
    found = bridge(question, unknown, dense, ON, vectors)
    assert found and not any(ch.isdigit() for ch in found.search_words)     # nor taken


def test_the_question_in_the_documents_words_replaces_whole_words_longest_first():
    bridged = Bridge({"Punkte": "points", "Verteidigung": "defense", "Nationalhymne": "national anthem"})
    assert bridged.translated("Wie viele Punkte gab die Verteidigung ab?") == "Wie viele points gab die defense ab?"
    assert bridged.translated("Punktestand (Punkte) und Nationalhymne.") == "Punktestand (points) und national anthem."
    assert Bridge({"gab": "gave", "gabel": "fork"}).translated("Die gabel gab nach") == "Die fork gave nach"
    assert Bridge().translated("Wie viele Punkte?") == "Wie viele Punkte?"


def test_bridge_vector_search_setting():
    assert BridgeSettings.plain().vector_search and BridgeSettings.from_config({}).vector_search
    assert not BridgeSettings.from_config({"BRIDGE_VECTOR_SEARCH": False}).vector_search
    assert not BridgeSettings.from_config({"BRIDGE_VECTOR_SEARCH": "off"}).vector_search
    assert BridgeSettings.from_config({"BRIDGE_VECTOR_SEARCH": "true"}).vector_search


class Words:
    """A stand-in word list: each German word's translations, first meanings first."""

    def __init__(self, entries):
        self.entries = entries

    def translations(self, word):
        return self.entries.get(word, ())


WORDS = Words({"Mannschaft": ("crew", "team"), "Saison": ("season",), "Fremdwort": ("loanword",)})


def test_the_dictionary_s_translations_are_searched_and_the_embedder_s_words_kept_for_the_gate(monkeypatch):
    dense = [hit("A long season for the team."), hit("A loanword for defense.")]
    monkeypatch.setattr(BridgeSettings, "word_list", lambda self: WORDS)
    question = "Mannschaft, Fremdwort und Verteidigung"
    found = bridge(question, ["Mannschaft", "Fremdwort", "Verteidigung"], dense, replace(ON, dictionary="list"),
                   fake_vectors())
    assert found.words == {"Mannschaft": "team", "Verteidigung": "defense"}     # the embedder's
    assert found.search_only == {"Fremdwort": "loanword"}   # the dictionary's, where it differs ("team": the same)
    assert found.searched(question).split()[-3:] == ["team", "defense", "loanword"]
    assert not found.translated_words
    assert found.crosses       # the word list translated the question: the gate's GATE_TRANSLATED_ALLOWANCE
    assert found.terms(terms(question)) == {normal_form(w) for w in ("team", "fremdwort", "defense")}
    assert Bridge(search_only={"Saison": "season"}) and Bridge(search_only={"a": "b"}).searched("q") == "q b"


def test_with_dictionary_gate_the_translations_count_in_place_of_the_question_s_words(monkeypatch):
    dense = [hit("A long season for the team.")]
    settings = replace(ON, dictionary="list", dictionary_gate=True)
    monkeypatch.setattr(BridgeSettings, "word_list", lambda self: WORDS)
    calls: list[list[str]] = []
    found = bridge("Mannschaft und Saison", ["Mannschaft", "Saison"], dense, settings, fake_vectors(calls))
    assert found.words == {"Mannschaft": "team", "Saison": "season"}       # "crew" is not in the candidates
    assert found.translated_words == {"Mannschaft", "Saison"} and not found.search_only
    assert calls == []                                                     # the embedder was not asked


def test_a_word_whose_translations_the_candidates_lack_goes_to_the_embedder(monkeypatch):
    dense = [hit("The defense allowed few points.")]
    settings = replace(ON, dictionary="list", dictionary_gate=True)
    monkeypatch.setattr(BridgeSettings, "word_list", lambda self: WORDS)
    found = bridge("Saison der Verteidigung", ["Saison", "Verteidigung"], dense, settings, fake_vectors())
    assert found.words == {"Verteidigung": "defense"} and not found.translated_words
    assert not found.crosses   # the embedder's bridge alone is no sign of another language (a spelling, a synonym)


def test_dictionary_settings_from_config(tmp_path):
    settings = BridgeSettings.from_config({"TERM_BRIDGE": "embedder", "BRIDGE_DICTIONARY": str(tmp_path / "none"),
                                           "BRIDGE_DICTIONARY_GATE": "on", "BRIDGE_DICTIONARY_EVIDENCE": "0.5"})
    assert settings.dictionary_gate and settings.dictionary_evidence == 0.5
    assert settings.word_list() is None                                    # a missing file: the embedder alone
    assert BridgeSettings.from_config({"BRIDGE_DICTIONARY": ""}).word_list() is None
    with pytest.raises(ValueError, match="between 0 and 1"):
        BridgeSettings.plain("embedder", dictionary_evidence=2.0)


def test_dictionary_words_get_their_own_gate_credit():
    bridged = Bridge({"Mannschaft": "team", "Verteidigung": "defense"}, translated_words=frozenset({"Mannschaft"}))
    asked = terms("Mannschaft Verteidigung")
    assert bridged.credit(asked, 0.5, 1.0) == {normal_form("defense"): 0.5}
    assert bridged.credit(asked, 0.5, 0.25) == {normal_form("defense"): 0.5, normal_form("team"): 0.25}
    assert bridged.credit(asked, 1.0, 1.0) == {}


def test_words_found_in_records_count_for_the_gate_and_words_found_in_prose_are_searched_only(monkeypatch):
    """Item 5 of issue 37: field names and values of structured data are a closed vocabulary."""
    from irisrag.ingest.records import make_record, record_text

    record = make_record("products", [("name", "Hand pallet truck"), ("loanword", "Kindergarten")])
    monkeypatch.setattr(BridgeSettings, "word_list", lambda self: WORDS)
    settings = replace(ON, dictionary="list", chunks=3)   # BRIDGE_DICTIONARY_GATE off, as the app's default
    found = bridge("Fremdwort des Hubwagens", ["Fremdwort"], [hit(record_text(record)), hit("A loanword.")],
                   settings, fake_vectors())
    assert found.words == {"Fremdwort": "loanword"} and found.translated_words == {"Fremdwort"}
    assert not found.search_only and found.credit(terms("Fremdwort"), 0.5) == {}   # whole credit
    other = make_record("products", [("name", "Hand pallet truck")])
    found = bridge("Fremdwort des Hubwagens", ["Fremdwort"], [hit("A loanword."), hit(record_text(other))],
                   settings, fake_vectors())
    assert found.search_only == {"Fremdwort": "loanword"} and not found.translated_words   # prose: searched only
    found = bridge("Saison und Verteidigung", ["Verteidigung"], [hit(record_text(make_record("t", [("x", "defense")])))],
                   settings, fake_vectors())
    assert found.words == {"Verteidigung": "defense"} and found.translated_words == {"Verteidigung"}  # the embedder's


def test_a_word_translated_whole_marks_the_question_as_another_language_s(monkeypatch):
    words = Words({"Saison": ("season",), "Vollmond": ("full moon",)})
    monkeypatch.setattr(BridgeSettings, "word_list", lambda self: words)
    dense = [hit("A full season.")]
    found = bridge("Saison und Vollmond", ["Saison", "Vollmond"], dense, replace(ON, dictionary="list"),
                   fake_vectors())
    assert found.words == {"Saison": "season"} and found.search_only == {"Vollmond": "full"}
    assert found.whole == {"Saison"}          # "full" is only a part of "full moon": no sign of another language
