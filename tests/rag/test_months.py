"""Dates in digits carry their month's name for the search and the answer's units (``rag/months.py``)."""
from __future__ import annotations

from irisrag.rag.extractive import lexical_share
from irisrag.rag.lexical import terms
from irisrag.rag.months import month_words
from irisrag.vectors.searchtext import SearchText


def test_iso_and_german_dates_name_their_months_and_other_numbers_do_not():
    assert month_words("termin.datum: 2027-07-03, anmeldeschluss: 2027-06-11") == "Juli July Juni June"
    assert month_words("Beginn 13.04.2027, Ende 1.5.") == "April Mai May"
    assert month_words("ab 2026-12-11T06:05:00+01:00") == "Dezember December"
    for other in ("Version 4.18.1-1", "Raum 1.12", "14:00 Uhr", "64,00 EUR", "12.90", "31.13.2027", "2027-13-01"):
        assert month_words(other) == "", other


def test_a_question_naming_the_month_finds_the_record_of_that_date():
    record = "# pruefung\nbezeichnung: Einbürgerungstest\ntermin.datum: 2027-05-08\nanmeldeschluss: 2027-04-16"
    question = terms("Bis wann muss ich mich für den Einbürgerungstest im Mai anmelden?")
    july = record.replace("2027-05-08", "2027-07-03").replace("2027-04-16", "2027-06-11")
    assert lexical_share(question, record) > lexical_share(question, july)
    searched = SearchText.plain(titles=False).chunk("Prüfungstermine", record)
    assert searched.startswith(record) and searched.endswith("Mai May April")
