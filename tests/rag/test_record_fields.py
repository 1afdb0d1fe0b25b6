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
    assert record_fields.shown(text, lambda _: frozenset(), frozenset()) == text


def test_a_long_record_keeps_its_key_the_matching_fields_and_its_prose_within_the_limit():
    question = terms("Warum ist in Ostheide der Strom ausgefallen?")
    shown = record_fields.shown(record_fields.table("stoerungen", INCIDENT),
                                lambda text: terms(text) & question, frozenset())
    title, fields = record_fields.parse(shown)
    names = [n for n, _ in fields]
    assert names[:4] == ["id", "sparte", "ort.ortsteil", "ort.netz.station"]  # the key, then the matches in order
    assert "ursache.description" in names and "massnahmen" in names  # prose says why
    assert "bericht.version" not in names and names[-1] == record_fields.OMITTED
    assert sum(len(n) + len(v) + 2 for n, v in fields) <= record_fields.RECORD_CHARS


def test_a_long_record_keeps_the_asked_kind_of_span_before_prose():
    matches = lambda text: frozenset({"lindenallee"}) if "Lindenallee" in text else frozenset()  # noqa: E731
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


BRANCH = [("kuerzel", "HM"), ("name", "Stadtteilbibliothek Hafenmühle"), ("adresse.ort", "Falkenried-Hafenmühle"),
          ("adresse.lage", "in der alten Hafenmühle"), ("email", "hafenmuehle@stadtbibliothek-falkenried.example"),
          ("selbstoeffnung.voraussetzungen", "gültiger Bibliotheksausweis, Mindestalter 18 Jahre, einmalige "
                                             "Einweisung und unterschriebene Nutzungsvereinbarung"),
          ("selbstoeffnung.kinder", "Kinder und Jugendliche nur in Begleitung einer berechtigten Person"),
          ("barrierefrei", "false"),
          ("hinweise_barrierefreiheit", "Eingang über drei Stufen; mobile Rampe auf Klingelzeichen, nur während der "
                                        "Servicezeiten"), ("wlan", "StaBi-Gast")]


def test_a_long_record_shows_the_fields_closest_to_the_question_before_more_matches_of_its_name():
    # eval/holdout9-de st-05: "Rollstuhl" shares no word with the accessibility field; the fields repeating
    # "Hafenmühle" and the prose before it took the room.
    matches = lambda text: frozenset({"hafenmuhl"}) if "Hafenmühle" in text or "hafenmuehle" in text else frozenset()  # noqa: E731
    asked = []

    def similarity(texts, record):
        asked.append((texts, record))
        return [1.0 if text.startswith("hinweise barrierefreiheit:") else 0.5 if "barrierefrei" in text else 0.0
                for text in texts]

    kept = record_fields.chosen(BRANCH, matches, frozenset(), similarity)
    assert {0, 1, 7, 8} <= kept                       # the key, the first match, the two closest fields
    texts, record = asked[0]
    assert "hinweise barrierefreiheit: Eingang über drei Stufen; mobile Rampe auf Klingelzeichen, nur während der " \
           "Servicezeiten" in texts and "Hafenmühle" in record
    before = record_fields.chosen(BRANCH, matches, frozenset())   # without an embedder: the matches, then prose
    assert before >= {0, 1, 2, 3, 4, 5} and 8 not in before


def test_the_pieces_of_a_record_split_across_chunks_are_scored_apart_and_shown_as_one_record():
    from irisrag.ingest.records import make_record, split_record
    from irisrag.rag.extractive import candidates, whole_records

    pieces = split_record(make_record("standorte", BRANCH), 300)
    other = "# standorte\nkuerzel: HM\nname: Stadtteilbibliothek Hafenmühle\nadresse.ort: Hafenmühle-Süd"
    assert len(pieces) >= 2
    context = make_context(*reversed(pieces), other, question="Wie heißt das WLAN in der Hafenmühle?")
    assert len(candidates(context)) == len(pieces) + 1                 # scored apart
    wholes = list(whole_records(context).values())
    assert len(wholes) == 1 and sorted(record_fields.parse(wholes[0])[1]) == sorted(BRANCH)
    text = compose(context.question, context, None, budget=2000)
    assert text.count("| kuerzel | HM |") == 2                          # the record once, the other record once
    assert "| wlan | StaBi-Gast |" in text and "Hafenmühle-Süd" in text


def test_fields_that_only_repeat_the_record_s_name_come_last():
    # eval/holdout9-de st-01: "Bis wann hat die Bibliothek im Kornspeicher samstags auf?" showed the equipment
    # list ("…; Bibliothek der Dinge; …") because it says "Bibliothek", as the record's name does.
    fields = [("kuerzel", "ZB"), ("name", "Zentralbibliothek im Kornspeicher"),
              *((f"oeffnungszeiten.{day}", "10:00–19:00") for day in ("dienstag", "mittwoch", "donnerstag", "freitag")),
              ("oeffnungszeiten.samstag", "10:00–14:00"),
              ("rueckgabeautomat.hinweis", "keine Medien der Bibliothek der Dinge und keine Medienkisten einwerfen"),
              ("ausstattung", "Kinder- und Jugendbibliothek (1. OG); Lernwerkstatt (2. OG); Kornboden (Saal, 3. OG); "
                              "Bibliothek der Dinge; 3 Selbstverbuchungsterminals; 12 Internet-PCs; Leselounge"),
              ("wlan", "StaBi-Gast")]
    asked = {"bibliothek", "kornspeich", "samstag"}
    matches = lambda text: frozenset(t for t in asked if t in text.lower().replace("ß", "ss"))  # noqa: E731
    kept = record_fields.chosen(fields, matches, frozenset({"time"}))
    assert {0, 1, 6} <= kept and 8 not in kept     # the Saturday hours; not the equipment list


def test_a_question_word_inside_a_path_is_no_match_worth_showing():
    # The whole incident record (joined from its pieces) showed "bericht.pfad" for "Störung" in the path.
    def matches(text):
        return frozenset({"ostheid"} if "Ostheide" in text else ()) | frozenset({"storung"} if "stoerungen" in text else ())
    kept = record_fields.chosen(INCIDENT, matches, frozenset())
    assert 3 in kept and 19 not in kept


def test_a_matching_field_of_the_asked_kind_leaves_the_other_fields_of_that_kind_out():
    branch = [("kuerzel", "ZB"), ("name", "Zentralbibliothek im Kornspeicher"),
              *[(f"oeffnungszeiten.{day}", "10:00–19:00") for day in ("dienstag", "mittwoch", "donnerstag", "freitag")],
              ("oeffnungszeiten.samstag", "10:00–14:00"), ("rueckgabeautomat.ort", "Eingang Kornmarkt, links"),
              ("rueckgabeautomat.zeiten", "rund um die Uhr"), ("parken", "Parkhaus Kornmarkt, erste Stunde frei"),
              ("ausstattung", "Lesecafé; Makerspace; Bibliothek der Dinge; Gruppenräume; Kornboden")]
    asked = terms("Bis wann hat die Bibliothek im Kornspeicher samstags auf?") | {"samstag"}
    kept = record_fields.chosen(branch, lambda text: terms(text) & asked, frozenset({"time"}))
    assert {0, 1, 6} <= kept                      # the key, the name, Saturday's hours
    assert not {2, 3, 4, 5} & kept                # not the other days' hours, which hold times too
    unmatched = record_fields.chosen(branch, lambda text: terms(text) & terms("Wann ist ZB offen?"),
                                     frozenset({"time"}))
    assert {2, 3} <= unmatched                    # no matching field holds a time: the times answer
