"""Build small real PDFs with text for tests (pypdf only, standard Helvetica font)."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content(text: str) -> str:
    """Return a content stream drawing each line of ``text`` below the previous one."""
    lines = " T* ".join(f"({_escape(line)}) Tj" for line in text.split("\n"))
    return f"BT /F1 11 Tf 14 TL 72 760 Td {lines} ET"


def write_text_pdf(path: Path, page_texts: Iterable[str]) -> Path:
    """Write a PDF with the Latin-1 text of each page (lines split at '\\n') and return its path."""
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
        stream.set_data(_content(text).encode("latin-1"))
        page.replace_contents(stream)
    writer.write(path)
    return path
