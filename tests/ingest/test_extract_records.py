"""Records per format (issue 37): CSV, TSV, sheets, JSON, JSON Lines, XML; encodings; malformed files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from irisrag.errors import ExtractionError
from irisrag.i18n import N_
from irisrag.ingest.extract import extract, iter_pages
from irisrag.ingest.extract_csv import BATCH
from irisrag.ingest.records import MAX_FIELDS

from .office_samples import WRITERS

PRICES = "Artikel;Bezeichnung;Preis;Lager\n4711;Schraube M4;12,90 €;3\n4712;Mutter M4;0,40 €;120\n"
FIRST = (("Artikel", "4711"), ("Bezeichnung", "Schraube M4"), ("Preis", "12,90 €"), ("Lager", "3"))


def records(path):
    return [record for page in iter_pages(path) for record in page.records]


def german(message: str) -> str:
    from babel.support import Translations

    import irisrag
    return Translations.load(str(Path(irisrag.__file__).parent / "translations"), ["de"]).gettext(message)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp1252", "utf-16"])
def test_csv_rows_are_records_named_by_the_header_in_every_encoding(tmp_path, encoding):
    path = tmp_path / "preise.csv"
    path.write_bytes(PRICES.encode(encoding))
    found = records(path)
    assert [r.table for r in found] == ["preise", "preise"]
    assert found[0].fields == FIRST and found[1].fields[2] == ("Preis", "0,40 €")


def test_latin1_csv_falls_back_when_not_utf8(tmp_path):
    path = tmp_path / "orte.csv"
    path.write_bytes("Ort,Straße\nKöln,Hauptstraße 1\n".encode("latin-1") + b"Bonn,\x81\n")
    assert records(path)[0].fields == (("Ort", "Köln"), ("Straße", "Hauptstraße 1"))


def test_tsv_quoted_newlines_extra_columns_and_empty_cells(tmp_path):
    path = tmp_path / "liste.tsv"
    path.write_text('Name\tNotiz\tLeer\nA\t"zwei\nZeilen"\t\nB\tx\t\tüberzählig\n', encoding="utf-8")
    assert [r.fields for r in records(path)] == [(("Name", "A"), ("Notiz", "zwei Zeilen")),
                                                 (("Name", "B"), ("Notiz", "x"), ("4", "überzählig"))]


def test_csv_without_a_consistent_separator_falls_back_to_commas(tmp_path):
    path = tmp_path / "wild.csv"
    path.write_text("eins zwei\ndrei vier\n", encoding="utf-8")
    assert records(path)[0].fields == (("eins zwei", "drei vier"),)


def test_csv_header_alone_is_text_and_a_wide_row_is_bounded(tmp_path):
    alone = tmp_path / "kopf.csv"
    alone.write_text("a,b,c\n", encoding="utf-8")
    assert extract(alone).text == "a | b | c"
    wide = tmp_path / "breit.csv"
    wide.write_text(",".join(f"f{n}" for n in range(600)) + "\n" + ",".join("v" for _ in range(600)) + "\n")
    assert len(records(wide)[0].fields) == MAX_FIELDS


def test_a_large_csv_streams_in_batches(tmp_path):
    path = tmp_path / "gross.csv"
    path.write_text("n,wert\n" + "".join(f"{n},w{n}\n" for n in range(BATCH * 3 + 5)), encoding="utf-8")
    pages = list(iter_pages(path))
    assert [len(p.records) for p in pages] == [BATCH, BATCH, BATCH, 5]


def test_a_title_line_above_the_header_is_text_and_the_header_names_the_fields(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text("Preisliste Stand 1.3.2026;;;\n;;;\n" + PRICES, encoding="utf-8")
    assert records(path)[0].fields == FIRST
    assert extract(path).text.startswith("Preisliste Stand 1.3.2026\n")


@pytest.mark.parametrize("title", ["Preisliste, Stand 1.3.2026\n", "Preisliste Stand 1.3.2026\n\n"])
def test_a_title_line_not_padded_with_separators_does_not_decide_the_separator(tmp_path, title):
    """An export tool that writes its title as one bare line (not padded with ';' as a spreadsheet does):
    the rows were read with commas ("12,90 €" split) or the file was refused as malformed."""
    path = tmp_path / "export.csv"
    path.write_text(title + PRICES.replace("0,40 €", '"0,40 €"'), encoding="utf-8")
    assert records(path)[0].fields == FIRST
    assert extract(path).text.startswith("Preisliste")


def test_a_sheet_with_a_title_line_names_its_fields_by_the_header_and_shows_dates_alone(tmp_path):
    import datetime

    import openpyxl
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Inventar"
    sheet.append(["IT-Inventar – Stand 30.11.2026 (Export)"])
    sheet.append(["Nr", "Gerät", "Garantie bis", "Geprüft"])
    sheet.append(["LW-1", "Beamer", datetime.datetime(2026, 8, 31), datetime.datetime(2026, 1, 2, 9, 30)])
    book.save(tmp_path / "inventar.xlsx")
    found = records(tmp_path / "inventar.xlsx")
    assert found[0].fields == (("Nr", "LW-1"), ("Gerät", "Beamer"), ("Garantie bis", "2026-08-31"),
                               ("Geprüft", "2026-01-02 09:30:00"))
    assert "IT-Inventar – Stand 30.11.2026 (Export)" in extract(tmp_path / "inventar.xlsx").text


def test_a_one_column_sheet_keeps_its_first_row_as_the_header(tmp_path):
    path = tmp_path / "namen.csv"
    path.write_text("Name\nAnna\nBernd\n", encoding="utf-8")
    assert [r.fields for r in records(path)] == [(("Name", "Anna"),), (("Name", "Bernd"),)]


def test_a_sheet_of_footnotes_under_each_other_is_text_and_a_named_column_is_a_table(tmp_path):
    # holdout6-de: the price list's "Fußnoten" sheet became records "1) Alle Preise … 14.10.2026.: 3) Neukundenbonus …"
    import openpyxl
    book = openpyxl.Workbook()
    book.active.title = "Fußnoten"
    for line in ("1) Alle Preise brutto inkl. 19 % USt.", "2) Kündigungsfrist 1 Monat.", "3) Bonus einmalig 60 €."):
        book.active.append([line])
    names = book.create_sheet("Namen")
    for cell in ("Name", "Anna", "Bernd"):
        names.append([cell])
    book.save(tmp_path / "preise.xlsx")
    pages = extract(tmp_path / "preise.xlsx").pages
    assert pages[0].text == "# Fußnoten\n1) Alle Preise brutto inkl. 19 % USt.\n2) Kündigungsfrist 1 Monat.\n" \
                            "3) Bonus einmalig 60 €." and not pages[0].records
    assert [r.fields for r in pages[1].records] == [(("Name", "Anna"),), (("Name", "Bernd"),)]


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_sheet_rows_are_records_of_the_sheet(tmp_path, kind):
    found = records(WRITERS[kind](tmp_path / f"probe.{kind}"))
    assert found[0].table == "Pakete"
    assert found[0].fields == (("Nr", "1"), ("Name", "Paket-1"),
                               ("Beschreibung", "Beschreibung des Pakets Nummer 1 für die Paketverwaltung"))


def test_json_array_of_objects_flattens_nested_values(tmp_path):
    path = tmp_path / "artikel.json"
    path.write_text(json.dumps([
        {"artikel": 4711, "preis": {"betrag": 12.9, "waehrung": "EUR"}, "tags": ["metall", "klein"], "aktiv": True,
         "lager": [{"ort": "Halle 2", "menge": 3}], "notiz": None},
        {"artikel": 4712, "preis": {"betrag": 0.4, "waehrung": "EUR"}},
    ]), encoding="utf-8")
    found = records(path)
    assert [r.table for r in found] == ["artikel", "artikel"]
    assert found[0].fields == (("artikel", "4711"), ("preis.betrag", "12.9"), ("preis.waehrung", "EUR"),
                               ("tags", "metall; klein"), ("aktiv", "true"), ("lager.1.ort", "Halle 2"),
                               ("lager.1.menge", "3"))
    assert '"' not in extract(path).text


def test_json_object_holding_one_array_names_the_table_by_its_key(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"stand": "2026-01", "produkte": [{"nr": 1, "name": "A"}, {"nr": 2, "name": "B"}]}))
    found = records(path)
    assert [(r.table, r.fields) for r in found] == [
        ("export", (("stand", "2026-01"),)), ("produkte", (("nr", "1"), ("name", "A"))),
        ("produkte", (("nr", "2"), ("name", "B")))]


def test_json_object_holding_several_arrays_gives_a_table_for_each(tmp_path):
    # eval/holdout9-de standorte.json: with two arrays of objects, every branch's fields were one record of
    # numbered names ("standorte.4.adresse.ort"), and a question about one branch got all of them.
    path = tmp_path / "bibliothek.json"
    path.write_text(json.dumps({"system": "Stadtbibliothek", "kontakt": {"telefon": "8820-0"},
                                "standorte": [{"name": "Ostfeld", "adresse": {"ort": "Falkenried-Ostfeld"}},
                                              {"name": "Hafenmühle", "barrierefrei": False}],
                                "schliesstage": ["01.01.", "24.12."],
                                "dienste": [{"bereich": "Leitung", "person": "Dr. Wendland"}]}))
    assert [(r.table, r.fields) for r in records(path)] == [
        ("bibliothek", (("system", "Stadtbibliothek"), ("schliesstage", "01.01.; 24.12."))),
        ("bibliothek · kontakt", (("telefon", "8820-0"),)),
        ("standorte", (("name", "Ostfeld"), ("adresse.ort", "Falkenried-Ostfeld"))),
        ("standorte", (("name", "Hafenmühle"), ("barrierefrei", "false"))),
        ("dienste", (("bereich", "Leitung"), ("person", "Dr. Wendland")))]


def test_json_lines_stream_one_record_a_line(tmp_path):
    for name in ("log.jsonl", "log.json"):  # a .json file of one object a line is JSON Lines too
        path = tmp_path / name
        path.write_text('{"zeit": "10:00", "text": "Start"}\n\n{"zeit": "10:05", "text": "Ende"}\n')
        assert [r.fields for r in records(path)] == [(("zeit", "10:00"), ("text", "Start")),
                                                     (("zeit", "10:05"), ("text", "Ende"))]


def test_json_without_an_array_of_objects_stays_text(tmp_path):
    path = tmp_path / "einstellungen.json"
    path.write_text('{"sprache": "de", "werte": [1, 2]}', encoding="utf-8")
    [page] = iter_pages(path)
    assert not page.records and page.text == '{"sprache": "de", "werte": [1, 2]}'


def test_json_fields_beside_the_array_become_one_record_per_section(tmp_path):
    path = tmp_path / "backup.json"
    path.write_text(json.dumps({"version": 3, "server": {"ip": "10.20.0.15", "storage": {"path": "/srv"}},
                                "jobs": [{"name": "db"}], "notify": {"email": {"to": "it@x.example"}}}))
    assert [(r.table, r.fields) for r in records(path)] == [
        ("backup", (("version", "3"),)), ("backup · server", (("ip", "10.20.0.15"), ("storage.path", "/srv"))),
        ("backup · notify", (("email.to", "it@x.example"),)), ("jobs", (("name", "db"),))]


def test_nested_settings_without_an_array_become_section_records(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"restore_test": {"responsible": "Tobias Reimers"}, "mail": {"port": 587}}))
    assert [(r.table, r.fields) for r in records(path)] == [
        ("config · restore_test", (("responsible", "Tobias Reimers"),)), ("config · mail", (("port", "587"),))]


CATALOGUE = """<?xml version="1.0"?>
<k:katalog xmlns:k="urn:katalog" stand="2026-01">
  <!-- ein Kommentar -->
  <k:artikel nr="4711"><name>Schraube M4</name><preis waehrung="EUR">12,90</preis>
    <masse><laenge>40</laenge><dicke>4</dicke></masse></k:artikel>
  <k:artikel nr="4712"><name>Mutter M4</name><preis waehrung="EUR">0,40</preis></k:artikel>
