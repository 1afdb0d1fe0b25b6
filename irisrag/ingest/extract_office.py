"""Office Open XML: DOCX (python-docx), PPTX (python-pptx, a page per slide), XLSX (openpyxl, read-only).

Headings of a Word document become Markdown headings, table rows one line each with
" | " between cells (Markdown rows under a rule where the table has a header row: ``table_lines``). A spreadsheet's sheet is a table of records: its first non-empty row names the fields,
every further row is a record of the table named like the sheet (``irisrag.ingest.records``).
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from docx.oxml.ns import qn

from irisrag.errors import ExtractionError
from irisrag.ingest.office_zip import check_package, damaged
from irisrag.ingest.pages import Page
from irisrag.ingest.pdf_text import drop_running_blocks

LABEL_MAX_CHARS = 40
_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|título)\s*(\d)$", re.IGNORECASE)


def table_row(cells: Iterable[object]) -> str:
    """Return one table row as a line: the cells' text, empty ones left out, joined by ' | '."""
    texts = (" ".join(str(cell).split()) for cell in cells if cell is not None)
    return " | ".join(text for text in texts if text)


def table_lines(rows: Iterable[Iterable[object]], header: bool) -> str:
    """Return a table's rows as lines. Where the file marks the first row as the header (Word's and PowerPoint's
    "header row" table option, on by default) and it names two columns or more, the rows are Markdown rows with a
    rule under the header, so that an answer shows a row under the header's names (``rag/tables.py``): "Sprachen
    und EDV | 32,00 €" alone did not say it is the fee per teaching unit (eval/holdout8-de kl-01). Otherwise each
    row is its cells joined by ' | ' (``table_row``)."""
    texts = [[" ".join(str(cell).split()) if cell is not None else "" for cell in row] for row in rows]
    texts = [row for row in texts if any(row)]
    if not (header and len(texts) > 1 and len(texts[0]) > 1 and all(texts[0])):
        return "\n".join(table_row(row) for row in texts)
    return "\n".join([_bar_row(texts[0]), "|" + "---|" * len(texts[0]), *map(_bar_row, texts[1:])])


def _bar_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _word_header(table) -> bool:
    """Tell whether a Word table has its "header row" option on (``w:tblLook w:firstRow``, or the old bit mask)."""
    look = table._tbl.tblPr.find(qn("w:tblLook")) if table._tbl.tblPr is not None else None
    if look is None:
        return False
    first = look.get(qn("w:firstRow"))
    return first in ("1", "true", "on") if first is not None else bool(int(look.get(qn("w:val"), "0"), 16) & 0x20)


def _open(loader, path: Path):
    check_package(path)
    try:
        return loader(str(path))
    except ExtractionError:
        raise
    except Exception as exc:  # the libraries raise KeyError, BadZipFile, XML errors, ...
        raise damaged(path, exc) from exc


def _paragraph(paragraph) -> str:
    text = paragraph.text.strip()
    style = getattr(paragraph.style, "name", "") or ""
    level = _HEADING_STYLE.match(style.strip())
    if text and (level or style == "Title"):
        return f"{'#' * (int(level.group(1)) if level else 1)} {text}"
    return text


def docx_pages(path: Path) -> Iterator[Page]:
    """Yield a Word document as one page: paragraphs and tables in document order."""
    import docx
    from docx.table import Table

    document = _open(docx.Document, path)
    blocks = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            blocks.append(table_lines(([cell.text for cell in row.cells] for row in block.rows), _word_header(block)))
        else:
            blocks.append(_paragraph(block))
    yield Page(None, "\n\n".join(block for block in blocks if block))


def _shape_texts(shapes) -> Iterator[str]:
    for shape in shapes:
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            yield shape.text_frame.text
        if getattr(shape, "has_table", False) and shape.has_table:
            table = shape.table
            yield table_lines(([cell.text for cell in row.cells] for row in table.rows), table.first_row)
        if hasattr(shape, "shapes"):  # a group
            yield from _shape_texts(shape.shapes)


def pptx_pages(path: Path) -> Iterator[Page]:
    """Yield each slide (1-based number as the page) with its texts, tables and speaker notes; a footer or other
    block repeating on most slides is left out (``pdf_text.drop_running_blocks``)."""
    import pptx

    presentation = _open(pptx.Presentation, path)
    slides = [_slide_texts(slide) for slide in presentation.slides]
    for number, texts in enumerate(drop_running_blocks(slides), start=1):
        yield Page(number, "\n\n".join(texts))


def _slide_texts(slide) -> list[str]:
    """A slide's text blocks: its shapes' texts and tables, then its speaker notes."""
    texts = [text.strip() for text in _shape_texts(slide.shapes)]
    if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
        texts.append(slide.notes_slide.notes_text_frame.text.strip())
    return [text for text in texts if text]


def xlsx_pages(path: Path) -> Iterator[Page]:
    """Yield each sheet as a table page (the sheet's number as the page), read row by row."""
    import openpyxl

    workbook = _open(lambda p: openpyxl.load_workbook(p, read_only=True, data_only=True), path)
    try:
        for number, sheet in enumerate(workbook.worksheets, start=1):
            yield from sheet_pages(number, sheet.title, sheet.iter_rows(values_only=True))
    except ExtractionError:
        raise
    except Exception as exc:
        raise damaged(path, exc) from exc
    finally:
        workbook.close()


def _label(text: str) -> bool:
    """Tell whether a one-column sheet's first cell names a field ("Name"), not a note ("1) Alle Preise …")."""
    return 0 < len(text) <= LABEL_MAX_CHARS and not any(ch.isdigit() for ch in text)


def sheet_pages(number: int, title: str, rows: Iterable[Iterable[object]]) -> Iterator[Page]:
    """Yield a sheet's records in batches (the sheet's number as the page); a header alone, or a sheet of one
    column whose first cell is no field name (footnotes under each other), is a text page."""
    from irisrag.ingest.extract_csv import filled, record_pages, rows_to_records, title_text, titled

    titles, rows = titled(rows)
    header: list = next(rows, [])
    if filled(header) < 2 and not _label(table_row(header)):   # footnotes under each other: text, not a table
        lines = (table_row(row) for row in itertools.chain(titles, [header], rows))
        text = "\n".join(line for line in lines if line)
        if text:
            yield Page(number, f"# {title}\n{text}")
        return
    if titles:
        yield Page(number, f"# {title}\n{title_text(titles)}")
    yielded = False
    for page in record_pages(rows_to_records(title, itertools.chain([header], rows)), number):
        yielded = True
        yield page
    if not yielded and table_row(header):
        yield Page(number, f"# {title}\n{table_row(header)}")
