"""Asking: permitted ∩ selected areas -> context -> found sources -> answer, for web, CLI and API.

The areas searched are computed here on every call from the user's groups (``access``),
never taken from the caller as they are: ``ask_from_web`` silently drops areas the user
may not query (a stale or crafted dashboard selection), ``ask`` refuses them with
``Forbidden`` when ``strict`` (the CLI and the API name areas explicitly).

User-facing messages are English message ids marked with ``N_`` for extraction; the web
translates them (``_(result.error)``), the CLI prints them as they are. Technical details
(URLs, settings) go to ``error_detail`` / ``retrieval_detail``, shown to admins only.

Citations are checked (``rag.citations``): the answer links each ``[n]`` to its passage
(``AskResult.citations``), numbers outside the context are removed and listed, unsupported
sentences are listed. Every searched question is recorded in the user's history
(``services.history``; ``AskResult.question_id`` is the row feedback refers to).
``retrieve`` and ``finish`` are the two halves of the pipeline; ``services.streaming`` calls
the model token by token between them.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import requests

from irisrag import components
from irisrag.errors import EmbedderMismatch, EmbeddingError, Forbidden, ValidationError
from irisrag.llm import NoLLM
from irisrag.models import Area, Document
from irisrag.rag import citations
from irisrag.rag.answer import Answer, answer, extractive_text, llm_name, to_html
from irisrag.rag.retrieve import Context, RetrievalSettings, build_context
from irisrag.services import access, history
from irisrag.services.answer_views import (  # noqa: F401 - AskResult, statuses, PassageView re-exported
    ANSWERED,
    EXTRACTIVE,
    FAILED,
    INCOMPLETE,
    INVALID,
    NO_AREA,
    NO_CONTEXT_FOUND,
    SEARCHING,
    AskResult,
    PassageView,
    citation_views,
    context_entry,
    documents_for,
    source_views,
)

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
LLM_INTERRUPTED = N_("The language model stopped before the answer was complete.")
ANSWER_STOPPED = N_("The answer was stopped before it was complete.")
INCOMPLETE_NOTICE = N_("This answer is incomplete.")

# --- entry points ---------------------------------------------------------------

def validate_question(question: str | None) -> str:
    """Return the stripped question or raise ValidationError (empty, or over 4000 characters)."""
    text = (question or "").strip()
    if not text:
        raise ValidationError(EMPTY_QUESTION, field="question")
    if len(text) > MAX_QUESTION_CHARS:
        raise ValidationError(QUESTION_TOO_LONG, detail=f"{len(text)} characters", field="question")
    return text


def web_question(user_id: int, question: str | None, requested_ids: Iterable[int] | None) -> tuple[str, list[int]] | AskResult:
    """Return (question, permitted ∩ selected areas) of a dashboard question, or the AskResult of its problem."""
    try:
        text = validate_question(question)
    except ValidationError as exc:
        return AskResult((question or "").strip()[:MAX_QUESTION_CHARS], (), INVALID, error=exc.message)
    areas = access.select_areas(user_id, list(requested_ids or []), strict=False)
    if not areas:
        message = NO_AREA_SELECTED if access.permitted_area_ids(user_id) else NO_AREA_PERMITTED
        return AskResult(text, (), NO_AREA, error=message)
    return text, areas


def checked_question(user_id: int, question: str | None, area_ids: Iterable[int] | None, *,
                     strict: bool = True) -> tuple[str, list[int]]:
    """Return (question, areas) of a CLI or API question; None areas: all permitted; problems raise."""
    text = validate_question(question)
    areas = access.select_areas(user_id, None if area_ids is None else list(area_ids), strict=strict)
    if not areas:
        if not access.permitted_area_ids(user_id):
            raise Forbidden(NO_AREA_PERMITTED, detail=f"user id {user_id}")
        raise ValidationError(NO_AREA_SELECTED, field="areas")
    return text, areas


def search_failed(question: str, areas: Sequence[int], exc: EmbeddingError | EmbedderMismatch) -> AskResult:
    """Return the AskResult of a search that could not run (embedding service down or mismatched)."""
    log.warning("search_failed areas=%s detail=%s", list(areas), exc.detail or exc.message)
    return AskResult(question, tuple(areas), FAILED, error=SEARCH_FAILED,
                     error_detail=" ".join(filter(None, [exc.message, exc.detail])))


def ask_from_web(user_id: int, question: str | None, requested_ids: Iterable[int] | None) -> AskResult:
    """Answer a dashboard question; foreign selections are dropped and problems become messages."""
    prepared = web_question(user_id, question, requested_ids)
    if isinstance(prepared, AskResult):
        return prepared
    text, areas = prepared
    try:
        return _run(user_id, text, areas, use_llm=True, record=True)
    except (EmbeddingError, EmbedderMismatch) as exc:
        return search_failed(text, areas, exc)


def ask(user_id: int, question: str | None, area_ids: Iterable[int] | None, *,
        strict: bool = True, use_llm: bool = True, record: bool = True) -> AskResult:
    """Answer a CLI or API question; ``None`` areas means all permitted ones, foreign ones raise Forbidden.

    ``record=False`` keeps the question out of the history (benchmarks).
    """
    text, areas = checked_question(user_id, question, area_ids, strict=strict)
    return _run(user_id, text, areas, use_llm=use_llm, record=record)


def context_for(question: str, area_ids: Sequence[int] | None = None, *, k: int | None = None,
                query_vector: np.ndarray | None = None) -> Context:
    """Build the context only (benchmarks): the given areas or all areas, ``k`` candidates."""
    comps = components.get()
    settings = RetrievalSettings.from_config(comps.config)
    if k is not None:
        settings = replace(settings, candidates=int(k))
    areas = list(area_ids) if area_ids is not None else [a.id for a in Area.select(Area.id)]
    return build_context(question, areas, embedder=comps.embedder, store=comps.store,
                         settings=settings, query_vector=query_vector, reranker=comps.reranker,
                         expander=comps.expander)


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


@dataclass(frozen=True)
class Retrieved:
    """A question's context in its areas, the Document rows it cites, and the stage timings so far."""

    question: str
    areas: tuple[int, ...]
    context: Context
    documents: dict[int, Document]
    settings: RetrievalSettings
    timings: dict[str, float]
    started: float  # time.perf_counter() when retrieval began

    @property
    def hashes(self) -> dict[int, str]:
        return {i: d.sha256 for i, d in self.documents.items()}


