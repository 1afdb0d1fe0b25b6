"""PDF text extraction with pypdf, one page at a time."""
from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError, PdfReadError, PyPdfError

from irisrag.errors import ExtractionError
from irisrag.ingest.pages import Page

log = logging.getLogger(__name__)

# A hostile page can expand to gigabytes of text; real pages hold a few thousand characters.
MAX_PAGE_CHARS = 1_000_000
BOMB_MESSAGE = "A page of the PDF expands to far more data than a document page holds; it was not read"
# The header may legally follow some junk, but only within the first kilobyte.
HEADER_WINDOW = 1024


def check_pdf_header(path: Path) -> None:
    """Refuse a file whose content does not start like a PDF."""
    try:
        with path.open("rb") as fh:
            head = fh.read(HEADER_WINDOW)
    except OSError as exc:
        raise ExtractionError("The file could not be read", f"{path}: {exc}") from exc
    if b"%PDF-" not in head:
        raise ExtractionError(
            "The file is named .pdf but is not a PDF", f"{path}: no %PDF- header in the first {HEADER_WINDOW} bytes"
        )


def open_pdf(path: Path) -> PdfReader:
    """Open a PDF, unlocking it with an empty password when it is encrypted."""
    check_pdf_header(path)
    try:
        reader = PdfReader(path, strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise ExtractionError("The PDF is encrypted and needs a password", f"{path}: empty password refused")
        _ = len(reader.pages)  # forces the page tree to load so corruption shows up here
    except ExtractionError:
        raise
    except (FileNotDecryptedError, DependencyError) as exc:
        raise ExtractionError("The PDF is encrypted and needs a password", f"{path}: {exc}") from exc
    except (PyPdfError, PdfReadError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise ExtractionError("The PDF is damaged and cannot be read", f"{path}: {type(exc).__name__}: {exc}") from exc
    except OSError as exc:
        raise ExtractionError("The file could not be read", f"{path}: {exc}") from exc
    return reader


def _page_text(reader: PdfReader, index: int, path: Path) -> str:
    """Return the text of one page; a broken page yields '' rather than failing the document."""
    try:
        text = reader.pages[index].extract_text() or ""
    except LimitReachedError as exc:  # pypdf's decompression cap: a bomb, not a page to skip silently
        raise ExtractionError(BOMB_MESSAGE, f"{path}: page {index + 1}: {exc}") from exc
    except Exception as exc:  # pypdf raises many types on broken content streams
        log.warning("pdf_page_unreadable path=%s page=%d error=%s", path, index + 1, exc)
        return ""
    if len(text) > MAX_PAGE_CHARS:
        log.warning("pdf_page_truncated path=%s page=%d chars=%d", path, index + 1, len(text))
        text = text[:MAX_PAGE_CHARS]
    return text.replace("\x00", "")


# pypdf caches every object it resolves for the reader's lifetime: ~25 MiB per 1,000 pages of
# the R reference manual on top of ~150 MiB for its object streams (bench/README.md, memory).
# Dropping the cache every so many pages keeps extraction flat; objects are re-read on demand.
CACHE_CLEAR_PAGES = 50


def iter_pdf_pages(path: Path, reader: PdfReader | None = None) -> Iterator[Page]:
    """Yield each page's text with its 1-based page number, one page in memory at a time."""
    reader = reader or open_pdf(path)
    cache = getattr(reader, "resolved_objects", None)
    for index in range(len(reader.pages)):
        yield Page(index + 1, _page_text(reader, index, path))
        if isinstance(cache, dict) and (index + 1) % CACHE_CLEAR_PAGES == 0:
            cache.clear()


def pdf_page_count(path: Path) -> int:
    """Return the number of pages of a PDF (for progress reporting)."""
    return len(open_pdf(path).pages)
