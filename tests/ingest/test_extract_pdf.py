"""PDF text through PDFium: spaces kept, hyphenation joined, running headers and footers left out."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from irisrag.errors import ExtractionError
from irisrag.ingest import pdf_guard
from irisrag.ingest.extract import extract, iter_pages
from irisrag.ingest.pdf_text import join_hyphenation, learn_running_lines, line_key

from .pdfs import write_text_pdf

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TOPICS = ["APT", "dpkg", "Netzwerk", "Drucker", "Zeitzonen", "Sicherung", "Kernel", "Benutzer"]


def _body(topic: str) -> list[str]:
    return [f"Dieser Abschnitt erklärt {topic} und was dazu gehört.",
            "Die Konfigu-", f"ration von {topic} liegt unter /etc und ist Hardware-",
            f"Konfiguration unabhängig; {topic} braucht sie selten.", f"Weiter mit {topic} im nächsten Teil."]


def _book(tmp_path: Path) -> Path:
    texts = [f"Debian-Referenz {n} / {len(TOPICS)}\n" + "\n".join(_body(topic)) + f"\n{n}"
             for n, topic in enumerate(TOPICS, start=1)]
    return write_text_pdf(tmp_path / "buch.pdf", texts)


def test_pdf_words_keep_their_spaces_on_the_german_reference():
    text = extract(FIXTURES / "debian-reference-de-3pages.pdf").text
    words = re.findall(r"[^\W\d_]+", text)
    runs = [word for word in words if len(word) >= 25]
    assert len(words) > 300 and not runs, runs


def test_pdf_line_end_hyphenation_is_joined_and_compound_hyphens_stay(tmp_path):
    page = next(iter_pages(_book(tmp_path)))
    assert "Die Konfiguration von APT liegt" in page.text
    assert "Hardware-Konfiguration unabhängig" in page.text  # upper case next: a compound's hyphen, kept


def test_pdf_running_header_and_page_number_are_left_out_but_body_stays(tmp_path):
    pages = list(iter_pages(_book(tmp_path)))
    assert [p.number for p in pages] == list(range(1, 9))
    for page, topic in zip(pages, TOPICS, strict=True):
        assert "Debian-Referenz" not in page.text
        assert page.text.startswith(f"Dieser Abschnitt erklärt {topic}")
        assert page.text.endswith(f"Weiter mit {topic} im nächsten Teil.")  # the bare page number is gone


def test_pdfium_soft_hyphen_marker_is_joined():
    assert join_hyphenation("Sys\x02tem be-\r\nschädigen CD\ufffeROM") == "System beschädigen CD-ROM"


def test_running_lines_need_most_pages_and_ignore_short_pages():
    pages = [f"Kopf {i}\nText {n}a\nText {n}b\nText {n}c\nText {n}d\nFuß" for i, n in enumerate("EFGHJK")]
    assert learn_running_lines(pages) == {"kopf", "fuss"}
    assert learn_running_lines(["nur eine Zeile"] * 10) == frozenset()
    assert line_key("Debian-Referenz xxi") == line_key("Debian-Referenz 73 / 248") == "debian referenz"


def test_pdf_bomb_in_an_encrypted_file_is_checked_by_pages(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf_guard, "MAX_STREAM_BYTES", 10)  # any real page content is over it
    with pytest.raises(ExtractionError) as caught:
        extract(FIXTURES / "encrypted-empty-password.pdf")
    assert caught.value.message == pdf_guard.BOMB_MESSAGE and "page 1" in caught.value.detail


def test_pdf_stream_over_the_cap_is_refused_before_pdfium_reads_it(tmp_path, monkeypatch):
    from tests.security.test_resource_abuse import pdf_bomb

    path = tmp_path / "klein.pdf"
    path.write_bytes(pdf_bomb(3))
    monkeypatch.setattr(pdf_guard, "MAX_STREAM_BYTES", 2 << 20)
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.message == pdf_guard.BOMB_MESSAGE and "page 1" in caught.value.detail


def test_pdf_pages_read_across_reopening_the_document_stay_in_order(tmp_path, monkeypatch):
    from irisrag.ingest import extract_pdf

    monkeypatch.setattr(extract_pdf, "REOPEN_PAGES", 4)
    opened = []
    original = extract_pdf.PdfFile.reopen
    monkeypatch.setattr(extract_pdf.PdfFile, "reopen", lambda self: (opened.append(1), original(self)))
    path = write_text_pdf(tmp_path / "lang.pdf", [f"Seite {i} über Paketverwaltung." for i in range(1, 11)])
    pages = list(iter_pages(path, "pdf"))
    assert [p.number for p in pages] == list(range(1, 11)) and len(opened) == 2
    assert [p.text for p in pages] == [f"Seite {i} über Paketverwaltung." for i in range(1, 11)]
