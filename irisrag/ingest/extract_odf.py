"""OpenDocument (odfpy): ODT text with headings, ODS sheets as table pages, ODP a page per slide; EPUB.

An EPUB is a ZIP of XHTML chapters in the order its package file's spine gives; each
chapter is extracted like an HTML page.
"""
from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Iterator
from pathlib import Path

import lxml.etree

from irisrag.errors import ExtractionError
from irisrag.ingest.extract_office import sheet_pages, table_row
from irisrag.ingest.office_zip import ENCRYPTED, check_package, damaged
from irisrag.ingest.pages import Page
from irisrag.ingest.pdf_text import drop_running_blocks

_SAFE_XML = lxml.etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


def _load(path: Path):
    from odf.opendocument import load

    check_package(path)
    with zipfile.ZipFile(path) as package:
        try:
            manifest = package.read("META-INF/manifest.xml")
        except KeyError:
            manifest = b""
    if b"encryption-data" in manifest:
        raise ExtractionError(ENCRYPTED, f"{path}: the manifest lists encrypted parts")
    try:
        return load(str(path))
    except Exception as exc:  # odfpy raises XML and KeyError on broken packages
        raise damaged(path, exc) from exc


def _text(element) -> str:
    from odf import teletype

    return " ".join(teletype.extractText(element).split())


def _blocks(element) -> Iterator[str]:
    """Yield headings (as Markdown), paragraphs and table rows below ``element``, in document order."""
    for child in element.childNodes:
        name = getattr(child, "qname", (None, None))[1]
        if name == "h":
            level = int(child.getAttribute("outlinelevel") or 1)
            text = _text(child)
            if text:
                yield f"{'#' * min(level, 6)} {text}"
        elif name == "p":
            yield _text(child)
        elif name == "table-row":
            yield table_row(_text(cell) for cell in _cells(child))
        elif name is not None:
            yield from _blocks(child)


def _cells(row) -> Iterator:
    for cell in row.childNodes:
        if getattr(cell, "qname", (None, None))[1] == "table-cell":
            yield cell


def odt_pages(path: Path) -> Iterator[Page]:
    """Yield an ODT document as one page."""
    document = _load(path)
    yield Page(None, "\n\n".join(block for block in _blocks(document.text) if block))


def ods_pages(path: Path) -> Iterator[Page]:
    """Yield each sheet of an ODS spreadsheet as records."""
    from odf.table import Table, TableRow

    document = _load(path)
    for number, sheet in enumerate(document.spreadsheet.getElementsByType(Table), start=1):
        rows = ([_text(cell) for cell in _cells(row)] for row in sheet.getElementsByType(TableRow))
        yield from sheet_pages(number, sheet.getAttribute("name") or str(number), rows)


def odp_pages(path: Path) -> Iterator[Page]:
    """Yield each slide of an ODP presentation (1-based number as the page), without blocks repeating on most slides."""
    from odf.draw import Page as DrawPage

    document = _load(path)
    slides = [[block for block in _blocks(slide) if block] for slide in document.presentation.getElementsByType(DrawPage)]
    for number, blocks in enumerate(drop_running_blocks(slides), start=1):
        yield Page(number, "\n\n".join(blocks))


def epub_pages(path: Path) -> Iterator[Page]:
    """Yield each chapter of an EPUB in reading order (no page numbers)."""
    from irisrag.ingest.extract_html import extract_html_bytes

    check_package(path)
    try:
        with zipfile.ZipFile(path) as package:
            for name in _spine(package):
                yield Page(None, extract_html_bytes(package.read(name)))
    except ExtractionError:
        raise
    except (KeyError, zipfile.BadZipFile, lxml.etree.XMLSyntaxError, ValueError) as exc:
        raise damaged(path, exc) from exc


def _spine(package: zipfile.ZipFile) -> list[str]:
    """Return the chapter files of an EPUB in spine order."""
    ns = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "o": "http://www.idpf.org/2007/opf"}
    container = lxml.etree.fromstring(package.read("META-INF/container.xml"), _SAFE_XML)
    opf_path = container.xpath("//c:rootfile/@full-path", namespaces=ns)[0]
    opf = lxml.etree.fromstring(package.read(opf_path), _SAFE_XML)
    base = posixpath.dirname(opf_path)
    items = {item.get("id"): item.get("href") for item in opf.xpath("//o:manifest/o:item", namespaces=ns)}
    refs = opf.xpath("//o:spine/o:itemref/@idref", namespaces=ns)
    return [posixpath.normpath(posixpath.join(base, items[ref])) for ref in refs if ref in items]
