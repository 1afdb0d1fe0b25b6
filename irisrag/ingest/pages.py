"""Value objects shared by the extractors and the chunker."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    """Text of one page (PDF, 1-based ``number``) or of a whole file (``number`` None).

    A table (CSV, a spreadsheet's sheet) has a ``header`` line and one row a line in
    ``text``: the chunker packs whole rows and starts every chunk with the header.
    """

    number: int | None
    text: str
    header: str | None = None


@dataclass(frozen=True)
class Extracted:
    """Text extracted from one file, page by page."""

    kind: str
    pages: tuple[Page, ...]

    @property
    def text(self) -> str:
        """Return the whole text, pages separated by a blank line."""
        return "\n\n".join(page.text for page in self.pages if page.text)
