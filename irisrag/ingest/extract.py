"""Turn a stored file into text, per file type: PDF (PDFium), text, HTML (trafilatura).

Structured data becomes records (``irisrag.ingest.records``): CSV/TSV (``extract_csv``),
JSON arrays of objects and JSON Lines (``extract_json``), XML of repeated elements
(``extract_xml``), spreadsheet sheets (``extract_office``, ``extract_odf``). JSON and XML
that hold no records stay plain text.
"""
from __future__ import annotations

import codecs
import logging
from collections.abc import Callable, Iterator
from pathlib import Path, PurePath

from irisrag.errors import ExtractionError, UnsupportedFileType
from irisrag.i18n import N_, Label
from irisrag.ingest.extract_csv import csv_pages
from irisrag.ingest.extract_html import MAX_HTML_CHARS, extract_html_bytes, extract_html_text
from irisrag.ingest.extract_json import json_pages
from irisrag.ingest.extract_odf import epub_pages, odp_pages, ods_pages, odt_pages
from irisrag.ingest.extract_office import docx_pages, pptx_pages, xlsx_pages
from irisrag.ingest.extract_pdf import PdfFile, iter_pdf_pages, open_pdf
from irisrag.ingest.extract_xml import xml_pages
from irisrag.ingest.ocr import OcrSettings, image_pages, pdf_missing_ocr_error, pdf_page_reader, tesseract
from irisrag.ingest.pages import Extracted, Page

__all__ = [
    "SUPPORTED", "Extracted", "Page", "extract", "extract_html_bytes", "extract_html_text",
    "iter_pages", "iter_pdf_pages", "kind_for", "decode_text", "page_source", "streams_records",
]

log = logging.getLogger(__name__)

SUPPORTED: dict[str, str] = {
    ".pdf": "pdf",
    ".txt": "text",
    ".md": "text",
    ".json": "text",
    ".jsonl": "text",
    ".xml": "text",
    ".csv": "csv",
    ".tsv": "csv",
    ".html": "html",
    ".htm": "html",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".odt": "odt",
    ".ods": "ods",
    ".odp": "odp",
    ".epub": "epub",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".tif": "image",
    ".tiff": "image",
}
KINDS = frozenset(SUPPORTED.values())
# Office, OpenDocument and EPUB files: ZIP packages, each read by its own library.
PACKAGE_READERS: dict[str, Callable[[Path], Iterator[Page]]] = {
    "docx": docx_pages, "pptx": pptx_pages, "xlsx": xlsx_pages,
    "odt": odt_pages, "ods": ods_pages, "odp": odp_pages, "epub": epub_pages,
}

# Text files are read whole; past this they are not documents but data dumps.
MAX_TEXT_BYTES = 64 * 1024 * 1024
# Share of control characters (besides tab/newline/CR/FF) above which a file counts as binary.
_BINARY_CONTROL_SHARE = 0.05
_SNIFF_BYTES = 8192
_ALLOWED_CONTROLS = frozenset(b"\t\n\r\f\x1b")
_UTF16_BOMS = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))

EMPTY_MESSAGE = N_("The file contains no extractable text (a scanned PDF or an empty file?)")


def supported_types_text() -> str:
    """Return the supported file extensions as a readable list."""
    return ", ".join(sorted(SUPPORTED))


def kind_for(filename: str) -> str:
    """Return the extraction kind ('pdf', 'text', 'html') for a file name."""
    suffix = PurePath(filename).suffix.lower()
    kind = SUPPORTED.get(suffix)
    if kind is None:
        shown = suffix or Label(N_("(no extension)"))
        raise UnsupportedFileType(
            N_("The file type %(type)s is not supported. Supported types: %(supported)s"),
            f"file name {filename!r}", params={"type": shown, "supported": supported_types_text()},
        )
    return kind


def _read_bytes(path: Path, limit: int) -> bytes:
    """Read a whole file, refusing one larger than ``limit`` bytes."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise ExtractionError(
                N_("The file is too large to extract as text"), f"{path}: {size} bytes, limit {limit}"
            )
        return path.read_bytes()
    except OSError as exc:
        raise ExtractionError(N_("The file could not be read"), f"{path}: {exc}") from exc


def _utf16_text(data: bytes) -> str | None:
    """Decode UTF-16 text marked by a byte order mark, else return None."""
    for bom, encoding in _UTF16_BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace")
    return None


def check_not_binary(data: bytes, name: str = "") -> None:
    """Refuse bytes that look like a binary file (NUL bytes or many control characters)."""
    sample = data[:_SNIFF_BYTES]
    controls = sum(1 for byte in sample if byte < 32 and byte not in _ALLOWED_CONTROLS)
    if b"\x00" in data or (sample and controls / len(sample) > _BINARY_CONTROL_SHARE):
        raise ExtractionError(
            N_("The file looks like a binary file, not text; check its type"),
            f"{name}: NUL bytes or {controls} control characters in the first {len(sample)} bytes",
        )


def decode_text(data: bytes, name: str = "") -> str:
    """Decode text bytes: UTF-16 by BOM, then UTF-8 (BOM stripped), then Latin-1."""
    utf16 = _utf16_text(data)
    if utf16 is not None:
        return utf16
    check_not_binary(data, name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _normalise_newlines(text: str) -> str:
    """Return text with Windows and old Mac line ends turned into '\\n'."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def extract_text_file(path: Path) -> str:
    """Return the text of a plain text file (TXT, MD, JSON, XML, CSV)."""
    return _normalise_newlines(decode_text(_read_bytes(path, MAX_TEXT_BYTES), str(path)))


