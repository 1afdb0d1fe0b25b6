"""bench/offtopic_replay.py records, per question noun, which candidate documents hold it and how."""
from __future__ import annotations

from types import SimpleNamespace

from bench.offtopic_replay import _noun_row
from irisrag.rag.bridge import Bridge
from irisrag.rag.compounds import Compounds
from irisrag.rag.dictionary import Dictionary, parse
from irisrag.rag.lexical import normal_form
from irisrag.rag.nouns import question_nouns
from irisrag.vectors.store import Hit

WORDS = Dictionary(parse(["Oktober {m} :: October\n", "Fest {n} :: party\n", "Oktoberfest {n} :: Oktoberfest\n"]))
SPLITTER = Compounds(WORDS)


def _context(*texts: str, bridged: Bridge | None = None) -> SimpleNamespace:
    hits = [Hit(n + 1, 1, 0, None, text, 0.5, n) for n, text in enumerate(texts)]
    return SimpleNamespace(candidates=[SimpleNamespace(hit=h) for h in hits], bridge=bridged or Bridge())


def _row(question: str, *texts: str) -> dict:
    (noun,) = question_nouns(question, SPLITTER)
    return _noun_row(noun, normal_form(noun.word), _context(*texts), WORDS, SPLITTER)


def test_a_compound_known_only_through_its_head_records_where_its_first_part_is():
    row = _row("Wann ist das Oktoberfest?", "Die Mindestlänge legt die Einstellung fest.", "Im Oktober ist Inventur.")
    assert row["listed"] and not row["bridged"]
    assert (row["own"], row["head"], row["modifier"]) == ([], [1], [2])
    assert row["split"] == ["oktober", "fest"]


def test_a_name_outside_the_list_records_the_documents_with_a_word_of_its_first_letters():
    row = _row("Wie lange fährt man nach Sylter?", "Die Sylter Fähre.", "Sylvester ist frei.")
    assert not row["listed"]
    assert row["prefix"] == [1]                      # "sylte": not "sylve"
