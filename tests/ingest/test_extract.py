"""Extraction of real files: a German Debian Reference PDF and HTML page, text encodings, bad input."""
from __future__ import annotations

import codecs
import time
import types
from pathlib import Path

import pytest
import trafilatura

from irisrag.errors import ExtractionError, UnsupportedFileType
from irisrag.ingest.extract import (
    EMPTY_MESSAGE,
    SUPPORTED,
    Extracted,
    Page,
    extract,
    extract_html_bytes,
    iter_pages,
    iter_pdf_pages,
    kind_for,
)
from irisrag.ingest.extract_html import html_plain_text

from .pdfs import write_text_pdf

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def fixture(name: str) -> Path:
    return FIXTURES / name


# --- kinds -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("name", "kind"),
    [("a.pdf", "pdf"), ("B.PDF", "pdf"), ("x.txt", "text"), ("x.md", "text"), ("x.json", "text"),
     ("x.xml", "text"), ("x.csv", "csv"), ("x.html", "html"), ("x.HTM", "html"), ("DocBook.UI.Page_a3f7b291.md", "text")],
)
def test_kind_for_known_extensions(name, kind):
    assert kind_for(name) == kind


@pytest.mark.parametrize("name", ["bild.gif", "archiv.tar.gz", "README", "tabelle.xls", ".pdf.exe"])
def test_kind_for_unsupported_lists_supported_types(name):
    with pytest.raises(UnsupportedFileType) as info:
        kind_for(name)
    for suffix in SUPPORTED:
        assert suffix in info.value.message
    assert name in info.value.detail


def test_extracted_text_joins_pages_with_blank_line():
    doc = Extracted("pdf", (Page(1, "eins"), Page(2, ""), Page(3, "drei")))
    assert doc.text == "eins\n\ndrei"


# --- PDF ---------------------------------------------------------------------

def test_pdf_keeps_page_numbers_and_german_text():
    doc = extract(fixture("debian-reference-de-3pages.pdf"))
    assert doc.kind == "pdf"
    assert [page.number for page in doc.pages] == [1, 2, 3]
    assert "Dateizugriffsrechte" in doc.pages[0].text
    assert "1.1.7 Wie Sie die Eingabeaufforderung wieder verlassen" in doc.pages[1].text
    assert "Größe" in doc.pages[2].text
    assert doc.text.count("Debian-Referenz") >= 3


def test_iter_pdf_pages_is_lazy_generator():
    pages = iter_pdf_pages(fixture("debian-reference-de-3pages.pdf"))
    assert isinstance(pages, types.GeneratorType)
    first = next(pages)
    assert first.number == 1 and "Anmerkung" in first.text


def test_iter_pdf_pages_streams_two_thousand_pages(tmp_path):
    path = write_text_pdf(tmp_path / "gross.pdf", (f"Seite {n} über die Größe" for n in range(1, 2001)))
    started = time.monotonic()
    count = 0
    for page in iter_pages(path):
        count += 1
        assert page.number == count
        assert page.text == f"Seite {count} über die Größe"
    assert count == 2000
    assert time.monotonic() - started < 30


def test_pdf_encrypted_with_password_is_refused():
    with pytest.raises(ExtractionError) as info:
        extract(fixture("encrypted-aes.pdf"))
    assert info.value.message == "The PDF is encrypted and needs a password"


def test_pdf_encrypted_with_empty_user_password_is_read():
    doc = extract(fixture("encrypted-empty-password.pdf"))
    assert [page.number for page in doc.pages] == [1]
    assert "Eingabeaufforderung" in doc.text


def test_pdf_without_text_is_refused_with_scanned_hint():
    with pytest.raises(ExtractionError) as info:
        extract(fixture("blank-page.pdf"))
    assert info.value.message == EMPTY_MESSAGE
    assert "scanned PDF" in info.value.message


def test_corrupt_pdf_raises_extraction_error():
    with pytest.raises(ExtractionError) as info:
        extract(fixture("corrupt.pdf"))
    assert "damaged" in info.value.message
    assert "corrupt.pdf" in info.value.detail


def test_file_named_pdf_that_is_not_pdf_is_refused():
    with pytest.raises(ExtractionError) as info:
        extract(fixture("not-a-pdf.pdf"))
    assert "not a PDF" in info.value.message


def test_missing_file_raises_extraction_error(tmp_path):
    with pytest.raises(ExtractionError) as info:
        extract(tmp_path / "fehlt.txt")
    assert "could not be read" in info.value.message


# --- text --------------------------------------------------------------------

def test_utf8_text_is_read():
    doc = extract(fixture("excerpt-de.txt"))
    assert doc.kind == "text"
    assert [page.number for page in doc.pages] == [None]
    assert "Jegliche Gewährleistung wird ausgeschlossen" in doc.text


def test_latin1_fallback_gives_umlauts():
    raw = fixture("excerpt-de-latin1.txt").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    doc = extract(fixture("excerpt-de-latin1.txt"))
    assert "ä" in doc.text and "maßgeblichen Handbücher" in doc.text
    assert doc.text == extract(fixture("excerpt-de.txt")).text


