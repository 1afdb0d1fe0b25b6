"""A record the question names by a field and its value makes its document pass the gate (eval/holdout2-de br-01)."""
from dataclasses import replace

from irisrag.ingest.records import format_records, make_record
from irisrag.rag.gate import GateSettings, gate_candidates
from irisrag.rag.lexical import match, terms
from irisrag.rag.named_records import named_documents, names_record
from irisrag.rag.retrieve import RetrievalSettings
from irisrag.vectors.store import Hit

ROOMS = format_records("besprechungsraeume", [make_record("besprechungsraeume", [("raum", "Ems"), ("plaetze", 40)]),
                                              make_record("besprechungsraeume", [("raum", "Leda"), ("plaetze", 8)])])
COURSES = format_records("schulungen", [make_record("schulungen", [("Ort", "Papenburg, Kantine"), ("Plätze", 15)])])


def test_a_record_is_named_by_a_field_and_its_whole_value():
    assert names_record(terms("Wie viele Personen passen in den Raum Ems?"), ROOMS)
    assert not names_record(terms("Wie viele Personen passen in den Raum?"), ROOMS)          # no value
    assert not names_record(terms("Wie viele Personen passen in die Ems?"), ROOMS)           # no field name
    assert not names_record(terms("Wer ist der Betriebsrat in Papenburg?"), COURSES)         # part of a value, no field
    assert not names_record(terms("Welcher Ort liegt in Papenburg?"), COURSES)               # "Kantine" missing
    assert not names_record(terms("Raum Ems"), "Raum: Ems ist kein Datensatz")               # prose, not a record


def test_a_named_record_s_document_passes_a_gate_its_evidence_would_not():
    question = "Wie viele Personen passen in den Raum Ems?"
    asked = terms(question)
    hits = [Hit(7, 1, 0, None, ROOMS, 0.2, 0), Hit(8, 1, 0, None, "Der Saal ist groß.", 0.3, 1)]
    matches = [match(asked, hit.text) for hit in hits]
    settings = replace(RetrievalSettings.from_config({}), gate=GateSettings.of(min_evidence=2.0))
    assert named_documents(asked, hits) == {7}
    refused = gate_candidates(hits, matches, asked, settings)
    assert [c.gate for c in refused] == ["evidence", "evidence"]
    kept = gate_candidates(hits, matches, asked, settings, named=named_documents(asked, hits))
    assert [c.hit.document_id for c in kept if c.kept] == [7]


JOBS = "# jobs\nname: netzlaufwerke\nsource: fs01:/daten\nschedule: täglich 23:30\ntype: incremental"


def test_a_record_is_named_by_its_first_field_s_whole_value_alone():
    assert names_record(terms("Wann läuft die Sicherung der Netzlaufwerke?"), JOBS)
    assert not names_record(terms("Wann läuft die Sicherung?"), JOBS)                          # no key
    assert not names_record(terms("Welche Sicherung ist incremental?"), JOBS)                   # not the first field
    assert not names_record(terms("Was liegt in Ems?"), "# räume\nraum: Ems\nplaetze: 40")      # a key this short needs its field


def test_a_one_digit_value_is_named_with_its_field():
    rota = format_records("bereitschaft", [make_record("bereitschaft", [("Woche", 3), ("Bereitschaft", "Enno Saathoff")])])
    hits = [Hit(5, 1, 0, None, rota, 0.2, 0)]
    assert named_documents(terms("Wer hat in Woche 3 Rufbereitschaft?"), hits, "Wer hat in Woche 3 Rufbereitschaft?") == {5}
    assert named_documents(terms("Wer hat in Woche 4 Bereitschaft?"), hits, "Wer hat in Woche 4 Bereitschaft?") == set()
    assert named_documents(terms("Wer hat in Woche 3.5 Dienst?"), hits, "Wer hat in Woche 3.5 Dienst?") == set()