def extract_html_file(path: Path) -> str:
    """Return the main content of a stored HTML file as Markdown (or plain text)."""
    data = _read_bytes(path, MAX_HTML_CHARS)
    if _utf16_text(data) is None:
        check_not_binary(data, str(path))
    return _normalise_newlines(extract_html_bytes(data, url=None))


def _checked_size(path: Path, limit: int = MAX_TEXT_BYTES) -> Path:
    """Return ``path``, refusing a file larger than ``limit`` bytes as ``_read_bytes`` does."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ExtractionError(N_("The file could not be read"), f"{path}: {exc}") from exc
    if size > limit:
        raise ExtractionError(N_("The file is too large to extract as text"), f"{path}: {size} bytes, limit {limit}")
    return path


def text_pages(path: Path) -> Iterator[Page]:
    """Yield a text file's pages: records for JSON and XML that hold them, else the text as one page."""
    suffix = path.suffix.lower()
    text_page = lambda: Page(None, extract_text_file(path))  # noqa: E731 - the fallback, read only when needed
    if suffix in (".json", ".jsonl"):
        yield from json_pages(_checked_size(path), text_page)
    elif suffix == ".xml":
        yield from xml_pages(_checked_size(path), text_page)
    else:
        yield text_page()


def _pdf_pages(path: Path, pdf: PdfFile | None, ocr: OcrSettings) -> Iterator[Page]:
    """Yield a PDF's pages, OCRing those without text; no text at all and no tesseract: say so."""
    any_text = False
    for page in iter_pdf_pages(path, pdf, pdf_page_reader(ocr)):
        any_text = any_text or bool(page.text.strip())
        yield page
    if not any_text and tesseract() is None:
        raise pdf_missing_ocr_error(path)


def iter_pages(path: Path, kind: str | None = None, ocr: OcrSettings | None = None) -> Iterator[Page]:
    """Yield the pages of a file, streaming PDFs page by page."""
    kind = kind or kind_for(path.name)
    if kind == "pdf":
        yield from _pdf_pages(path, None, ocr or OcrSettings())
    elif kind == "image":
        yield from image_pages(path, ocr or OcrSettings())
    elif kind == "text":
        yield from text_pages(path)
    elif kind == "csv":
        yield from csv_pages(_checked_size(path))
    elif kind in PACKAGE_READERS:
        yield from PACKAGE_READERS[kind](path)
    elif kind == "html":
        yield Page(None, extract_html_file(path))
    else:
        raise UnsupportedFileType(
            N_("The file type is not supported. Supported types: %(supported)s"), f"kind {kind!r}",
            params={"supported": supported_types_text()},
        )


def page_source(path: Path, kind: str | None = None,
                ocr: OcrSettings | None = None) -> tuple[int | None, Callable[[], Iterator[Page]]]:
    """Return (page count or None, a function that starts iterating the pages).

    A PDF is opened here, so a damaged or encrypted file fails at once; its pages are read
    when the iterator runs (possibly in another thread). Other kinds are one page: None.
    """
    kind = kind or kind_for(path.name)
    if kind == "pdf":
        pdf = open_pdf(path)
        return pdf.pages, lambda: _pdf_pages(path, pdf, ocr or OcrSettings())
    return None, lambda: iter_pages(path, kind, ocr)


def streams_records(path: Path, kind: str | None = None) -> bool:
    """Return True for files that may hold any number of records, streamed in batches (their chunk total is unknown)."""
    kind = kind or kind_for(path.name)
    suffix = PurePath(path.name).suffix.lower()
    return kind in ("csv", "xlsx", "ods") or (kind == "text" and suffix in (".json", ".jsonl", ".xml"))


def extract(path: Path, kind: str | None = None) -> Extracted:
    """Extract the text of a file; raise ExtractionError when there is none."""
    path = Path(path)
    kind = kind or kind_for(path.name)
    pages = tuple(iter_pages(path, kind))
    if not any(page.text.strip() or page.records for page in pages):
        raise ExtractionError(EMPTY_MESSAGE, f"{path}: {len(pages)} page(s), no text")
    log.debug("extracted path=%s kind=%s pages=%d", path, kind, len(pages))
    return Extracted(kind, pages)
