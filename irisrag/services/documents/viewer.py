"""The document viewer: a cited document for a user who may read its area, and for nobody else.

Access is the asking service's own (``access.permitted_area_ids``; API keys:
``api_keys.effective_area_ids``), checked on every call: a document outside those areas,
an unknown id and a document whose file is gone are all ``NotFound`` (existence does not
leak). Files are read from the staging path recorded on the Document row, never from a
path in the request. Text is shown as indexed: the document's chunks in order, with the
overlap between neighbours removed, so a cited chunk can be highlighted where it is.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from irisrag import components
from irisrag.errors import NotFound
from irisrag.i18n import N_
from irisrag.ingest.chunk import leading_table_header
from irisrag.models import Area, Document
from irisrag.services import access
from irisrag.services.admin import api_keys
from irisrag.services.admin.api_keys import KeyPrincipal

MAX_OVERLAP = 600
PDF = "pdf"


@dataclass(frozen=True)
class Segment:
    """A chunk of the document as shown: its index, page, the text not shown by its predecessor."""

    chunk_index: int
    page: int | None
    text: str
    boilerplate: bool = False   # navigation or a table of contents (shown marked, never answer text)


@dataclass(frozen=True)
class DocumentView:
    document: Document
    area_name: str
    segments: tuple[Segment, ...]
    cited: int | None

    @property
    def is_pdf(self) -> bool:
        return self.document.kind == PDF

    @property
    def origin(self) -> str | None:
        url = (self.document.source_url or "").strip()
        return url if url.lower().startswith(("http://", "https://")) else None


def _not_found(document_id: int) -> NotFound:
    return NotFound(N_("There is no document with id %(id)s."), params={"id": document_id})


def readable_document(area_ids: list[int], document_id: int) -> Document:
    """Return the document if it lies in one of the areas, else NotFound."""
    doc = (Document.select(Document, Area).join(Area)
           .where((Document.id == int(document_id)) & Document.area.in_(area_ids or [-1])).first())
    if doc is None:
        raise _not_found(document_id)
    return doc


def for_user(user_id: int, document_id: int) -> Document:
    """Return a document the user may read (same access as asking)."""
    return readable_document(access.permitted_area_ids(user_id), document_id)


def for_key(principal: KeyPrincipal, document_id: int) -> Document:
    """Return a document the API key reaches (its scope applies)."""
    return readable_document(list(api_keys.effective_area_ids(principal)), document_id)


def staged_file(doc: Document) -> Path:
    """Return the staged file of the document, or NotFound when it is gone."""
    path = Path(doc.directory) / doc.name
    if not doc.directory or not path.is_file():
        raise _not_found(doc.id)
    return path


def _overlap(previous: str, current: str) -> int:
    """Return how many leading characters of ``current`` repeat the end of ``previous``."""
    for size in range(min(len(previous), len(current), MAX_OVERLAP), 15, -1):
        if previous.endswith(current[:size]):
            return size
    return 0


def segments(doc: Document) -> tuple[Segment, ...]:
    """Return the document's indexed chunks in order, each without the text its predecessor showed."""
    hits = sorted(components.get().store.chunks_of(doc.id), key=lambda h: h.chunk_index)
    shown: list[Segment] = []
    previous = ""
    for hit in hits:
        shown.append(Segment(hit.chunk_index, hit.page, _not_shown(previous, hit.text), hit.boilerplate))
        previous = hit.text
    return tuple(shown)


def _not_shown(previous: str, text: str) -> str:
    """The part of a chunk its predecessor did not show: without the overlap, and without the table header the
    chunker put atop a chunk that begins inside a table (``chunk.table_header_before``) when the predecessor
    holds it."""
    header = leading_table_header(text)
    if header and header in previous:
        text = text[len(header):]
    return text[_overlap(previous, text):]


def document_view(user_id: int, document_id: int, chunk: int | None) -> DocumentView:
    """Return what the viewer shows of a document the user may read, with the cited chunk."""
    doc = for_user(user_id, document_id)
    return DocumentView(doc, doc.area.name, segments(doc), chunk)


def page_of(doc: Document, chunk: int | None) -> int | None:
    """Return the page of a chunk of the document (None when unknown)."""
    if chunk is None:
        return None
    for hit in components.get().store.chunks_of(doc.id):
        if hit.chunk_index == chunk:
            return hit.page
    return None


_UNSAFE = re.compile(r"[^\w.\- ]+")


def download_name(doc: Document) -> str:
    """Return an ASCII file name for Content-Disposition (no quotes, slashes or control characters)."""
    ascii_name = unicodedata.normalize("NFKD", doc.name).encode("ascii", "ignore").decode()
    cleaned = _UNSAFE.sub("_", ascii_name).strip(" .") or f"document-{doc.id}"
    return cleaned[:150]