def test_a_product_name_only_one_document_holds_names_that_document():
    from irisrag.rag.dictionary import Dictionary, parse
    from irisrag.rag.named_records import named_by_name
    words = Dictionary(parse(["Kirschbaum {m} :: cherry tree", "Lizenz {f} :: licence"]))
    licences = Hit(3, 1, 0, None, "# lizenzen\nid: SW-008\nprodukt: MailWall Gateway\nnotes: renews unless cancelled", 0.2, 0)
    other = Hit(4, 1, 0, None, "Die Lizenz gilt für Kassel und Baunatal.", 0.3, 1)
    third = Hit(5, 1, 0, None, "Baunatal liegt bei Kassel. Japan exportiert Kirschbäume.", 0.3, 2)
    hits = [licences, other, third]
    assert named_by_name("Bis wann müssen wir MailWall kündigen?", hits, words) == {3}
    assert named_by_name("Gibt es in Baunatal eine Kita?", hits, words) == set()            # two documents hold it
    assert named_by_name("Wann blühen die Kirschbäume in Japan?", hits, words) == set()     # a place, no product name
    assert named_by_name("Bis wann müssen wir MailWall kündigen?", hits, None) == set()       # no word list: off
    assert named_by_name("Wie teuer ist CloudSafe?", hits, words) == set()                   # no document holds it


def test_a_surname_after_a_title_names_the_one_document_that_holds_it():
    from irisrag.rag.dictionary import Dictionary, parse
    from irisrag.rag.named_records import named_by_name
    words = Dictionary(parse(["Sprechstunde {f} :: office hours", "Kassel :: Kassel"]))
    contacts = Hit(3, 1, 0, None, "# ansprechpersonen\nname: Jonas Feddersen\noffice_hours: Di 14:00–16:00", 0.2, 0)
    handbook = Hit(4, 1, 0, None, "Die Sprechstunde der Leitung ist in Kassel. Japan liegt weit weg.", 0.3, 1)
    hits = [contacts, handbook]
    assert named_by_name("Wann hat Herr Feddersen Sprechstunde?", hits, words) == {3}
    assert named_by_name("Wann hat Feddersen Sprechstunde?", hits, words) == set()   # no title: any capitalised word
    assert named_by_name("Wann hat Frau Japan Sprechstunde?", hits, words) == {4}     # titled: a person, one holder
    assert named_by_name("Wann hat Herr Kassel Sprechstunde?", hits, words) == set()  # a word of the list


def test_a_program_the_question_names_names_its_manual():
    from irisrag.rag.named_records import named_by_tool
    manual = Hit(8, 1, 0, None, "TEE(1) Dienstprogramme für Benutzer TEE(1)\n\nBEZEICHNUNG\ntee - Von Standardeingabe "
                 "lesen und in Standardausgabe und Dateien schreiben", 0.3, 0)
    options = Hit(8, 1, 1, None, "-a, --append\nan angegebene DATEIen anhängen, nicht überschreiben", 0.3, 1)
    split = Hit(6, 1, 0, None, "BEZEICHNUNG\nsplit - Eine Datei in Stücke teilen", 0.3, 2)
    mentions = Hit(3, 1, 0, None, "Mit tee schreibt man die Ausgabe zugleich in eine Datei; siehe tee(1).", 0.3, 3)
    hits = [manual, options, split, mentions]
    question = "Ich leite die Ausgabe mit tee in eine Logdatei um. Wie hänge ich hinten an?"
    assert named_by_tool(question, hits) == {8}       # "tee" is a word of the list too ("Tee"): the title tells
    assert named_by_tool("Wie teile ich bei split eine Datei?", hits) == {6}
    assert named_by_tool("Wie teile ich eine Datei mit tee?", [mentions]) == set()     # mentioned, no manual
    assert named_by_tool("Wie zähle ich mit wc die Wörter?", hits) == set()            # no candidate's manual
    assert named_by_tool("Wie trinke ich Tee mit dem Kollegen?", hits) == set()        # no program named
    assert 8 in named_documents(terms(question), hits, question)


def test_a_program_may_be_named_anywhere_in_the_question():
    from irisrag.rag.named_records import named_by_tool
    cut = Hit(5, 1, 0, None, "CUT(1) Dienstprogramme für Benutzer CUT(1)\n\nBEZEICHNUNG\ncut - Abschnitte aus jeder "
              "Zeile von Dateien entfernen", 0.3, 0)
    prose = Hit(3, 1, 0, None, "Die Spalten trennt ein Semikolon; so sage ich es jedem.", 0.3, 1)
    question = "Meine Exportdatei ist mit Semikolon getrennt. Wie sage ich cut, dass das Semikolon die Spalten trennt?"
    assert named_by_tool(question, [cut, prose]) == {5}
    assert named_by_tool("Wie trenne ich die Spalten?", [cut, prose]) == set()        # not named
    assert named_by_tool("Wie sage ich es jedem?", [cut, prose]) == set()             # no manual's title
