"""The answer as a value: ``AskResult`` (the live answer and a stored turn alike) and the views it holds.

One type describes an answer wherever it is shown: just given (``rag.answering``), or read
back from the history (``services.turns``). Its HTML is rendered in one place,
``AskResult.answer_html`` (``answer_html`` below), for the page, the htmx fragment and the
end of a stream; ``sources`` are the found (cited) sources, ``nearest`` the other candidates
shown when nothing matched well enough.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from irisrag.i18n import N_
from irisrag.rag.citations import CheckedAnswer, Unsupported, linked_html
from irisrag.rag.extractive import highlighter
from irisrag.rag.followup import ASKED, PreviousTurn
from irisrag.rag.lexical import terms
from irisrag.rag.render import to_html

if TYPE_CHECKING:
    from irisrag.rag.retrieve import Context

INVALID, NO_AREA, FAILED, NO_CONTEXT_FOUND, ANSWERED, EXTRACTIVE = (  # AskResult.status
    "invalid", "no_area", "failed", "no_context", "answered", "extractive")
SEARCHING, INCOMPLETE = "searching", "incomplete"  # streaming: sources found / the answer ended early
ANSWER_WITHHELD = N_("This answer drew on an area you can no longer search, so it is not shown any more.")


@dataclass(frozen=True)
class Retrieved:
    """A question's context in its areas, the Document rows it names, and the stage timings so far."""

    question: str
    areas: tuple[int, ...]
    context: Context
    documents: dict[int, Any]  # document id -> models.Document (with its Area)
    timings: dict[str, float]
    started: float  # time.perf_counter() when retrieval began
    omitted: int = 0  # passages left out to fit the model's context window (budget.fit)
    search_query: str = ""  # what retrieval searched for (rag.followup); "" means the question
    search_rule: str = ASKED  # how: asked, rewritten, key_terms
    previous: tuple[PreviousTurn, ...] = ()  # the earlier turns the answer prompt gets
    conversation_id: int | None = None  # the user's conversation the question continues (None: a new one)

    @property
    def hashes(self) -> dict[int, str]:
        return {i: d.sha256 for i, d in self.documents.items()}


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


@dataclass(frozen=True)
class AskResult:
    """One answer: the question, what was searched and found, the text with its citations, how it ended.

    The live answer fills the retrieval fields (``context``, ``retrieval_detail``, ...); a
    stored turn (``services.turns``) fills the history fields (``created_at``, ``rating``, ...).
    """

    question: str
    area_ids: tuple[int, ...]
    status: str
    answer_text: str = ""        # Markdown as written, invalid citations removed (or the fallback); terminal: to_terminal
    shown_text: str = ""         # the Markdown shown and recorded: citations checked, "" when there is no answer body
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
    links: frozenset[str] = frozenset()          # URLs of the passages: links to these stay links in the HTML
    marked: frozenset[str] | None = None         # an extractive answer's terms to mark (None: the search query's)
    created_at: datetime | None = None           # a stored turn: when it was asked
    area_names: tuple[str, ...] = ()             # a stored turn: its searched areas' names
    rating: int | None = None                    # a stored turn: the user's feedback
    comment: str = ""
    withheld: bool = False                       # a stored turn drew on an area the user has lost

    def __post_init__(self) -> None:
        if not self.search_query:
            object.__setattr__(self, "search_query", self.question)

    @property
    def searched(self) -> bool:
        """Tell whether the areas were searched (the sources list is meaningful)."""
        return self.status in (NO_CONTEXT_FOUND, ANSWERED, EXTRACTIVE, SEARCHING, INCOMPLETE)

    @property
    def cited_sources(self) -> tuple[SourceView, ...]:
        """The found sources the answer cites, in the order of their first citation number ([1] first)."""
        first: dict[int, int] = {}
        for c in sorted(self.citations, key=lambda c: c.number):
            first.setdefault(c.document_id, c.number)
        return tuple(sorted((s for s in self.sources if s.document_id in first), key=lambda s: first[s.document_id]))

    @property
    def other_sources(self) -> tuple[SourceView, ...]:
        """The found sources the answer does not cite (other candidates)."""
        cited = {c.document_id for c in self.citations}
        return tuple(s for s in self.sources if s.document_id not in cited)

    @property
    def listed_sources(self) -> tuple[SourceView, ...]:
        """The documents listed under "Sources" (issue 37 item 8): those the answer cites, numbered 1..n.

        An answer without citations (a model that cites nothing, a stream's first event) lists
        every found source.
        """
        return self.cited_sources if self.citations else self.sources

    @property
    def other_matches(self) -> tuple[SourceView, ...]:
        """The found sources listed apart, under "Other matches": those the answer does not cite."""
        return self.other_sources if self.citations else ()

    @property
    def seconds(self) -> float:
        return float(self.timings.get("total", 0.0))

    @property
    def answer_html(self) -> str:
        """The answer body as sanitised HTML, citations linked (the one renderer of an answer for the browser)."""
        return answer_html(self)


def answer_html(result: AskResult) -> str:
    """Render ``shown_text``: sanitised, citations linked to this answer's passages, an extractive one's terms marked."""
    if not result.shown_text.strip():
        return ""
    if result.withheld:  # the answer quotes or retells passages of a searched area this user has lost
        return _withheld_html()
    prefix = f"q{result.question_id}-" if result.created_at is not None else ""
    checked = CheckedAnswer(result.shown_text, (), result.invalid_citations, result.unsupported)
    html = linked_html(checked, lambda markdown: to_html(markdown, result.links),
                       href=lambda n: f"#{prefix}cite-{n}", note_id=f"{prefix}unsupported-note")
    if result.status != EXTRACTIVE:
        return html
    return highlighter(terms(result.search_query) if result.marked is None else result.marked)(html)


def _withheld_html() -> str:
    from flask_babel import gettext
    from markupsafe import escape

    return f'<p class="notice">{escape(gettext(ANSWER_WITHHELD))}</p>'
