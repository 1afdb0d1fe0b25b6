"""German synonyms for question words the documents say otherwise (``rag/thesaurus.py``) and their use in the bridge."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from irisrag.rag import thesaurus
from irisrag.rag.bridge import BridgeSettings, bridge
from irisrag.rag.lexical import normal_form
from irisrag.rag.thesaurus import Thesaurus, entry_word, held, parse
from irisrag.vectors.store import Hit

LINES = [
    "# OpenThesaurus - German Thesaurus in text format\n",
    "Dateiverzeichnis;Verzeichnis;Ordner\n",
    "Ordner;Mappe\n",
    "sortieren;ordnen;gruppieren\n",
    "Aufzug;Aufzugsanlage;Lift;Fahrstuhl\n",
    "Gastwirtschaft;Wirtschaft;Gasthaus;Restaurant\n",
    "Kanzleramt;Waschmaschine (ugs., berlinerisch);Bundeskanzleramt\n",
    "Auto;fahrbarer Untersatz (ugs.);Personenwagen\n",
    "A;B;C;D;E;F;G;H;I;J;K;L\n",
]
SYNONYMS = Thesaurus(parse(LINES))
# word vectors: one axis per meaning; "Wirtschaft" means the economy here, not an inn
AXES = {"ordner": 0, "ordnern": 0, "verzeichnis": 0, "dateiverzeichnis": 0, "mappe": 0, "fahrstuhl": 1, "aufzug": 1,
        "aufzugsanlage": 1, "restaurant": 2, "restaurants": 2, "gasthaus": 2, "wirtschaft": 3}


def vectors(words):
    rows = np.zeros((len(words), 5), dtype=np.float32)
    for i, word in enumerate(words):
        rows[i, AXES.get(word.casefold(), 4)] = 1.0
    return rows


def test_entries_are_single_words_without_marked_senses():
    assert entry_word("Lift") == "Lift" and entry_word("Prämie (Hauptform)") == "Prämie"
    assert entry_word("Waschmaschine (ugs., berlinerisch)") is None     # the chancellery, colloquially
    assert entry_word("fahrbarer Untersatz (ugs.)") is None and entry_word("zu Hause") is None


def test_synonyms_of_a_word_and_of_its_inflected_forms_with_case():
    assert SYNONYMS.synonyms("Ordner") == ("Dateiverzeichnis", "Verzeichnis", "Mappe")   # both of its sets
    assert SYNONYMS.synonyms("Ordnern") == SYNONYMS.synonyms("Ordner")                 # "-n" taken off
    assert SYNONYMS.synonyms("ordnen") == ("sortieren", "gruppieren")   # the verb is another word
    assert SYNONYMS.synonyms("Waschmaschine") == () and SYNONYMS.synonyms("Kanzleramt") == ("Bundeskanzleramt",)
    assert SYNONYMS.synonyms("A") == ()                                # a set of twelve is too loose
    assert SYNONYMS.synonyms("Zyxwvu") == ()


def test_an_unknown_noun_maps_onto_the_synonym_the_candidates_hold_in_the_question_s_sense():
    pool = {normal_form(w) for w in ("Verzeichnis", "Aufzug", "Wirtschaft", "Lift", "sortieren")}
    assert held(["Ordnern", "Fahrstuhl"], pool, SYNONYMS, vectors) == {"Ordnern": "Verzeichnis",
                                                                      "Fahrstuhl": "Aufzug"}   # "Lift": too short
    assert held(["Restaurants"], pool, SYNONYMS, vectors) == {}      # "Wirtschaft" held, but in another sense
    assert held(["ordnen"], pool, SYNONYMS, vectors) == {}           # nouns only
    assert held(["Ordner"], {normal_form("Mappe")}, SYNONYMS, vectors) == {"Ordner": "Mappe"}
    assert held(["Ordner"], pool, None, vectors) == {}               # no thesaurus


def test_the_bridge_maps_a_synonym_before_asking_the_embedder(monkeypatch):
    dense = [Hit(1, 1, 0, None, "-R, --recursive Verzeichnisse rekursiv kopieren", 0.5, 0)]
    monkeypatch.setattr(thesaurus, "load", lambda path=None: SYNONYMS)
    monkeypatch.setattr(BridgeSettings, "word_list", lambda self: object.__new__(type("Words", (), {
        "translations": lambda self, word: ()})))
    settings = replace(BridgeSettings.plain("embedder", chunks=2, min_similarity=0.8), dictionary="list")
    found = bridge("Wie kopiere ich einen Ordner?", ["Ordner"], dense, settings, vectors)
    assert found.words == {"Ordner": "Verzeichnis"}      # the embedder would have found nothing
    assert found.searched("Ordner") == "Ordner Verzeichnis"
    monkeypatch.setattr(BridgeSettings, "word_list", lambda self: None)     # no word list: no German, no synonyms
    assert bridge("Wie kopiere ich einen Ordner?", ["Ordner"], dense, settings, vectors).words == {}


def _compounds(*lines: str):
    from irisrag.rag.compounds import Compounds
    from irisrag.rag.dictionary import Dictionary
    from irisrag.rag.dictionary import parse as parse_words

    return Compounds(Dictionary(parse_words(list(lines))))


def test_a_compound_is_tried_with_a_synonym_of_either_part():
    words = _compounds("Ausweis {m} :: pass\n", "Bibliothek {f} :: library\n", "Tür {f} :: door\n",
                       "Aufzug {m} :: lift\n", "Fahrstuhl {m} :: lift\n", "Karte {f} :: card\n")
    synonyms = Thesaurus(parse(["Bücherei;Bibliothek\n", "Aufzug;Fahrstuhl\n", "Ausweis;Karte\n"]))
    # "Bücherei" is no word of the list and "Tür" too short for the splitter: the thesaurus cuts them
    assert "Bibliotheksausweis" in thesaurus.compound_synonyms("Büchereiausweis", synonyms, words)
    assert "Büchereikarte" in thesaurus.compound_synonyms("Büchereiausweis", synonyms, words)   # the head's synonym
    assert "Aufzugstür" in thesaurus.compound_synonyms("Fahrstuhltür", synonyms, words)
    assert thesaurus.compound_synonyms("Zyxwvutsrq", synonyms, words) == []
    assert thesaurus.compound_synonyms("Büchereiausweis", synonyms, None) == []          # no word list: no cut
    pool = {normal_form("Bibliotheksausweis"), normal_form("Aufzug")}
    assert held(["Büchereiausweis"], pool, synonyms, lambda ws: np.ones((len(ws), 2), dtype=np.float32) / 2 ** 0.5,
                words) == {"Büchereiausweis": "Bibliotheksausweis"}
    assert held(["Büchereiausweis"], pool, synonyms, vectors) == {}                   # no splitter: not tried


def test_a_compound_the_stemmer_folds_onto_its_first_part_is_no_synonym():
    words = _compounds("Test {m} :: test\n", "Wiederherstellung {f} :: restoration\n")
    synonyms = Thesaurus(parse(["Wiederherstellung;Wiederherstellen;Sanierung\n"]))
    found = thesaurus.compound_synonyms("Wiederherstellungstest", synonyms, words)
    assert "Sanierungstest" in found
    assert "Wiederherstellentest" not in found   # stems to "wiederherstel", as "Wiederherstellung" itself does
