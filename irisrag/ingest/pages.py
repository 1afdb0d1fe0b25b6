"""Value objects shared by the extractors and the chunker."""
from __future__ import annotations

from dataclasses import dataclass

from irisrag.ingest.records import Record


@dataclass(frozen=True)
class Page:
    """Text of one page (PDF, 1-based ``number``) or of a whole file (``number`` None).

    A table (CSV, a spreadsheet's sheet) has a ``header`` line and one row a line in
    ``text``: the chunker packs whole rows and starts every chunk with the header.
    Structured data (CSV, sheets, JSON, XML) comes as ``records`` instead, a batch at a time,
    ``text`` then holding the same records as readable text: the chunker keeps each whole.
    """

    number: int | None
    text: str
    header: str | None = None
    records: tuple[Record, ...] = ()


@dataclass(frozen=True)
class Extracted:
    """Text extracted from one file, page by page."""

    kind: str
    pages: tuple[Page, ...]

    @property
    def text(self) -> str:
        """Return the whole text, pages separated by a blank line."""
        return "\n\n".join(page.text for page in self.pages if page.text)