def test_utf8_bom_is_stripped_and_crlf_normalised(tmp_path):
    path = tmp_path / "bom.md"
    path.write_bytes(codecs.BOM_UTF8 + "# Überschrift\r\nZeile zwei\r\n".encode())
    assert extract(path).text == "# Überschrift\nZeile zwei\n"


def test_utf16_with_bom_is_decoded_not_called_binary(tmp_path):
    path = tmp_path / "utf16.txt"
    path.write_bytes(codecs.BOM_UTF16_LE + "Grüße aus Köln".encode("utf-16-le"))
    assert extract(path).text == "Grüße aus Köln"


def test_markdown_is_kept_verbatim():
    doc = extract(fixture("excerpt-de.md"))
    assert doc.kind == "text"
    assert "## 2. Was ist Debian" in doc.text


# JSON and XML of records read as fields, not as syntax (issue 37; tests/ingest/test_records.py has the rest).
@pytest.mark.parametrize(("name", "needle", "syntax"), [
    ("sample.json", "paket: sudo\n", '"paket": "sudo"'),
    ("sample.xml", "name: mc\n", '<paket name="mc"'),
])
def test_structured_text_files_become_readable_records(name, needle, syntax):
    doc = extract(fixture(name))
    assert doc.kind == "text"
    assert needle in doc.text and syntax not in doc.text


def test_csv_names_every_rows_fields_by_the_header_line():
    [page] = extract(fixture("sample.csv")).pages
    assert "Paket,Popcon" not in page.text  # the header line is no row of its own
    assert page.records[0].fields == (("Paket", "mc"), ("Popcon", "V:54, I:226"), ("Größe", "1482"),
                                      ("Beschreibung", "Ein Textmodus-Dateimanager mit Vollbildschirm-Ansicht"))


def test_binary_file_named_txt_is_refused():
    with pytest.raises(ExtractionError) as info:
        extract(fixture("binary.txt"))
    assert "looks like a binary file" in info.value.message


def test_text_with_nul_byte_is_refused(tmp_path):
    path = tmp_path / "daten.csv"
    path.write_bytes(b"a,b\n1,\x002\n")
    with pytest.raises(ExtractionError, match="binary"):
        extract(path)


@pytest.mark.parametrize("name", ["empty.txt", "whitespace.md"])
def test_empty_files_are_refused(name):
    with pytest.raises(ExtractionError) as info:
        extract(fixture(name))
    assert info.value.message == EMPTY_MESSAGE


# --- HTML --------------------------------------------------------------------

def test_html_page_keeps_main_content_and_drops_navigation():
    doc = extract(fixture("sample.html"))
    assert doc.kind == "html"
    text = doc.text
    assert "Das Debian-Projekt ist eine Vereinigung von Einzelpersonen" in text
    assert "Unix-Philosophie" in text
    # navigation header/footer and the table of contents are boilerplate
    for boilerplate in ("Zurück", "Weiter", "Zum Anfang", "Inhaltsverzeichnis"):
        assert boilerplate not in text
    assert "<" not in text.replace("<miquels", "").replace("<tollef", "")


def test_html_fragment_falls_back_to_lxml_text(tmp_path):
    fragment = "<p>Kurzer Hinweis: Bitte den Dienst neu starten.</p>"
    assert trafilatura.extract(fragment, output_format="markdown") is None  # precondition: no main content
    path = tmp_path / "hinweis.html"
    path.write_text(fragment, encoding="utf-8")
    assert extract(path).text == "Kurzer Hinweis: Bitte den Dienst neu starten."


def test_lxml_fallback_drops_scripts_and_styles_and_separates_blocks():
    html = (
        "<html><head><title>T</title><style>p {color: red}</style></head><body>"
        "<script>var geheim = 1;</script><h1>Titel</h1><p>Erster Absatz</p><p>Zweiter<br>Zeile</p>"
        "<noscript>Bitte JavaScript</noscript></body></html>"
    )
    assert html_plain_text(html) == "Titel\n\nErster Absatz\n\nZweiter\nZeile"


def test_html_bytes_honour_charset_and_meta():
    latin = "<p>Grüße aus München</p>".encode("latin-1")
    assert extract_html_bytes(latin, url=None, charset="iso-8859-1") == "Grüße aus München"
    meta = '<html><head><meta charset="windows-1252"></head><body><p>Maß für Maß</p></body></html>'
    assert extract_html_bytes(meta.encode("cp1252")) == "Maß für Maß"


def test_html_bytes_of_fetched_page_with_url():
    text = extract_html_bytes(fixture("sample.html").read_bytes(), url="https://www.debian.org/doc/pr01.de.html")
    assert "Debian-Projekt" in text and "Zurück" not in text


def test_deeply_nested_html_does_not_crash(tmp_path):
    depth = 100_000
    path = tmp_path / "tief.html"
    path.write_text("<html><body>" + "<div>" * depth + "<p>tief</p>" + "</div>" * depth + "</body></html>")
    started = time.monotonic()
    with pytest.raises(ExtractionError):
        extract(path)  # libxml2 without huge_tree refuses the depth: no text rather than a crash
    assert time.monotonic() - started < 10


def test_html_with_nul_bytes_is_refused(tmp_path):
    path = tmp_path / "kaputt.htm"
    path.write_bytes(b"<html>\x00\x00\x00</html>")
    with pytest.raises(ExtractionError, match="binary"):
        extract(path)
