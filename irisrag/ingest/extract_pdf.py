"""PDF text extraction with PDFium (pypdfium2), one page at a time.

PDFium keeps the spaces between words that pypdf loses ("EsgibtdreiArtenvonZeitstempeln")
and costs about 1.5 ms of CPU a page instead of 25 (bench/extract_bench.py). It is not
thread-safe, so every call into it holds one process-wide lock; pages are read in the
prefetch thread while the caller embeds. A page without a text layer is handed to OCR
when a reader for it is given (``irisrag.ingest.ocr``).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from irisrag.errors import ExtractionError
from irisrag.i18n import N_
from irisrag.ingest.pages import Page
from irisrag.ingest.pdf_guard import BOMB_MESSAGE, check_pdf_streams
from irisrag.ingest.pdf_text import clean_page, join_hyphenation, learn_running_lines

__all__ = ["BOMB_MESSAGE", "PDFIUM_LOCK", "PdfFile", "iter_pdf_pages", "open_pdf", "pdf_page_count"]

log = logging.getLogger(__name__)

# A hostile page can expand to gigabytes of text; real pages hold a few thousand characters.
MAX_PAGE_CHARS = 1_000_000
# The header may legally follow some junk, but only within the first kilobyte.
HEADER_WINDOW = 1024
# Pages sampled, spread over the document, to learn its running headers and footers.
SAMPLE_PAGES = 24
PDFIUM_LOCK = threading.RLock()
# page image -> text, for pages without a text layer; None: such pages stay empty.
PageOcr = Callable[["pdfium.PdfPage", int], str]


def check_pdf_header(path: Path) -> None:
    """Refuse a file whose content does not start like a PDF."""
    try:
        with path.open("rb") as fh:
            head = fh.read(HEADER_WINDOW)
    except OSError as exc:
        raise ExtractionError(N_("The file could not be read"), f"{path}: {exc}") from exc
    if b"%PDF-" not in head:
        raise ExtractionError(
            N_("The file is named .pdf but is not a PDF"), f"{path}: no %PDF- header in the first {HEADER_WINDOW} bytes"
        )


# PDFium's memory grows about 4 MiB per 1,000 pages read from one open document (the R manual,
# bench/README.md); reopening it every so many pages keeps that flat at the cost of one open.
REOPEN_PAGES = 250


class PdfFile:
    """An open PDF: its page count and, read on demand, each page's cleaned text."""

    def __init__(self, path: Path, document: pdfium.PdfDocument) -> None:
        self.path = path
        self.document = document
        self.pages = len(document)
        self._running: frozenset[str] | None = None

    def raw_text(self, index: int) -> str:
        """Return the text layer of page ``index`` (0-based) as PDFium reads it."""
        with PDFIUM_LOCK:
            page = self.document[index]
            try:
                textpage = page.get_textpage()
                try:
                    text = textpage.get_text_range()
                finally:
                    textpage.close()
            finally:
                page.close()
        if len(text) > MAX_PAGE_CHARS:
            log.warning("pdf_page_truncated path=%s page=%d chars=%d", self.path, index + 1, len(text))
            text = text[:MAX_PAGE_CHARS]
        return text.replace("\x00", "")

    def running_lines(self) -> frozenset[str]:
        """Return the running header/footer lines, learnt once from pages spread over the file."""
        if self._running is None:
            step = max(1, self.pages // SAMPLE_PAGES)
            sample = (join_hyphenation(self._safe_text(i)) for i in range(0, self.pages, step))
            self._running = learn_running_lines(sample)
        return self._running

    def _safe_text(self, index: int) -> str:
        try:
            return self.raw_text(index)
        except pdfium.PdfiumError as exc:
            log.warning("pdf_page_unreadable path=%s page=%d error=%s", self.path, index + 1, exc)
            return ""

    def page_text(self, index: int, ocr: PageOcr | None = None) -> str:
        """Return the cleaned text of page ``index``; OCR it when it has no text layer and ``ocr`` is given."""
        text = clean_page(self._safe_text(index), self.running_lines()).strip()
        if not text and ocr is not None:
            with PDFIUM_LOCK:
                page = self.document[index]
                try:
                    return ocr(page, index + 1)
                finally:
                    page.close()
        return text

    def reopen(self) -> None:
        """Open the document afresh: PDFium keeps every object it parsed until the document is closed."""
        with PDFIUM_LOCK:
            self.document.close()
            self.document = pdfium.PdfDocument(str(self.path))

    def close(self) -> None:
        """Release PDFium's document."""
        with PDFIUM_LOCK:
            self.document.close()


def _is_encrypted(document: pdfium.PdfDocument) -> bool:
    return pdfium_c.FPDF_GetSecurityHandlerRevision(document) != -1


def open_pdf(path: Path) -> PdfFile:
    """Open a PDF (an empty user password is tried), refusing damaged, locked and bomb files."""
    check_pdf_header(path)
    try:
        with PDFIUM_LOCK:
            document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise ExtractionError(N_("The PDF is encrypted and needs a password"), f"{path}: {exc}") from exc
        raise ExtractionError(N_("The PDF is damaged and cannot be read"), f"{path}: {exc}") from exc
    except OSError as exc:
        raise ExtractionError(N_("The file could not be read"), f"{path}: {exc}") from exc
    pdf = PdfFile(path, document)
    try:
        check_pdf_streams(path, _is_encrypted(document))
    except ExtractionError:
        pdf.close()
        raise
    if pdf.pages == 0:
        pdf.close()
        raise ExtractionError(N_("The PDF is damaged and cannot be read"), f"{path}: no pages")
    return pdf


def iter_pdf_pages(path: Path, pdf: PdfFile | None = None, ocr: PageOcr | None = None) -> Iterator[Page]:
    """Yield each page's cleaned text with its 1-based page number, one page in memory at a time."""
    pdf = pdf or open_pdf(path)
    try:
        for index in range(pdf.pages):
            if index and index % REOPEN_PAGES == 0:
                pdf.reopen()
            yield Page(index + 1, pdf.page_text(index, ocr))
    finally:
        pdf.close()


def pdf_page_count(path: Path) -> int:
    """Return the number of pages of a PDF (for progress reporting)."""
    pdf = open_pdf(path)
    pdf.close()
    return pdf.pages
