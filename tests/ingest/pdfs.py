"""Build small real PDFs with text for tests (pypdf only, standard Helvetica font)."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def write_text_pdf(path: Path, page_texts: Iterable[str]) -> Path:
    """Write a PDF with one line of Latin-1 text per page and return its path."""
    writer = PdfWriter()
    font = DictionaryObject({
        NameObject("/Type"): NameObject("/Font"),
        NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
        NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
    })
    resources = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
    for text in page_texts:
        page = writer.add_blank_page(595, 842)
        page[NameObject("/Resources")] = resources
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 11 Tf 72 760 Td ({_escape(text)}) Tj ET".encode("latin-1"))
        page.replace_contents(stream)
    writer.write(path)
    return path
