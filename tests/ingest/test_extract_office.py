"""Office, OpenDocument and EPUB files: real samples written by the libraries, then extracted."""
from __future__ import annotations

import resource
import time
import zipfile

import pytest

from irisrag.errors import ExtractionError
from irisrag.ingest import office_zip
from irisrag.ingest.chunk import chunk_pages
from irisrag.ingest.extract import extract, iter_pages, kind_for
from irisrag.ingest.records import parse_records

from .office_samples import ROWS, WRITERS, write_zip_bomb_docx


def sample(tmp_path, kind):
    return WRITERS[kind](tmp_path / f"probe.{kind}")


def test_docx_keeps_headings_paragraphs_and_table_rows_in_order(tmp_path):
    [page] = extract(sample(tmp_path, "docx")).pages
    assert page.number is None
    assert page.text.split("\n\n") == [
        "# Paketverwaltung", "APT löst Abhängigkeiten selbst auf und holt Pakete aus dem Archiv.",
        "## Werkzeuge", "| Paket | Zweck |\n|---|---|\n| dpkg | installiert .deb-Dateien |",
        "Nach der Tabelle folgt der Schluss."]


def _fees_table(rows):
    return [("Bereich", "Honorar pro UE (45 Min.)"), *rows]


FEES = [("Allgemeine Kurse", "28,00 €"), ("Sprachen und EDV", "32,00 €")]


@pytest.mark.parametrize("header", [True, False])
def test_a_word_table_with_its_header_row_option_is_read_as_rows_under_a_header(tmp_path, header):
    # eval/holdout8-de kl-01: "Sprachen und EDV | 32,00 €" alone did not say what the amount is; the header
    # "Honorar pro UE (45 Min.)" has digits, so the answer's table reader could not take it for one.
    import docx
    from docx.oxml.ns import qn

    document = docx.Document()
    table = document.add_table(rows=3, cols=2)
    for r, row in enumerate(_fees_table(FEES)):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    table._tbl.tblPr.find(qn("w:tblLook")).set(qn("w:firstRow"), "1" if header else "0")
    document.save(tmp_path / "honorar.docx")
    [page] = extract(tmp_path / "honorar.docx").pages
    assert page.text == ("| Bereich | Honorar pro UE (45 Min.) |\n|---|---|\n| Allgemeine Kurse | 28,00 € |\n"
                         "| Sprachen und EDV | 32,00 € |" if header else
                         "Bereich | Honorar pro UE (45 Min.)\nAllgemeine Kurse | 28,00 €\nSprachen und EDV | 32,00 €")


@pytest.mark.parametrize("header", [True, False])
def test_a_slide_table_with_its_header_row_option_is_read_as_rows_under_a_header(tmp_path, header):
    import pptx
    from pptx.util import Inches

    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    table = slide.shapes.add_table(3, 2, Inches(1), Inches(1), Inches(6), Inches(2)).table
    table.first_row = header
    for r, row in enumerate(_fees_table(FEES)):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    presentation.save(tmp_path / "honorar.pptx")
    [page] = extract(tmp_path / "honorar.pptx").pages
    assert ("| Sprachen und EDV | 32,00 € |" in page.text) is header
    assert ("|---|---|" in page.text) is header
    assert header or "\nSprachen und EDV | 32,00 €" in page.text


def test_pptx_slides_are_pages_with_their_notes(tmp_path):
    pages = extract(sample(tmp_path, "pptx")).pages
    assert [p.number for p in pages] == [1, 2]
    assert pages[0].text == "Einführung\n\nWas ist Debian?\n\nSprechernotiz eins"
    assert "dpkg und apt arbeiten zusammen" in pages[1].text and "Sprechernotiz zwei" in pages[1].text


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_spreadsheet_sheets_carry_their_header_row_atop_every_chunk(tmp_path, kind):
    # Issue 37: every row is a record of the sheet's table, its cells named by the header row.
    pages = extract(sample(tmp_path, kind)).pages
    sheet = [p for p in pages if p.number == 1]
    assert sheet and all(p.records and p.header is None for p in sheet)
    chunks = list(chunk_pages(sheet, 400, 80))
    assert len(chunks) > 10
    assert all(c.text.startswith("# Pakete\nNr: ") for c in chunks)
    records = [parse_records(c.text) for c in chunks]
    assert {r.table for r in records} == {"Pakete"}
    rows = [fields for r in records for fields in r.records]
    assert rows == [tuple(zip(("Nr", "Name", "Beschreibung"), (str(v) for v in row), strict=True)) for row in ROWS]
    if kind == "xlsx":
        [second] = [p for p in pages if p.number == 2]
        assert second.records[0].table == "Versionen"
        assert second.records[0].fields == (("Version", "12"), ("Codename", "bookworm"))
        assert second.text == "# Versionen\nVersion: 12\nCodename: bookworm"


def test_odt_keeps_headings_and_paragraphs(tmp_path):
    [page] = extract(sample(tmp_path, "odt")).pages
    assert page.text.split("\n\n") == ["# Systemverwaltung", "Die Datei /etc/fstab beschreibt die Dateisysteme.",
                                       "## Einhängen", "mount hängt ein Dateisystem ein."]


