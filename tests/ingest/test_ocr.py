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


# --- the OCR budget of one document (MAX_OCR_PAGES, MAX_OCR_PIXELS) ---------------------------

def _tiny_tiff(path, frames: int):
    """Write a few-KB TIFF with ``frames`` small frames (the 150-frame file held a worker for 27 s)."""
    from PIL import Image

    images = [Image.new("1", (64, 64), 1) for _ in range(frames)]
    images[0].save(path, save_all=True, append_images=images[1:], compression="group4")
    return path


def _count_recognise(monkeypatch) -> list:
    calls = []
    real = ocr.recognise
    monkeypatch.setattr(ocr, "recognise", lambda *args: calls.append(args[2]) or real(*args))
    return calls


def test_ocr_an_image_with_more_frames_than_the_cap_is_refused_before_any_frame_is_read(tmp_path, tesseract,
                                                                                         monkeypatch):
    path = _tiny_tiff(tmp_path / "fax.tiff", ocr.MAX_OCR_PAGES + 1)
    assert path.stat().st_size < 64_000
    calls = _count_recognise(monkeypatch)
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.msgid == ocr.TOO_MANY_PAGES and caught.value.params == {"num": ocr.MAX_OCR_PAGES}
    assert f"more than {ocr.MAX_OCR_PAGES} pages to read with OCR" in caught.value.message
    assert calls == []


def test_ocr_frames_up_to_the_cap_are_read(tmp_path, tesseract, monkeypatch):
    from functools import partial

    monkeypatch.setattr(ocr, "OcrBudget", partial(ocr.OcrBudget, pages=3))
    calls = _count_recognise(monkeypatch)
    pages = list(iter_pages(_tiny_tiff(tmp_path / "fax.tiff", 3)))
    assert [p.number for p in pages] == [1, 2, 3] and len(calls) == 3
    with pytest.raises(ExtractionError) as caught:
        list(iter_pages(_tiny_tiff(tmp_path / "fax4.tiff", 4)))
    assert caught.value.msgid == ocr.TOO_MANY_PAGES


def test_ocr_an_image_whose_frames_have_too_many_pixels_in_all_is_refused_up_front(tmp_path, tesseract,
                                                                                  monkeypatch):
    from functools import partial

    monkeypatch.setattr(ocr, "OcrBudget", partial(ocr.OcrBudget, pixels=3 * 64 * 64))
    calls = _count_recognise(monkeypatch)
    with pytest.raises(ExtractionError) as caught:
        list(iter_pages(_tiny_tiff(tmp_path / "fax.tiff", 4)))
    assert caught.value.msgid == ocr.TOO_MANY_PIXELS and calls == []


def test_ocr_budget_counts_pages_and_pixels():
    budget = ocr.OcrBudget(pages=2, pixels=100)
    budget.spend(5, 10, "page 1")
    with pytest.raises(ExtractionError) as caught:
        budget.spend(7, 8, "page 2")  # 56 pixels, 50 left
    assert caught.value.msgid == ocr.TOO_MANY_PIXELS
    budget.spend(5, 10, "page 2")
    with pytest.raises(ExtractionError) as caught:
        budget.spend(1, 1, "page 3")
    assert caught.value.msgid == ocr.TOO_MANY_PAGES
    with pytest.raises(ExtractionError) as caught:
        ocr.OcrBudget().spend(10_000, 10_000, "frame 1")  # one frame over MAX_PIXELS
    assert caught.value.msgid == ocr.TOO_LARGE


def test_ocr_scanned_pdf_pages_past_the_cap_fail_the_document(tmp_path, tesseract, monkeypatch):
    from functools import partial

    monkeypatch.setattr(ocr, "OcrBudget", partial(ocr.OcrBudget, pages=1))
    scan = write_scan_pdf(tmp_path / "scan.pdf", [KNOWN_TEXT, "Zweite Seite."])
    calls = _count_recognise(monkeypatch)
    with pytest.raises(ExtractionError) as caught:
        list(iter_pages(scan))
    assert caught.value.msgid == ocr.TOO_MANY_PAGES and calls == ["page 1"]


def _png_header_only(path, width: int, height: int):
    """Write a PNG that declares width x height pixels (a pixel bomb): Pillow refuses it at open."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))
    return path


def test_ocr_a_pixel_bomb_is_too_large_not_damaged(tmp_path, tesseract):
    with pytest.raises(ExtractionError) as caught:
        extract(_png_header_only(tmp_path / "bomb.png", 40_000, 40_000))
    assert caught.value.message == ocr.TOO_LARGE
