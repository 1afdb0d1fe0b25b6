"""OCR with Debian's tesseract: scanned PDF pages and images, time limits, a clear message without it."""
from __future__ import annotations

import pytest

from irisrag.errors import ExtractionError
from irisrag.ingest import ocr
from irisrag.ingest.extract import extract, iter_pages, kind_for

from .pdfs import write_text_pdf
from .scans import KNOWN_TEXT, cer, write_scan_pdf, write_scan_png


@pytest.mark.parametrize("name", ["scan.png", "scan.JPG", "scan.jpeg", "scan.tif", "scan.tiff"])
def test_image_extensions_are_the_image_kind(name):
    assert kind_for(name) == "image"


def test_png_scan_is_read_with_few_errors(tmp_path, tesseract):
    pages = extract(write_scan_png(tmp_path / "scan.png")).pages
    assert [p.number for p in pages] == [1]
    assert cer(KNOWN_TEXT, pages[0].text) < 0.03, pages[0].text


def test_pdf_page_without_text_layer_is_ocred_and_text_pages_are_not(tmp_path, tesseract):
    scan = write_scan_pdf(tmp_path / "scan.pdf", [KNOWN_TEXT, "Zweite Seite: Drucker einrichten mit CUPS."])
    pages = list(iter_pages(scan))
    assert [p.number for p in pages] == [1, 2]
    assert cer(KNOWN_TEXT, pages[0].text) < 0.03, pages[0].text
    assert "Drucker einrichten mit CUPS" in pages[1].text
    blank = write_text_pdf(tmp_path / "leer.pdf", [" "])  # no image on the page: nothing to OCR
    with pytest.raises(ExtractionError, match="no extractable text"):
        extract(blank)


def test_multi_frame_tiff_yields_one_page_per_frame(tmp_path, tesseract):
    from .scans import render_page

    frames = [render_page("Erste Seite des Faxes."), render_page("Zweite Seite des Faxes.")]
    path = tmp_path / "fax.tiff"
    frames[0].save(path, save_all=True, append_images=frames[1:])
    pages = extract(path).pages
    assert [p.number for p in pages] == [1, 2] and "Zweite Seite" in pages[1].text


def test_ocr_page_time_limit_leaves_the_page_out(tmp_path, tesseract):
    path = write_scan_png(tmp_path / "scan.png")
    with pytest.raises(ExtractionError, match="no extractable text"):
        extract_with(path, ocr.OcrSettings(page_timeout=0.01))


def extract_with(path, settings):
    from irisrag.ingest.extract import EMPTY_MESSAGE

    pages = list(iter_pages(path, None, settings))
    if not any(p.text for p in pages):
        raise ExtractionError(EMPTY_MESSAGE, str(path))
    return pages


def test_missing_tesseract_names_the_debian_package(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract on this PATH
    with pytest.raises(ExtractionError) as caught:
        extract(write_scan_png(tmp_path / "scan.png"))
    assert caught.value.message == ocr.MISSING and "tesseract-ocr" in caught.value.message
    with pytest.raises(ExtractionError) as caught:
        extract(write_scan_pdf(tmp_path / "scan.pdf", [KNOWN_TEXT]))
    assert caught.value.message == ocr.MISSING
    text_pdf = write_text_pdf(tmp_path / "text.pdf", ["Textseite ohne Scan"])
    assert extract(text_pdf).text == "Textseite ohne Scan"  # a PDF with text needs no tesseract


def test_languages_setting_is_checked_before_running_anything(tmp_path, tesseract):
    with pytest.raises(ExtractionError):
        list(iter_pages(write_scan_png(tmp_path / "scan.png"), None, ocr.OcrSettings(languages="deu;rm -rf")))


def test_damaged_image_fails_clearly(tmp_path, tesseract):
    path = tmp_path / "kaputt.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.message == ocr.UNREADABLE