def retrieve(question: str, areas: Sequence[int]) -> Retrieved:
    """Build the context of a question in the given (already permitted) areas; fail closed on a leak."""
    start = time.perf_counter()
    comps = components.get()
    settings = RetrievalSettings.from_config(comps.config)
    context = build_context(question, areas, embedder=comps.embedder, store=comps.store, settings=settings,
                            reranker=comps.reranker, expander=comps.expander)
    _ensure_confined(context, areas)
    lookup_start = time.perf_counter()
    documents = documents_for(context, areas)
    timings = {k: v for k, v in context.timings.items() if k != "total"}
    timings.update(context=context.timings.get("total", 0.0), documents=time.perf_counter() - lookup_start)
    return Retrieved(question, tuple(areas), context, documents, settings, timings, start)


def sources_result(found: Retrieved) -> AskResult:
    """Return what is known before the model writes: the sources and the context (status ``searching``)."""
    return AskResult(
        question=found.question, area_ids=found.areas, status=SEARCHING,
        retrieval_detail=_retrieval_detail(found.context, found.settings),
        sources=source_views(found.context, found.documents),
        context=tuple(context_entry(c, found.documents) for c in found.context.chunks),
        timings={**found.timings, "sources": time.perf_counter() - found.started},
    )


def _run(user_id: int, question: str, areas: Sequence[int], *, use_llm: bool, record: bool) -> AskResult:
    found = retrieve(question, areas)
    llm = components.get().llm if use_llm else None
    chat = None if llm is None or isinstance(llm, NoLLM) else _RecordingLLM(llm)
    reply = answer(question, found.context, chat, hashes=found.hashes)
    return finish(user_id, found, reply, llm, chat.failure if chat else None, record=record)


def finish(user_id: int, found: Retrieved, reply: Answer, llm: object | None, failure: Exception | None = None, *,
           record: bool = True, interrupted: str | None = None) -> AskResult:
    """Build the AskResult of a retrieved question's reply (checked citations) and record it in the history.

    ``interrupted`` (a message id) marks a streamed answer that ended early: ``reply.text`` is the
    part written so far and ``reply.error`` the technical detail.
    """
    context, hashes = found.context, found.hashes
    timings = {**found.timings, **reply.timings, "total": time.perf_counter() - found.started}
    error, detail = _llm_problem(llm, reply.llm, failure) if reply.extractive else (None, None)
    if interrupted:
        status, notice, body, error, detail = INCOMPLETE, INCOMPLETE_NOTICE, reply.text, interrupted, reply.error
    elif not context.chunks:
        status, notice, body = NO_CONTEXT_FOUND, NO_CONTEXT, ""
    elif reply.extractive:
        status, notice, body = EXTRACTIVE, NO_LLM, extractive_text(context, reason="")
    else:
        status, notice, body = ANSWERED, None, reply.text
    # The model's answer was checked by answer(); the extractive passages are checked as shown.
    checked = reply.checked if status == ANSWERED and reply.checked else citations.check(body, context.chunks, hashes)
    result = AskResult(
        question=found.question, area_ids=found.areas, status=status, answer_text=reply.text,
        answer_html=citations.linked_html(checked, to_html) if body.strip() else "", llm=reply.llm,
        extractive=reply.extractive, notice=notice, error=error, error_detail=detail,
        retrieval_detail=_retrieval_detail(context, found.settings), sources=source_views(context, found.documents),
        context=tuple(context_entry(c, found.documents) for c in context.chunks), timings=timings,
        citations=citation_views(checked, context, found.documents), invalid_citations=checked.invalid,
        unsupported=checked.unsupported,
    )
    return replace(result, question_id=history.record(user_id, result, checked.text)) if record else result


def _ensure_confined(context: Context, areas: Sequence[int]) -> None:
    """Fail closed if the store ever returned a chunk outside the searched areas."""
    allowed = {int(a) for a in areas}
    leaked = sorted({c.hit.area_id for c in context.candidates} - allowed)
    if leaked:
        log.error("area_leak searched=%s returned=%s", sorted(allowed), leaked)
        raise RuntimeError(f"retrieval returned chunks of areas {leaked} outside {sorted(allowed)}")


def _llm_problem(llm: object | None, name: str, exc: Exception | None) -> tuple[str | None, str | None]:
    """Return (user message, admin detail) for an extractive fallback."""
    if llm is None:
        return None, None  # the caller asked for no model (CLI --no-llm)
    if isinstance(llm, NoLLM):
        return LLM_NOT_CONFIGURED, "IRISRAG_LLM=none"
    if exc is None:
        return LLM_FAILED, f"{name}: the model sent an empty answer"
    parts = [getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}", getattr(exc, "detail", None)]
    detail = f"{name}: " + ": ".join(filter(None, parts))
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
