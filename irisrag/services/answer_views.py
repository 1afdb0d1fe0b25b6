"""View objects of an answer (sources, context, citations, the whole ``AskResult``) from retrieval and the Document rows."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from irisrag.models import Area, Document
from irisrag.rag.citations import CheckedAnswer, Unsupported, chunk_id
from irisrag.rag.retrieve import Context, ContextChunk
from irisrag.rag.sources import Source, highlight

log = logging.getLogger(__name__)

CITED_TEXT_CHARS = 2000


@dataclass(frozen=True)
class PassageView:
    """A matching passage of a source, split into (text, is_matched_term) segments."""

    chunk_index: int
    page: int | None
    score: float
    segments: tuple[tuple[str, bool], ...]

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.segments)


@dataclass(frozen=True)
class SourceView:
    """A found source as shown under an answer."""

    document_id: int
    name: str
    area_id: int
    area_name: str
    source_url: str | None
    original_path: str | None
    score: float
    passages: tuple[PassageView, ...]
    chunk: int | None = None   # a closest document (NEAREST_DOCUMENTS): its best-ranked chunk, where the viewer opens

    @property
    def link(self) -> str | None:
        """Return the source URL when it is safe to link (http or https), else None."""
        url = (self.source_url or "").strip()
        return url if url.lower().startswith(("http://", "https://")) else None


@dataclass(frozen=True)
class ContextEntry:
    """A chunk of the context, numbered as in the prompt; ``chunk_id`` is deterministic (citations.py)."""

    position: int
    document_id: int
    area_id: int
    chunk_index: int
    page: int | None
    score: float
    lexical_score: float
    sha256: str = ""
    chunk_id: str = ""


@dataclass(frozen=True)
class CitationView:
    """A cited passage: its number in the answer, the chunk and document version it came from, its text.

    ``current_sha256`` is the document's hash now (None: the document is gone); when it
    differs from ``document_sha256`` the source has changed since the answer was written.
    """

    number: int
    chunk_id: str
    document_id: int
    chunk_index: int
    document_sha256: str
    page: int | None
    area_id: int
    document_name: str
    text: str
    unsupported: bool = False
    current_sha256: str | None = None
    accessible: bool = True

    @property
    def changed(self) -> bool:
        return self.current_sha256 is not None and self.current_sha256 != self.document_sha256

    @property
    def deleted(self) -> bool:
        return self.current_sha256 is None


def documents_for(context: Context, areas: Sequence[int]) -> dict[int, Document]:
    """Return the Document rows of the context chunks, sources and nearest documents; never rows outside the areas."""
    ids = {c.hit.document_id for c in context.chunks} | {s.document_id for s in context.sources} | {h.document_id for h in context.nearest}
    if not ids:
        return {}
    query = (Document.select(Document, Area).join(Area)
             .where(Document.id.in_(sorted(ids)) & Document.area.in_([int(a) for a in areas])))
    documents = {d.id: d for d in query}
    missing = sorted(ids - set(documents))
    if missing:
        log.info("answer_without_document ids=%s", missing)
    return documents


def source_views(context: Context, documents: dict[int, Document]) -> tuple[SourceView, ...]:
    """Return the found sources joined with their Document rows (sources without a row are left out)."""
    return tuple(_source_view(s, documents[s.document_id]) for s in context.sources if s.document_id in documents)


def nearest_views(context: Context, documents: dict[int, Document]) -> tuple[SourceView, ...]:
    """Return the nearest documents of an empty context (``rag.sources.nearest_documents``) with their rows."""
    return tuple(SourceView(d.id, d.display_name, d.area.id, d.area.name, d.source_url, d.original_path,
                            round(float(hit.score), 4), (), hit.chunk_index)
                 for hit in context.nearest if (d := documents.get(hit.document_id)) is not None)


def _source_view(source: Source, document: Document) -> SourceView:
    passages = tuple(
        PassageView(p.chunk_index, p.page, round(p.score, 4), tuple(highlight(p.text, p.terms)))
        for p in source.passages
    )
    return SourceView(document.id, document.display_name, document.area.id, document.area.name,
                      document.source_url, document.original_path, round(source.score, 4), passages)


def context_entry(chunk: ContextChunk, documents: dict[int, Document]) -> ContextEntry:
    """Return the view of one context chunk, with the hash of its document version."""
    hit = chunk.hit
    document = documents.get(hit.document_id)
    sha256 = document.sha256 if document is not None else ""
    return ContextEntry(chunk.position, hit.document_id, hit.area_id, hit.chunk_index, hit.page,
                        round(float(hit.score), 4), float(chunk.match.score), sha256,
                        chunk_id(hit.document_id, hit.chunk_index, sha256))


def citation_views(checked: CheckedAnswer, context: Context, documents: dict[int, Document]) -> tuple[CitationView, ...]:
    """Return the cited passages of a checked answer in number order."""
    by_number = {c.position: c for c in context.chunks}
    flagged = checked.unsupported_numbers
    views = []
    for citation in checked.citations:
        hit = by_number[citation.number].hit
        document = documents.get(citation.document_id)
        views.append(CitationView(
            citation.number, citation.chunk_id, citation.document_id, citation.chunk_index,
            citation.document_sha256, citation.page, hit.area_id,
            document.display_name if document is not None else f"#{citation.document_id}",
            hit.text.strip()[:CITED_TEXT_CHARS], citation.number in flagged,
            document.sha256 if document is not None else None,
        ))
    return tuple(views)


INVALID, NO_AREA, FAILED, NO_CONTEXT_FOUND, ANSWERED, EXTRACTIVE = (  # AskResult.status
    "invalid", "no_area", "failed", "no_context", "answered", "extractive")
SEARCHING, INCOMPLETE = "searching", "incomplete"  # streaming: sources found / the answer ended early


@dataclass(frozen=True)
class AskResult:
    """Everything an edge needs to show one answer."""

    question: str
    area_ids: tuple[int, ...]
    status: str
    answer_text: str = ""        # Markdown as written, invalid citations removed (or the fallback); terminal: to_terminal
    answer_html: str = ""        # the answer body as sanitised HTML (rag.answer.to_html), citations linked after it
    llm: str = "none"
    extractive: bool = False
    notice: str | None = None    # what the user must know about the answer (a message id)
    error: str | None = None     # what went wrong (a message id)
    error_detail: str | None = None      # technical detail for admins (may name URLs)
    retrieval_detail: str | None = None  # what retrieval found, for admins (SPEC 7 hints)
    sources: tuple[SourceView, ...] = ()
    context: tuple[ContextEntry, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    citations: tuple[CitationView, ...] = ()     # the cited passages, by number ([n] links to #cite-n)
    invalid_citations: tuple[int, ...] = ()      # numbers the model cited that were not in the context (removed)
    unsupported: tuple[Unsupported, ...] = ()    # sentences whose cited passage shares no term with them
    question_id: int | None = None               # the QuestionLog row (feedback), None when not recorded
    omitted: int = 0                             # passages left out to fit the model's context window
    search_query: str = ""                       # what retrieval searched for; the question when not rewritten
    nearest: tuple[SourceView, ...] = ()         # no context: the ranking's first documents (NEAREST_DOCUMENTS)

    def __post_init__(self) -> None:
        if not self.search_query:
            object.__setattr__(self, "search_query", self.question)

    @property
    def searched(self) -> bool:
        """Tell whether the areas were searched (the sources list is meaningful)."""
        return self.status in (NO_CONTEXT_FOUND, ANSWERED, EXTRACTIVE, SEARCHING, INCOMPLETE)
