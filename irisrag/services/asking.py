"""Asking: the one question pipeline for the dashboard, the stream, the API, the CLI and the inspector.

    permitted areas (once per request) ∩ selected areas
      -> rag.followup.search_query(question, previous, llm)   a follow-up's retrieval query
      -> components.retriever.context(search query, areas)   confined to the areas, fails closed
      -> the Document rows in those areas, the found sources (``Sources`` when streaming)
      -> rag.answer.answer_events(question, context, llm)  tokens, then the final Answer
      -> finish: status, messages, checked citations, history row

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
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from irisrag import components, llm_auto
from irisrag.errors import EmbedderMismatch, EmbeddingError, Forbidden, ValidationError
from irisrag.i18n import N_
from irisrag.models import Area, Document
from irisrag.rag import budget, followup
from irisrag.rag.answer import SYSTEM_PROMPT, Answer, Token, answer, answer_events, llm_name
from irisrag.rag.followup import PreviousTurn
from irisrag.rag.retrieve import Context
from irisrag.services import access
from irisrag.services.answer_outcome import (  # noqa: F401 - the message ids are part of this service
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
    finish,
    interruption,
    retrieval_detail,
)
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
    CitationView,
    PassageView,
    context_entry,
    documents_for,
    source_views,
)

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000
EMPTY_QUESTION = N_("Please enter a question.")
QUESTION_TOO_LONG = N_("The question is too long: please use at most 4000 characters.")


# --- events of a streamed answer ---------------------------------------------------

@dataclass(frozen=True)
class Sources:
    """Retrieval is done: the sources and the numbered context, before the model writes."""

    result: AskResult


@dataclass(frozen=True)
class Done:
    """The finished answer: citations checked, timings complete, recorded in the history."""

    result: AskResult

    @property
    def citations(self) -> tuple[CitationView, ...]:
        return self.result.citations

    @property
    def timings(self) -> dict[str, float]:
        return self.result.timings

    @property
    def html(self) -> str:
        return self.result.answer_html


@dataclass(frozen=True)
class Error:
    """The model failed mid-answer: a message id, the partial Markdown, and the result marked incomplete."""

    message: str
    partial: str
    result: AskResult


Event = Sources | Token | Done | Error


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
    llm = _llm(True)
    try:
        found = replace(retrieve(*prepared, previous=previous, llm=llm), conversation_id=conversation_id)
    except (EmbeddingError, EmbedderMismatch) as exc:
        return _search_failed(*prepared, exc)
    return _answered(permitted.user_id, found, llm, record=True)


def stream_from_web(who: int | access.Permitted, question: str | None, requested: Iterable[int] | None, *,
                    previous: Sequence[PreviousTurn] = (), conversation_id: int | None = None) -> Iterator[Event]:
    """Stream a dashboard answer; foreign selections are dropped and problems become a single Done."""
    permitted = access.permitted(who)
    prepared = _web_question(permitted, question, requested)
    if isinstance(prepared, AskResult):
        return iter([Done(prepared)])
    llm = _llm(True)
    try:
        found = replace(retrieve(*prepared, previous=previous, llm=llm), conversation_id=conversation_id)
    except (EmbeddingError, EmbedderMismatch) as exc:
        return iter([Done(_search_failed(*prepared, exc))])
    return _events(permitted.user_id, found, llm, record=True)


def ask(who: int | access.Permitted, question: str | None, area_ids: Iterable[int] | None, *,
        strict: bool = True, use_llm: bool = True, record: bool = True,
        previous: Sequence[PreviousTurn] = (), conversation_id: int | None = None) -> AskResult:
    """Answer a CLI or API question; ``None`` areas means all permitted ones, foreign ones raise Forbidden.

    ``record=False`` keeps the question out of the history (benchmarks, the inspector);
    ``conversation_id`` (the caller checked it is the user's) records it into that conversation.
    """
    permitted = access.permitted(who)
    llm = _llm(use_llm)
    found = retrieve(*_checked_question(permitted, question, area_ids, strict=strict), previous=previous, llm=llm)
    return _answered(permitted.user_id, replace(found, conversation_id=conversation_id), llm, record=record)


def stream(who: int | access.Permitted, question: str | None, area_ids: Iterable[int] | None, *,
           strict: bool = True, use_llm: bool = True, record: bool = True,
           previous: Sequence[PreviousTurn] = ()) -> Iterator[Event]:
    """Stream a CLI or API answer; invalid input, foreign areas and a failed search raise before any event."""
    permitted = access.permitted(who)
    llm = _llm(use_llm)
    found = retrieve(*_checked_question(permitted, question, area_ids, strict=strict), previous=previous, llm=llm)
    return _events(permitted.user_id, found, llm, record=record)


def context_for(question: str, area_ids: Sequence[int] | None = None, *, k: int | None = None,
                query_vector: np.ndarray | None = None) -> Context:
    """Build the context only (benchmarks, admins): the given areas or all areas, ``k`` candidates."""
    areas = list(area_ids) if area_ids is not None else [a.id for a in Area.select(Area.id)]
    return components.get().retriever.context(question, areas, k=k, query_vector=query_vector)


def embed_question(question: str) -> np.ndarray:
    """Embed a question once (benchmarks that leave the embedding call out)."""
    return components.get().retriever.embed(question)


# --- the pipeline ---------------------------------------------------------------------

@dataclass(frozen=True)
class Retrieved:
    """A question's context in its areas, the Document rows it cites, and the stage timings so far."""

    question: str
    areas: tuple[int, ...]
    context: Context
    documents: dict[int, Document]
    timings: dict[str, float]
    started: float  # time.perf_counter() when retrieval began
    omitted: int = 0  # passages left out to fit the model's context window (budget.fit)
    search_query: str = ""  # what retrieval searched for (rag.followup); "" means the question
    search_rule: str = followup.ASKED  # how: asked, rewritten, key_terms
    previous: tuple[PreviousTurn, ...] = ()  # the earlier turns the answer prompt gets
    conversation_id: int | None = None  # the user's conversation the question continues (None: a new one)

    @property
    def hashes(self) -> dict[int, str]:
        return {i: d.sha256 for i, d in self.documents.items()}


def retrieve(question: str, areas: Sequence[int], *, previous: Sequence[PreviousTurn] = (),
             llm: object | None = None) -> Retrieved:
    """Build the context of a question in the given (already permitted) areas, and find its Document rows.

    With ``previous`` turns the search query is a follow-up's (``rag.followup``; ``llm`` rewrites it).
    """
    start = time.perf_counter()
    query = followup.search_query(question, previous, llm, _rewrite_seconds())
    context = components.get().retriever.context(query.text, areas)
    lookup_start = time.perf_counter()
    documents = documents_for(context, areas)
    timings = {"rewrite": query.seconds} if query.seconds is not None else {}
    timings.update({k: v for k, v in context.timings.items() if k != "total"})
    timings.update(context=context.timings.get("total", 0.0), documents=time.perf_counter() - lookup_start)
    return Retrieved(question, tuple(int(a) for a in areas), context, documents, timings, start,
                     search_query=query.text, search_rule=query.rule, previous=tuple(previous))


def search_query(question: str, previous: Sequence[PreviousTurn], *, use_llm: bool = True) -> followup.SearchQuery:
    """Return what a follow-up would be searched for (the inspector shows it with the rewrite's time)."""
    return followup.search_query(question, previous, _llm(use_llm), _rewrite_seconds())


def _rewrite_seconds() -> float:
    return float(components.get().config.get("FOLLOWUP_REWRITE_SECONDS", 10.0))


def sources_result(found: Retrieved) -> AskResult:
    """Return what is known before the model writes: the sources and the context (status ``searching``)."""
    settings = components.get().retriever.settings
    return AskResult(
        question=found.question, area_ids=found.areas, status=SEARCHING, search_query=found.search_query,
        retrieval_detail=retrieval_detail(found.context, settings),
        sources=source_views(found.context, found.documents),
        context=tuple(context_entry(c, found.documents) for c in found.context.chunks),
        timings={**found.timings, "sources": time.perf_counter() - found.started},
    )


def _llm(use_llm: bool) -> object | None:
    """Return the model to ask, or None: none configured or found, or the caller asked for none (CLI --no-llm)."""
    return llm_auto.chat_model(components.get().llm) if use_llm else None


def fitted(found: Retrieved, llm: object | None) -> Retrieved:
    """Keep the newest previous turns and the passages that fit the model's window (no model: all stay).

    The turns get at most a share of the window (oldest dropped first), the passages the rest
    (lowest-ranked left out).
    """
    if llm is None:
        return found
    config = components.get().config
    window = int(config["LLM_CONTEXT_TOKENS"])
    turns = budget.fit_turns(found.previous, window)
    fixed = "\n".join([SYSTEM_PROMPT, found.question, *map(budget.turn_text, turns)])
    reserve = budget.answer_reserve(config.get("LLM_MAX_TOKENS"), window)
    context, omitted = budget.fit(found.context, fixed, window, reserve)
    return replace(found, context=context, omitted=omitted, previous=turns)


def _answered(user_id: int, found: Retrieved, llm: object | None, *, record: bool) -> AskResult:
    found = fitted(found, llm)
    reply = answer(found.question, found.context, llm, hashes=found.hashes,  # type: ignore[arg-type]
                   embedder=components.get().embedder, previous=found.previous)
    cut = interruption(reply) if reply.interrupted else None  # e.g. cut off at the length limit
    return _finish(user_id, found, reply, llm is not None, record=record, interrupted=cut)


def _finish(user_id: int, found: Retrieved, reply: Answer, asked: bool, *, record: bool,
            interrupted: str | None = None) -> AskResult:
    settings = components.get().retriever.settings
    return finish(user_id, found, reply, asked, settings, record=record, interrupted=interrupted)


def _events(user_id: int, found: Retrieved, llm: object | None, *, record: bool) -> Iterator[Event]:
    found = fitted(found, llm)
    yield Sources(sources_result(found))
    events = answer_events(found.question, found.context, llm, hashes=found.hashes,  # type: ignore[arg-type]
                           embedder=components.get().embedder, previous=found.previous)
    start, partial, reply, first = time.perf_counter(), "", None, None
    try:
        for event in events:
            if isinstance(event, Token):
                first = first or time.perf_counter() - found.started
                partial = event.answer
                yield event
            else:
                reply = event
    except GeneratorExit:
        events.close()  # first: the model stops writing now, not after the history row
        timings = {"llm": time.perf_counter() - start, **({"first_token": first} if first else {})}
        stopped = Answer(partial.strip(), llm_name(llm), False, "stopped by the client", timings)
        _record_stopped(user_id, found, stopped, record=record)
        raise
    if reply is None:  # answer_events always ends with its Answer
        raise RuntimeError("the answer ended without a result")
    if first is not None:
        reply = replace(reply, timings={**reply.timings, "first_token": first})
    yield _final_event(user_id, found, reply, llm is not None, record=record)


def _final_event(user_id: int, found: Retrieved, reply: Answer, asked: bool, *, record: bool) -> Done | Error:
    if reply.interrupted:
        message = interruption(reply)  # cut off at the length limit, too late, or broken off
        return Error(message, reply.text, _finish(user_id, found, reply, asked, record=record, interrupted=message))
    return Done(_finish(user_id, found, reply, asked, record=record))


def _record_stopped(user_id: int, found: Retrieved, reply: Answer, *, record: bool) -> None:
    """Record an answer the client stopped (the generator is closing: nothing may be yielded)."""
    log.info("answer_stopped llm=%s chars=%s", reply.llm, len(reply.text))
    if not record:
        return
    try:
        _finish(user_id, found, reply, True, record=True, interrupted=ANSWER_STOPPED)
    except Exception:  # the client is gone; a failed history row must not hide the close
        log.exception("answer_stopped_record_failed user=%s", user_id)

