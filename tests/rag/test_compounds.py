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


def test_a_chunk_with_both_parts_of_a_question_compound_matches_it():
    from irisrag.rag.compounds import term_parts, with_parts
    from irisrag.rag.lexical import match, normal_form, terms
    from irisrag.vectors.store import Hit

    question = "Wie hoch ist die Bevölkerungszahl der Kolonie?"
    asked = terms(question)
    parts = term_parts(question, _splitter(), asked)
    assert parts == {normal_form("Bevölkerungszahl"): (normal_form("bevölkerung"), normal_form("zahl"))}
    hits = [Hit(1, 1, 0, None, "Die Zahl der Bevölkerung der Kolonie stieg.", 0.5, 0),
            Hit(2, 1, 0, None, "Die Bevölkerung der Kolonie wuchs.", 0.4, 1),       # one part only
            Hit(3, 1, 0, None, "Die Bevölkerungszahl der Kolonie stieg.", 0.3, 2),  # the compound itself
            Hit(4, 1, 0, None, "Die Bevölkerung der Kolonie muss zahlen.", 0.2, 3)]  # the verb, not the noun
    before = [match(asked, h.lexical_text) for h in hits]
    after = with_parts(before, hits, parts)
    assert normal_form("Bevölkerungszahl") in after[0].terms and after[0].count == before[0].count + 1
    assert after[0].score > before[0].score
    assert after[1:] == before[1:]             # not both parts; already found; "zahlen" is no "Zahl"
    assert term_parts(question, None, asked) == {} and with_parts(before, hits, {}) == before
