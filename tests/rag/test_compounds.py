"""The German compound splitter (``rag/compounds.py``) on a small word list in the Ding format."""
from __future__ import annotations

from irisrag.rag.compounds import Compounds
from irisrag.rag.dictionary import parse

LINES = [
    "Hymne {f} :: anthem\n",
    "national {adj} :: national\n",
    "Bevölkerung {f} :: population\n",
    "Zahl {f} :: number\n",
    "Kolonie {f} :: colony\n",
    "Behörde {f} :: authority\n",
    "enden {vi} :: to end\n",
    "laufen {vi} :: to run\n",
    "Lauf {m} :: run\n",
]


def _splitter() -> Compounds:
    from irisrag.rag.dictionary import Dictionary

    return Compounds(Dictionary(parse(LINES)))


def test_a_compound_noun_splits_into_a_word_and_its_head_noun():
    split = _splitter().split
    assert split("Nationalhymne") == ("national", "hymne")
    assert split("Bevölkerungszahl") == ("bevölkerung", "zahl")       # the linking "s" is dropped
    assert split("Kolonialbehörden") == ()                            # "Behörden": not a word of the list
    assert split("Kolonienbehörde") == ("kolonie", "behörde")         # linking "n"


def test_only_long_capitalised_words_whose_end_is_a_noun_are_split():
    split = _splitter().split
    assert split("nationalhymne") == ()      # not capitalised: not a noun
    assert split("Laufenden") == ()          # "enden" is a verb in the list, not a noun
    assert split("Zahllauf") == ()           # 8 letters: too short to be split
    assert split("Zahlenlauf") == ("zahl", "lauf")   # 10 letters, linking "en"


def test_parts_of_a_text_in_order():
    assert _splitter().parts("Die Nationalhymne und die Bevölkerungszahl; 1990.") == [
        "national", "hymne", "bevölkerung", "zahl"]
    assert _splitter().parts("") == []


def test_a_question_compound_s_head_stands_for_it_in_an_answer_unit():
    from irisrag.rag.compounds import head_alternates
    from irisrag.rag.extractive import lexical_share
    from irisrag.rag.lexical import terms

    question = "Wie hoch ist die Bevölkerungszahl der Kolonienbehörde?"
    heads = head_alternates(question, _splitter())
    assert heads == {"zahl": "bevolkerungszahl", "behorde": "kolonienbehord"}
    plain = lexical_share(terms(question), "Die Zahl liegt bei 40.")
    assert lexical_share(terms(question), "Die Zahl liegt bei 40.", None, heads) > plain == 0.0
    assert head_alternates(question, None) == {}
