"""Asking: permitted ∩ selected areas -> context -> found sources -> answer, for web, CLI and API.

The areas searched are computed here on every call from the user's groups (``access``),
never taken from the caller as they are: ``ask_from_web`` silently drops areas the user
may not query (a stale or crafted dashboard selection), ``ask`` refuses them with
``Forbidden`` when ``strict`` (the CLI and the API name areas explicitly).

User-facing messages are English message ids marked with ``N_`` for extraction; the web
translates them (``_(result.error)``), the CLI prints them as they are. Technical details
(URLs, settings) go to ``error_detail`` / ``retrieval_detail``, shown to admins only.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import requests

from irisrag import components
from irisrag.errors import EmbedderMismatch, EmbeddingError, Forbidden, ValidationError
from irisrag.llm import NoLLM
from irisrag.models import Area, Document
from irisrag.rag.answer import answer, extractive_text, llm_name, to_html
from irisrag.rag.retrieve import Context, RetrievalSettings, build_context
from irisrag.rag.sources import Source, highlight
from irisrag.services import access

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000


def N_(text: str) -> str:  # noqa: N802 - the gettext convention for "translate later"
    """Mark a message for extraction; it is translated where it is shown."""
    return text


EMPTY_QUESTION = N_("Please enter a question.")
QUESTION_TOO_LONG = N_("The question is too long: please use at most 4000 characters.")
NO_AREA_SELECTED = N_("Select at least one area to search.")
NO_AREA_PERMITTED = N_("You do not have access to any area yet. An administrator can grant you areas.")
NO_CONTEXT = N_("No information was found in the context. Check the areas you selected.")
NO_SOURCES = N_("No sources were found. Check the areas you selected, or ask with other words.")
NO_LLM = N_("No language model is available, so here are the passages that match best:")
LLM_NOT_CONFIGURED = N_("No language model is configured.")
LLM_TIMEOUT = N_("The language model did not answer in time.")
LLM_UNREACHABLE = N_("The language model could not be reached.")
LLM_FAILED = N_("The language model reported an error.")
SEARCH_FAILED = N_("The document search is not available at the moment. Please try again later.")

INVALID, NO_AREA, FAILED, NO_CONTEXT_FOUND, ANSWERED, EXTRACTIVE = (  # AskResult.status
    "invalid", "no_area", "failed", "no_context", "answered", "extractive")


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

    @property
    def link(self) -> str | None:
        """Return the source URL when it is safe to link (http or https), else None."""
        url = (self.source_url or "").strip()
        return url if url.lower().startswith(("http://", "https://")) else None


@dataclass(frozen=True)
class ContextEntry:
    """A chunk of the context, numbered as in the prompt."""

    position: int
    document_id: int
    area_id: int
    chunk_index: int
    page: int | None
    score: float
    lexical_score: float


@dataclass(frozen=True)
class AskResult:
    """Everything an edge needs to show one answer."""

    question: str
    area_ids: tuple[int, ...]
    status: str
    answer_text: str = ""        # Markdown as written (or the fallback); terminal: rag.answer.to_terminal
    answer_html: str = ""        # the answer body as sanitised HTML (rag.answer.to_html only)
    llm: str = "none"
    extractive: bool = False
    notice: str | None = None    # what the user must know about the answer (a message id)
    error: str | None = None     # what went wrong (a message id)
    error_detail: str | None = None      # technical detail for admins (may name URLs)
    retrieval_detail: str | None = None  # what retrieval found, for admins (SPEC 7 hints)
    sources: tuple[SourceView, ...] = ()
    context: tuple[ContextEntry, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def searched(self) -> bool:
        """Tell whether the areas were searched (the sources list is meaningful)."""
        return self.status in (NO_CONTEXT_FOUND, ANSWERED, EXTRACTIVE)


# --- entry points ---------------------------------------------------------------

def validate_question(question: str | None) -> str:
    """Return the stripped question or raise ValidationError (empty, or over 4000 characters)."""
    text = (question or "").strip()
    if not text:
        raise ValidationError(EMPTY_QUESTION, field="question")
    if len(text) > MAX_QUESTION_CHARS:
        raise ValidationError(QUESTION_TOO_LONG, detail=f"{len(text)} characters", field="question")
    return text


def ask_from_web(user_id: int, question: str | None, requested_ids: Iterable[int] | None) -> AskResult:
    """Answer a dashboard question; foreign selections are dropped and problems become messages."""
    try:
        text = validate_question(question)
    except ValidationError as exc:
        return AskResult((question or "").strip()[:MAX_QUESTION_CHARS], (), INVALID, error=exc.message)
    areas = access.select_areas(user_id, list(requested_ids or []), strict=False)
    if not areas:
        message = NO_AREA_SELECTED if access.permitted_area_ids(user_id) else NO_AREA_PERMITTED
        return AskResult(text, (), NO_AREA, error=message)
    try:
        return _run(text, areas, use_llm=True)
    except (EmbeddingError, EmbedderMismatch) as exc:
        log.warning("search_failed user=%s detail=%s", user_id, exc.detail or exc.message)
        return AskResult(text, tuple(areas), FAILED, error=SEARCH_FAILED,
                         error_detail=" ".join(filter(None, [exc.message, exc.detail])))


def ask(user_id: int, question: str | None, area_ids: Iterable[int] | None, *,
        strict: bool = True, use_llm: bool = True) -> AskResult:
    """Answer a CLI or API question; ``None`` areas means all permitted ones, foreign ones raise Forbidden."""
    text = validate_question(question)
    areas = access.select_areas(user_id, None if area_ids is None else list(area_ids), strict=strict)
    if not areas:
        if not access.permitted_area_ids(user_id):
            raise Forbidden(NO_AREA_PERMITTED, detail=f"user id {user_id}")
        raise ValidationError(NO_AREA_SELECTED, field="areas")
    return _run(text, areas, use_llm=use_llm)


def context_for(question: str, area_ids: Sequence[int] | None = None, *, k: int | None = None,
                query_vector: np.ndarray | None = None) -> Context:
    """Build the context only (benchmarks): the given areas or all areas, ``k`` candidates."""
    comps = components.get()
    settings = RetrievalSettings.from_config(comps.config)
    if k is not None:
        settings = replace(settings, candidates=int(k))
    areas = list(area_ids) if area_ids is not None else [a.id for a in Area.select(Area.id)]
    return build_context(question, areas, embedder=comps.embedder, store=comps.store,
                         settings=settings, query_vector=query_vector)


def embed_question(question: str) -> np.ndarray:
    """Embed a question once (benchmarks that leave the embedding call out)."""
    return components.get().embedder.embed_query(question)


# --- the pipeline ---------------------------------------------------------------

class _RecordingLLM:
    """Pass calls through and keep the exception, so its cause can be classified."""

    def __init__(self, llm: object) -> None:
        self.llm = llm
        self.name = llm_name(llm)
        self.failure: Exception | None = None

    def chat(self, messages: list[dict[str, str]]) -> object:
        try:
            return self.llm.chat(messages)  # type: ignore[attr-defined]
        except Exception as exc:
            self.failure = exc
            raise


def _run(question: str, areas: Sequence[int], *, use_llm: bool) -> AskResult:
    start = time.perf_counter()
    comps = components.get()
    settings = RetrievalSettings.from_config(comps.config)
    context = build_context(question, areas, embedder=comps.embedder, store=comps.store, settings=settings)
    _ensure_confined(context, areas)
    llm = comps.llm if use_llm else None
    chat = None if llm is None or isinstance(llm, NoLLM) else _RecordingLLM(llm)
    reply = answer(question, context, chat)
    lookup_start = time.perf_counter()
    sources = _source_views(context, areas)
    timings = {k: v for k, v in context.timings.items() if k != "total"}
    timings.update(context=context.timings.get("total", 0.0), llm=reply.timings.get("llm", 0.0),
                   documents=time.perf_counter() - lookup_start, total=time.perf_counter() - start)
    error, detail = _llm_problem(llm, chat) if reply.extractive else (None, None)
    if not context.chunks:
        status, notice, body = NO_CONTEXT_FOUND, NO_CONTEXT, ""
    elif reply.extractive:
        status, notice, body = EXTRACTIVE, NO_LLM, extractive_text(context, reason="")
    else:
        status, notice, body = ANSWERED, None, reply.text
    return AskResult(
        question=question, area_ids=tuple(areas), status=status, answer_text=reply.text,
        answer_html=to_html(body) if body.strip() else "", llm=reply.llm, extractive=reply.extractive,
        notice=notice, error=error, error_detail=detail, retrieval_detail=_retrieval_detail(context, settings),
        sources=sources, context=tuple(_context_entry(c) for c in context.chunks), timings=timings,
    )


def _ensure_confined(context: Context, areas: Sequence[int]) -> None:
    """Fail closed if the store ever returned a chunk outside the searched areas."""
    allowed = {int(a) for a in areas}
    leaked = sorted({c.hit.area_id for c in context.candidates} - allowed)
    if leaked:
        log.error("area_leak searched=%s returned=%s", sorted(allowed), leaked)
        raise RuntimeError(f"retrieval returned chunks of areas {leaked} outside {sorted(allowed)}")


def _llm_problem(llm: object | None, chat: _RecordingLLM | None) -> tuple[str | None, str | None]:
    """Return (user message, admin detail) for an extractive fallback."""
    if llm is None:
        return None, None  # the caller asked for no model (CLI --no-llm)
    if chat is None:
        return LLM_NOT_CONFIGURED, "IRISRAG_LLM=none"
    exc = chat.failure
    if exc is None:
        return LLM_FAILED, f"{chat.name}: the model sent an empty answer"
    parts = [getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}", getattr(exc, "detail", None)]
    detail = f"{chat.name}: " + ": ".join(filter(None, parts))
    cause = exc.__cause__
    if isinstance(cause, requests.Timeout):
        return LLM_TIMEOUT, detail
    if isinstance(cause, requests.RequestException):
        return LLM_UNREACHABLE, detail
    return LLM_FAILED, detail


def _retrieval_detail(context: Context, settings: RetrievalSettings) -> str:
    passed = sum(1 for c in context.candidates if c.gate != "lexical")
    return (f"areas {list(context.area_ids)}: {len(context.candidates)} of at most {settings.candidates} "
            f"candidates, {passed} passed the lexical filter (MIN_MATCH_TERMS={settings.min_match_terms}, "
            f"MIN_MATCH_SCORE={settings.min_match_score:g}), {len(context.chunks)} in the context, "
            f"{len(context.sources)} sources (MIN_SOURCE_SCORE={settings.min_source_score:g})")


def _context_entry(chunk) -> ContextEntry:
    hit = chunk.hit
    return ContextEntry(chunk.position, hit.document_id, hit.area_id, hit.chunk_index, hit.page,
                        round(float(hit.score), 4), float(chunk.match.score))


def _source_views(context: Context, areas: Sequence[int]) -> tuple[SourceView, ...]:
    """Join the found sources with their Document rows; rows outside the areas are never shown."""
    ids = [s.document_id for s in context.sources]
    if not ids:
        return ()
    query = (Document.select(Document, Area).join(Area)
             .where(Document.id.in_(ids) & Document.area.in_([int(a) for a in areas])))
    documents = {d.id: d for d in query}
    missing = [i for i in ids if i not in documents]
    if missing:
        log.info("sources_without_document ids=%s", missing)
    return tuple(_source_view(s, documents[s.document_id]) for s in context.sources if s.document_id in documents)


def _source_view(source: Source, document: Document) -> SourceView:
    passages = tuple(
        PassageView(p.chunk_index, p.page, round(p.score, 4), tuple(highlight(p.text, p.terms)))
        for p in source.passages
    )
    return SourceView(document.id, document.name, document.area.id, document.area.name,
                      document.source_url, document.original_path, round(source.score, 4), passages)