</k:katalog>"""


def test_xml_repeated_elements_are_records_with_attributes_and_children(tmp_path):
    path = tmp_path / "katalog.xml"
    path.write_text(CATALOGUE, encoding="utf-8")
    found = records(path)
    assert [r.table for r in found] == ["katalog", "artikel", "artikel"]
    assert found[0].fields == (("stand", "2026-01"),)
    assert found[1].fields == (("nr", "4711"), ("name", "Schraube M4"), ("preis.waehrung", "EUR"), ("preis", "12,90"),
                               ("masse.laenge", "40"), ("masse.dicke", "4"))
    assert "<" not in extract(path).text


def test_an_xml_header_block_beside_the_repeated_elements_is_a_record_of_its_own(tmp_path):
    path = tmp_path / "termine.xml"
    path.write_text(CATALOGUE.replace("<!-- ein Kommentar -->", "<kopf><hinweis>Rücktritt bis zum Anmeldeschluss"
                                      "</hinweis><buero>Raum 2.06</buero></kopf>"), encoding="utf-8")
    found = records(path)
    assert [r.table for r in found] == ["katalog", "kopf", "artikel", "artikel"]
    assert found[1].fields == (("hinweis", "Rücktritt bis zum Anmeldeschluss"), ("buero", "Raum 2.06"))


def test_xml_records_one_level_down_and_other_xml_stays_text(tmp_path):
    nested = tmp_path / "export.xml"
    nested.write_text("<export><liste><p id='1'>a</p><p id='2'>b</p></liste></export>", encoding="utf-8")
    assert [(r.table, r.fields) for r in records(nested)] == [("p", (("id", "1"), ("p", "a"))),
                                                             ("p", (("id", "2"), ("p", "b")))]
    single = tmp_path / "brief.xml"
    single.write_text("<brief><an>Amt</an><text>Hallo</text></brief>", encoding="utf-8")
    [page] = iter_pages(single)
    assert not page.records and "<an>Amt</an>" in page.text


def test_xml_external_entities_are_not_read_and_xml_beyond_the_limits_stays_text(tmp_path):
    secret = tmp_path / "geheim.txt"
    secret.write_text("GEHEIMNIS", encoding="utf-8")
    path = tmp_path / "xxe.xml"
    path.write_text(f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file://{secret}">]>'
                    "<r><e><a>1</a><b>&xxe;</b></e><e><a>2</a></e></r>", encoding="utf-8")
    found = records(path)
    assert [r.fields[0] for r in found] == [("a", "1"), ("a", "2")]
    assert "GEHEIMNIS" not in "\n".join(p.text for p in iter_pages(path))
    laughs = "".join(f'<!ENTITY l{n} "{f"&l{n - 1};" * 10}">' for n in range(1, 9))
    bomb = tmp_path / "bombe.xml"
    bomb.write_text(f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY l0 "ha">{laughs}]>'
                    "<r><e><a>&l8;</a></e><e><a>x</a></e></r>", encoding="utf-8")
    [page] = iter_pages(bomb)  # beyond libxml2's amplification limit: plain text as before, never expanded
    assert not page.records and "&l8;" in page.text and "haha" not in page.text
    deep = tmp_path / "tief.xml"
    deep.write_text("<a>" * 300 + "<b>1</b><b>2</b>" + "</a>" * 300, encoding="utf-8")
    [page] = iter_pages(deep)  # nested deeper than 256 levels: plain text too
    assert not page.records and page.text.startswith("<a><a>")


@pytest.mark.parametrize(("name", "content", "message"), [
    ("kaputt.csv", 'a,b\n1,"offen\n', N_("The CSV file could not be read (line %(line)s): check its quoting and separators.")),
    ("kaputt.json", '[{"a": 1}, {"b": ]', N_("The JSON file is not valid JSON (line %(line)s, column %(column)s).")),
    ("kaputt.jsonl", '{"a": 1}\n{"b": \n', N_("Line %(line)s of the JSON Lines file is not a valid JSON object.")),
    ("liste.jsonl", '{"a": 1}\n[1, 2]\n', N_("Line %(line)s of the JSON Lines file is not a valid JSON object.")),
    ("kaputt.xml", "<r><e>1</e><e>2</r>", N_("The XML file is not well-formed (line %(line)s).")),
])
def test_malformed_files_fail_with_a_clear_translated_message(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ExtractionError) as info:
        extract(path)
    assert info.value.msgid == message and info.value.params["line"] >= 1
    assert german(message) != message  # the catalogue has it in German


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_damaged_sheets_fail_with_the_damaged_message(tmp_path, kind):
    path = tmp_path / f"kaputt.{kind}"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 200)
    with pytest.raises(ExtractionError) as info:
        extract(path)
    assert info.value.message == "The file is damaged and cannot be read."
