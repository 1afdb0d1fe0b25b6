"""A long record shows the fields that answer (record_fields), a short one is shown whole."""
from __future__ import annotations

from irisrag.rag import record_fields
from irisrag.rag.extractive import compose
from irisrag.rag.lexical import terms
from tests.rag.test_extractive import make_context

INCIDENT = [("id", "ST-2026-0311"), ("sparte", "Strom"), ("status", "closed"), ("ort.ortsteil", "Ostheide"),
            ("ort.strasse", "Lindenallee"), ("ort.netz.ebene", "MS"), ("ort.netz.station", "UW Ostheide"),
            ("zeit.beginn", "2026-10-14T07:42:00+02:00"), ("zeit.ende", "2026-10-14T10:05:00+02:00"),
            ("betroffen.kunden", "1240"), ("betroffen.kritische_infrastruktur", "Pflegeheim Am Anger"),
            ("ursache.code", "EXT-BAU"),
            ("ursache.description", "Medium-voltage cable damaged by a third-party excavator (road works)"),
            ("massnahmen", "Umschaltung über Ring Nord; Notstromaggregat für Pflegeheim; Muffe gesetzt"),
            ("meldung.quelle", "Leitstelle"), ("meldung.eingang", "2026-10-14T07:44:00+02:00"),
            ("bericht.autor", "Netzleitstelle Schicht B"), ("bericht.version", "3"),
            ("bericht.freigabe", "2026-10-20"), ("bericht.pfad", "/netze/stoerungen/2026/ST-2026-0311.pdf")]


def _chunk(fields):
    return "# stoerungen\n" + "\n".join(f"{n}: {v}" for n, v in fields)


def test_a_table_reads_back_with_its_bars():
    fields = [("Name", "A | B"), ("Preis", "3 €")]
    assert record_fields.parse(record_fields.table("liste", fields)) == ("liste", fields)
    assert record_fields.parse("| a | b |\n| 1 | 2 |") is None  # no table written by table()


def test_a_short_record_is_shown_whole():
    text = record_fields.table("t", INCIDENT[:6])
    assert record_fields.shown(text, lambda _: False, frozenset()) == text


def test_a_long_record_keeps_its_key_the_matching_fields_and_its_prose_within_the_limit():
    question = terms("Warum ist in Ostheide der Strom ausgefallen?")
    shown = record_fields.shown(record_fields.table("stoerungen", INCIDENT),
                                lambda text: bool(terms(text) & question), frozenset())
    title, fields = record_fields.parse(shown)
    names = [n for n, _ in fields]
    assert names[:4] == ["id", "sparte", "ort.ortsteil", "ort.netz.station"]  # the key, then the matches in order
    assert "ursache.description" in names and "massnahmen" in names  # prose says why
    assert "bericht.version" not in names and names[-1] == record_fields.OMITTED
    assert sum(len(n) + len(v) + 2 for n, v in fields) <= record_fields.RECORD_CHARS


def test_a_long_record_keeps_the_asked_kind_of_span_before_prose():
    matches = lambda text: "Lindenallee" in text  # noqa: E731
    assert record_fields.chosen(INCIDENT, matches, frozenset()) == {0, 4, 12, 13}  # key, match, prose
    # "Wann ...?": every field holding a time or a year (the report's path names 2026), then the prose
    assert record_fields.chosen(INCIDENT, matches, frozenset({"time"})) == {0, 4, 7, 8, 12, 13, 15, 18, 19}


def test_the_answer_shows_a_long_record_trimmed_and_in_its_order():
    context = make_context(_chunk(INCIDENT), question="Warum ist am 14. Oktober in Ostheide der Strom ausgefallen?")
    text = compose(context.question, context, None)
    assert "| ursache.description | Medium-voltage cable damaged" in text and "\n| … |" in text
    assert text.index("| sparte |") < text.index("| ursache.description |")
    assert "bericht.pfad" not in text and len(text) < 500


def test_a_number_only_inside_a_code_matches_no_field():
    question = "Was war die Ursache der Störung ST-2026-0311 in Ostheide?"
    assert "2026" not in record_fields.field_terms(question, terms(question))
    assert "2026" in record_fields.field_terms("Welche Störungen gab es 2026?", terms("Welche Störungen gab es 2026?"))
    assert "10" in record_fields.field_terms("Was geschah am 2026-12-10?", terms("Was geschah am 2026-12-10?"))
    context = make_context(_chunk(INCIDENT), question=question)
    text = compose(context.question, context, None)
    assert "| ST-2026-0311 |" in text and "| ursache.description |" in text
    assert "zeit.beginn" not in text and "bericht.freigabe" not in text  # dates hold "2026", the code's year
