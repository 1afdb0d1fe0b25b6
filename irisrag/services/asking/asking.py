"""Asking: the one question pipeline for the dashboard, the stream, the API, the CLI and the inspector.

    permitted areas (once per request) ∩ selected areas
      -> rag.answering.answer / events (question, areas, tools)   the one call into rag: search query,
         context, Document rows, the model's answer, the decided AskResult (``Sources`` when streaming)
      -> history row (question_id)

``ask``/``ask_from_web`` drain the answer; ``stream``/``stream_from_web`` forward it as
events::

    Sources(result)          retrieval is done: result.sources / result.context (status "searching")
    Token(text, answer)      one piece from the model, and the Markdown written so far
    Done(result)             the final AskResult: citations checked and linked, timings, question_id
    Error(message, partial, result)   the model failed mid-answer: the partial answer, status "incomplete"

``who`` is a user id or an ``access.Permitted`` the caller computed for this request. Web
entry points silently drop areas the user may not query (a stale or crafted selection) and
turn problems into an AskResult; ``ask``/``stream`` refuse them with ``Forbidden`` when
``strict`` (CLI, API) and raise before any event. Cancelling a stream is closing the
generator: the model's stream is closed first, then the part written so far is recorded
as incomplete.

``previous`` (keyword, all entry points): the conversation's earlier turns, oldest first. A
follow-up's retrieval query is rewritten or extended from them (``rag.followup``; the query
used is ``AskResult.search_query``, the rewrite call's seconds the timing ``rewrite``), and
the newest of them that fit (``budget.fit_turns``) go into the answer prompt.

User-facing messages are English message ids (``N_``), translated where shown; technical
details go to ``error_detail`` / ``retrieval_detail``, shown to admins only.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import chain

import numpy as np

from irisrag import components
from irisrag.errors import EmbedderMismatch, EmbeddingError, Forbidden, ValidationError
from irisrag.i18n import N_
from irisrag.llm import auto as llm_auto
from irisrag.models import Area
from irisrag.models.answer_documents import documents_in
from irisrag.rag import answering, followup, outcome
from irisrag.rag.answer import Token
from irisrag.rag.answer_types import (  # noqa: F401 - AskResult, statuses and views are part of this service
    ANSWERED,
    EXTRACTIVE,
    FAILED,
    INCOMPLETE,
    INVALID,
    NO_AREA,
    NO_CONTEXT_FOUND,
    SEARCHING,
    AskResult,
    CitationView,
    PassageView,
    Retrieved,
)
from irisrag.rag.answering import Done, Error, Event, Sources
from irisrag.rag.followup import PreviousTurn
from irisrag.rag.outcome import (  # noqa: F401 - the message ids are part of this service
    ANSWER_STOPPED,
    INCOMPLETE_NOTICE,
    LLM_FAILED,
    LLM_INTERRUPTED,
    LLM_NOT_CONFIGURED,
    LLM_TIMEOUT,
    LLM_UNREACHABLE,
    NO_AREA_PERMITTED,
    NO_AREA_SELECTED,
    NO_CONTEXT,
    NO_LLM,
    NO_SOURCES,
    SEARCH_FAILED,
)
from irisrag.rag.retrieve import Context
from irisrag.services import access
from irisrag.services.asking import history

__all__ = ["Done", "Error", "Event", "Sources", "Token"]

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000
EMPTY_QUESTION = N_("Please enter a question.")
QUESTION_TOO_LONG = N_("The question is too long: please use at most 4000 characters.")


# --- checking the question and its areas ---------------------------------------------


def validate_question(question: str | None) -> str:
    """Return the stripped question or raise ValidationError (empty, or over 4000 characters)."""
    text = (question or "").strip()
    if not text:
        raise ValidationError(EMPTY_QUESTION, field="question")
    if len(text) > MAX_QUESTION_CHARS:
        raise ValidationError(QUESTION_TOO_LONG, detail=f"{len(text)} characters", field="question")
    return text


def _web_question(permitted: access.Permitted, question: str | None,
                  requested: Iterable[int] | None) -> tuple[str, list[int]] | AskResult:
    """Return (question, permitted ∩ selected areas) of a dashboard question, or the AskResult of its problem."""
    try:
        text = validate_question(question)
    except ValidationError as exc:
        return AskResult((question or "").strip()[:MAX_QUESTION_CHARS], (), INVALID, error=exc.stored)
    areas = permitted.select(list(requested or []))
    if not areas:
        return AskResult(text, (), NO_AREA, error=NO_AREA_SELECTED if permitted.areas else NO_AREA_PERMITTED)
    return text, areas


def _checked_question(permitted: access.Permitted, question: str | None, area_ids: Iterable[int] | None, *,
                      strict: bool) -> tuple[str, list[int]]:
    """Return (question, areas) of a CLI or API question; None areas: all permitted; problems raise."""
    text = validate_question(question)
    areas = permitted.select(None if area_ids is None else list(area_ids), strict=strict)
    if not areas:
        if not permitted.areas:
            raise Forbidden(NO_AREA_PERMITTED, detail=f"user id {permitted.user_id}")
        raise ValidationError(NO_AREA_SELECTED, field="areas")
    return text, areas


def _search_failed(question: str, areas: Sequence[int], exc: EmbeddingError | EmbedderMismatch) -> AskResult:
    """Return the AskResult of a search that could not run (embedding service down or mismatched)."""
    log.warning("search_failed areas=%s detail=%s", list(areas), exc.detail or exc.message)
    return AskResult(question, tuple(areas), FAILED, error=SEARCH_FAILED,
                     error_detail=" ".join(filter(None, [exc.message, exc.detail])))


# --- entry points ---------------------------------------------------------------------

def ask_from_web(who: int | access.Permitted, question: str | None, requested: Iterable[int] | None, *,
                 previous: Sequence[PreviousTurn] = (), conversation_id: int | None = None) -> AskResult:
    """Answer a dashboard question; foreign selections are dropped and problems become messages.

    ``conversation_id`` (the caller checked it is the user's) is continued, else a new one is
    started; ``previous`` are its earlier turns.
    """
    permitted = access.permitted(who)
    prepared = _web_question(permitted, question, requested)
    if isinstance(prepared, AskResult):
        return prepared
    try:
        result = answering.answer(*prepared, _tools(True), previous=previous)
    except (EmbeddingError, EmbedderMismatch) as exc:
        return _search_failed(*prepared, exc)
    return _recorded(permitted.user_id, result, conversation_id)


def stream_from_web(who: int | access.Permitted, question: str | None, requested: Iterable[int] | None, *,
                    previous: Sequence[PreviousTurn] = (), conversation_id: int | None = None) -> Iterator[Event]:
    """Stream a dashboard answer; foreign selections are dropped and problems become a single Done."""
    permitted = access.permitted(who)
    prepared = _web_question(permitted, question, requested)
    if isinstance(prepared, AskResult):
        return iter([Done(prepared)])
    try:
        return _streamed(permitted.user_id, *prepared, use_llm=True, record=True, previous=previous,
                         conversation_id=conversation_id)
    except (EmbeddingError, EmbedderMismatch) as exc:
        return iter([Done(_search_failed(*prepared, exc))])


def ask(who: int | access.Permitted, question: str | None, area_ids: Iterable[int] | None, *,
        strict: bool = True, use_llm: bool = True, record: bool = True,
        previous: Sequence[PreviousTurn] = (), conversation_id: int | None = None) -> AskResult:
    """Answer a CLI or API question; ``None`` areas means all permitted ones, foreign ones raise Forbidden.

    ``record=False`` keeps the question out of the history (benchmarks, the inspector);
    ``conversation_id`` (the caller checked it is the user's) records it into that conversation.
    """
    permitted = access.permitted(who)
    text, areas = _checked_question(permitted, question, area_ids, strict=strict)
    result = answering.answer(text, areas, _tools(use_llm), previous=previous)
    return _recorded(permitted.user_id, result, conversation_id) if record else result


def stream(who: int | access.Permitted, question: str | None, area_ids: Iterable[int] | None, *,
           strict: bool = True, use_llm: bool = True, record: bool = True,
           previous: Sequence[PreviousTurn] = ()) -> Iterator[Event]:
    """Stream a CLI or API answer; invalid input, foreign areas and a failed search raise before any event."""
    permitted = access.permitted(who)
    text, areas = _checked_question(permitted, question, area_ids, strict=strict)
    return _streamed(permitted.user_id, text, areas, use_llm=use_llm, record=record, previous=previous)


def context_for(question: str, area_ids: Sequence[int] | None = None, *, k: int | None = None,
                query_vector: np.ndarray | None = None) -> Context:
    """Build the context only (benchmarks, admins): the given areas or all areas, ``k`` candidates."""
    areas = list(area_ids) if area_ids is not None else [a.id for a in Area.select(Area.id)]
    return components.get().retriever.context(question, areas, k=k, query_vector=query_vector)


def embed_question(question: str) -> np.ndarray:
    """Embed a question once (benchmarks that leave the embedding call out)."""
    return components.get().retriever.embed(question)


def retrieve(question: str, areas: Sequence[int], *, previous: Sequence[PreviousTurn] = (),
             use_llm: bool = False) -> Retrieved:
    """Build the context of a question in the given (already permitted) areas, and find its Document rows.

    No model is asked unless ``use_llm``: a follow-up's search query then follows the key-terms rule.
    """
    return answering.retrieve(question, areas, _tools(use_llm), previous=previous)


def search_query(question: str, previous: Sequence[PreviousTurn], *, use_llm: bool = True) -> followup.SearchQuery:
    """Return what a follow-up would be searched for (the inspector shows it with the rewrite's time)."""
    tools = _tools(use_llm)
    return followup.search_query(question, previous, tools.llm, tools.rewrite_seconds)


def sources_result(found: Retrieved) -> AskResult:
    """Return what is known before the model writes: the sources and the context (status ``searching``)."""
    return outcome.searching(found, components.get().retriever.settings)


# --- the pipeline: rag.answering, then the history ------------------------------------

def _tools(use_llm: bool, stopped: Callable[[AskResult], object] | None = None) -> answering.Tools:
    """Return what answering uses; the model is None when none is configured or found, or the caller wants none."""
    comps = components.get()
    llm = llm_auto.chat_model(comps.llm) if use_llm else None
    return answering.Tools(llm, comps.retriever, comps.embedder, comps.config, documents_in, stopped)


def _recorded(user_id: int, result: AskResult, conversation_id: int | None) -> AskResult:
    """Record the answer in the user's history (a new conversation unless ``conversation_id``); set its id."""
    question_id = history.record(user_id, result, result.shown_text, conversation_id=conversation_id)
    return replace(result, question_id=question_id)


def _streamed(user_id: int, question: str, areas: Sequence[int], *, use_llm: bool, record: bool,
              previous: Sequence[PreviousTurn], conversation_id: int | None = None) -> Iterator[Event]:
    """Start the answer's events (a failed search raises here, before any event); record the final one."""
    stopped = (lambda result: _recorded(user_id, result, conversation_id)) if record else None
    events = answering.events(question, areas, _tools(use_llm, stopped), previous=previous)
    first = next(events)
    return _recording(user_id, chain([first], events), events, record=record, conversation_id=conversation_id)


def _recording(user_id: int, events: Iterator[Event], source: Iterator[Event], *, record: bool,
               conversation_id: int | None) -> Iterator[Event]:
    """Pass the events on, the final one recorded; closing this closes the answer (the model stops)."""
    try:
        for event in events:
            if record and isinstance(event, (Done, Error)):
                event = replace(event, result=_recorded(user_id, event.result, conversation_id))
            yield event
    finally:
        source.close()  # type: ignore[attr-defined]