def test_odp_slides_are_pages(tmp_path):
    pages = extract(sample(tmp_path, "odp")).pages
    assert [(p.number, p.text) for p in pages] == [(1, "Folie eins über Netzwerke"), (2, "Folie zwei über Drucker")]


def test_epub_chapters_come_in_spine_order(tmp_path):
    text = extract(sample(tmp_path, "epub")).text
    assert text.index("Am Anfang war die Shell.") < text.index("Dann kam der Kernel.")


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_each_package_kind_is_supported_by_its_extension(kind):
    assert kind_for(f"Datei.{kind.upper()}") == kind


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_truncated_package_fails_as_damaged(tmp_path, kind):
    path = sample(tmp_path, kind)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ExtractionError) as caught:
        list(iter_pages(path))
    assert caught.value.message == office_zip.DAMAGED and path.name in caught.value.detail


def test_encrypted_office_file_fails_with_the_password_reason(tmp_path):
    path = tmp_path / "geheim.docx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 4096)  # how Office stores a protected DOCX
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.message == office_zip.ENCRYPTED


def test_encrypted_opendocument_fails_with_the_password_reason(tmp_path):
    path = sample(tmp_path, "odt")
    with zipfile.ZipFile(path) as package:
        parts = {name: package.read(name) for name in package.namelist()}
    manifest = parts["META-INF/manifest.xml"]
    assert b"</manifest:manifest>" in manifest
    parts["META-INF/manifest.xml"] = manifest.replace(
        b"</manifest:manifest>", b"<manifest:encryption-data/></manifest:manifest>")
    with zipfile.ZipFile(path, "w") as package:
        for name, data in parts.items():
            package.writestr(name, data)
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.message == office_zip.ENCRYPTED


def test_zip_bomb_disguised_as_docx_is_refused_quickly_and_small(tmp_path):
    path = write_zip_bomb_docx(tmp_path / "bombe.docx")
    assert path.stat().st_size < 2_000_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.message == office_zip.BOMB and "word/document.xml" in caught.value.detail
    assert time.monotonic() - started < 2
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024 < 50


def _docx_with_text(source, path, text: str):
    """Copy a DOCX with its first paragraph's text replaced (one text node of any size)."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as copy:
        for item in original.infolist():
            data = original.read(item.filename)
            if item.filename == "word/document.xml":
                data = data.replace(b"Paketverwaltung", text.encode(), 1)
            copy.writestr(item, data)
    return path


def test_docx_with_a_text_node_past_the_parser_limit_is_too_large_not_damaged(tmp_path):
    import random
    import string

    source = sample(tmp_path, "docx")
    assert b"Paketverwaltung" in zipfile.ZipFile(source).read("word/document.xml")
    words = random.Random(7).choices(string.ascii_letters + " ", k=10_500_000)  # lxml's limit: 10 MB a text node
    path = _docx_with_text(source, tmp_path / "riesig.docx", "".join(words))
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.message == office_zip.TOO_LARGE and "Text node too long" in caught.value.detail


def test_docx_with_broken_xml_is_still_damaged(tmp_path):
    path = _docx_with_text(sample(tmp_path, "docx"), tmp_path / "kaputt.docx", "<w:t><unclosed")
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.message == office_zip.DAMAGED


def test_pptx_footer_repeated_on_most_slides_is_left_out(tmp_path):
    # holdout6-de: "Stadtwerke Ellerbrück GmbH · Netze · intern · Folie 5" was an answer unit of its own and let
    # questions naming the company through to every slide.
    import pptx
    from pptx.util import Cm

    presentation = pptx.Presentation()
    topics = ["Bereitschaft", "Reaktionszeiten", "Fahrzeuge", "Abrechnung", "Kontakte"]
    for number, topic in enumerate(topics, start=1):
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = topic
        slide.placeholders[1].text = f"Inhalt über {topic}"
        footer = slide.shapes.add_textbox(Cm(1), Cm(17), Cm(20), Cm(1))
        footer.text_frame.text = f"Stadtwerke Ellerbrück GmbH · intern · Folie {number}"
    path = tmp_path / "deck.pptx"
    presentation.save(path)
    pages = extract(path).pages
    assert [p.text for p in pages] == [f"{t}\n\nInhalt über {t}" for t in topics]


def test_a_block_on_few_slides_or_in_a_short_deck_stays():
    from irisrag.ingest.pdf_text import drop_running_blocks

    short = [["Titel", "Fuß · Folie 1"], ["Zwei", "Fuß · Folie 2"]]
    assert drop_running_blocks(short) == short
    titles = ["Start", "Netze", "Strom", "Gas", "Wasser", "Ende"]
    slides = [[title, "Fazit" if title == "Start" else f"Text über {title}"] for title in titles]
    assert drop_running_blocks(slides) == slides
    slides[3].append("Fazit")
    slides[4].append("Fazit")   # now on 3 of 6 slides
    assert drop_running_blocks(slides)[3] == ["Gas", "Text über Gas"]
    assert drop_running_blocks([[t, f"Seite {n}"] for n, t in enumerate(titles)])[2] == ["Strom"]
