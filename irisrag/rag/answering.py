"""One question from the search query to the decided answer: the one call ``services.asking`` makes into rag.

    rag.followup.search_query(question, previous, llm)   a follow-up's retrieval query
      -> tools.retriever.context(search query, areas)   confined to the areas, fails closed
      -> tools.documents(the ids it names, areas)        the Document rows (never outside the areas)
      -> rag.duplicates.once                             the same content (SHA-256) in one document only
      -> fitted: the turns and passages that fit the model's window (rag.budget)
      -> rag.answer.answer_events(question, context, llm) tokens, then the model's Answer
      -> rag.outcome.decide                              the AskResult: status, messages, citations, views

``answer`` returns the AskResult; ``events`` yields it as a stream::

    Sources(result, found)   retrieval is done: result.sources / result.context (status "searching")
    Token(text, answer)      one piece from the model, and the Markdown written so far
    Done(result)             the final AskResult: citations checked and linked, timings
    Error(message, partial, result)   the model failed mid-answer: the partial answer, status "incomplete"

A failed search (``EmbeddingError``, ``EmbedderMismatch``) raises from ``answer`` and from the
first step of ``events``. Closing ``events`` closes the model's stream first, then hands the
part written so far, decided as stopped, to ``tools.stopped`` (the history records it).
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from irisrag.rag import budget, duplicates, followup, outcome, views
from irisrag.rag.answer import SYSTEM_PROMPT, Answer, Token, answer_events, llm_name
from irisrag.rag.answer_types import AskResult, Retrieved
from irisrag.rag.followup import PreviousTurn

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Tools:
    """What answering uses: the model (None: extractive), retriever, embedder, settings, the Document lookup."""

    llm: Any | None  # llm_auto.chat_model: the model to ask, None when there is none
    retriever: Any
    embedder: Any
    config: Mapping[str, Any]
    documents: Callable[[Iterable[int], Sequence[int]], dict[int, Any]]
    stopped: Callable[[AskResult], object] | None = None  # records an answer the client stopped (None: not kept)

    @property
    def rewrite_seconds(self) -> float:
        return float(self.config.get("FOLLOWUP_REWRITE_SECONDS", 10.0))


@dataclass(frozen=True)
class Sources:
    """Retrieval is done: the sources and the numbered context, before the model writes."""

    result: AskResult
    found: Retrieved | None = None


@dataclass(frozen=True)
class Done:
    """The finished answer: citations checked, timings complete."""

    result: AskResult

    @property
    def citations(self) -> tuple:
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


def retrieve(question: str, areas: Sequence[int], tools: Tools, *,
             previous: Sequence[PreviousTurn] = ()) -> Retrieved:
    """Build the context of a question in the given (already permitted) areas, and find its Document rows.

    With ``previous`` turns the search query is a follow-up's (``rag.followup``; the model rewrites it).
    """
    start = time.perf_counter()
    query = followup.search_query(question, previous, tools.llm, tools.rewrite_seconds)
    context = tools.retriever.context(query.text, areas, prefer=followup.preferred_documents(question, previous))
    lookup_start = time.perf_counter()
    documents = tools.documents(views.document_ids(context), areas)
    context = duplicates.once(context, documents)  # the same content (SHA-256) in two documents: shown once
    timings = {"rewrite": query.seconds} if query.seconds is not None else {}
    timings.update({k: v for k, v in context.timings.items() if k != "total"})
    timings.update(context=context.timings.get("total", 0.0), documents=time.perf_counter() - lookup_start)
    return Retrieved(question, tuple(int(a) for a in areas), context, documents, timings, start,
                     search_query=query.text, search_rule=query.rule, previous=tuple(previous))


def fitted(found: Retrieved, tools: Tools) -> Retrieved:
    """Keep the newest previous turns and the passages that fit the model's window (no model: all stay).

    The turns get at most a share of the window (oldest dropped first), the passages the rest
    (lowest-ranked left out).
    """
    if tools.llm is None:
        return found
    window = int(tools.config["LLM_CONTEXT_TOKENS"])
    turns = budget.fit_turns(found.previous, window)
    fixed = "\n".join([SYSTEM_PROMPT, found.question, *map(budget.turn_text, turns)])
    reserve = budget.answer_reserve(tools.config.get("LLM_MAX_TOKENS"), window)
    context, omitted = budget.fit(found.context, fixed, window, reserve)
    return replace(found, context=context, omitted=omitted, previous=turns)


def answer(question: str, areas: Sequence[int], tools: Tools, *,
           previous: Sequence[PreviousTurn] = ()) -> AskResult:
    """Answer the question in one piece: retrieval, the model (or the extractive answer), the decision."""
    found = fitted(retrieve(question, areas, tools, previous=previous), tools)
    reply = _reply(found, tools, stream=False)
    cut = outcome.interruption(reply) if reply.interrupted else None  # e.g. cut off at the length limit
    return outcome.decide(found, reply, tools.llm is not None, tools.retriever.settings, interrupted=cut)


def _reply(found: Retrieved, tools: Tools, *, stream: bool) -> Answer:
    for event in _model_events(found, tools, stream=stream):
        if isinstance(event, Answer):
            return event
    raise RuntimeError("answer_events ended without its Answer")


def _model_events(found: Retrieved, tools: Tools, *, stream: bool = True) -> Iterator[Token | Answer]:
    return answer_events(found.question, found.context, tools.llm, hashes=found.hashes, stream=stream,
                         embedder=tools.embedder, previous=found.previous)


def events(question: str, areas: Sequence[int], tools: Tools, *,
           previous: Sequence[PreviousTurn] = ()) -> Iterator[Event]:
    """Yield the answer as it is written: Sources, Tokens, then Done or Error (see the module's docstring)."""
    found = fitted(retrieve(question, areas, tools, previous=previous), tools)
    yield Sources(outcome.searching(found, tools.retriever.settings), found)
    model = _model_events(found, tools)
    start, partial, reply, first = time.perf_counter(), "", None, None
    try:
        for event in model:
            if isinstance(event, Token):
                first = first or time.perf_counter() - found.started
                partial = event.answer
                yield event
            else:
                reply = event
    except GeneratorExit:
        model.close()  # first: the model stops writing now, not after the history row
        timings = {"llm": time.perf_counter() - start, **({"first_token": first} if first else {})}
        _stopped(found, Answer(partial.strip(), llm_name(tools.llm), False, "stopped by the client", timings), tools)
        raise
    if reply is None:  # answer_events always ends with its Answer
        raise RuntimeError("the answer ended without a result")
    if first is not None:
        reply = replace(reply, timings={**reply.timings, "first_token": first})
    yield _final(found, reply, tools)


def _final(found: Retrieved, reply: Answer, tools: Tools) -> Done | Error:
    settings, asked = tools.retriever.settings, tools.llm is not None
    if reply.interrupted:
        message = outcome.interruption(reply)  # cut off at the length limit, too late, or broken off
        return Error(message, reply.text, outcome.decide(found, reply, asked, settings, interrupted=message))
    return Done(outcome.decide(found, reply, asked, settings))


def _stopped(found: Retrieved, reply: Answer, tools: Tools) -> None:
    """Hand on an answer the client stopped (the generator is closing: nothing may be yielded)."""
    log.info("answer_stopped llm=%s chars=%s", reply.llm, len(reply.text))
    if tools.stopped is None:
        return
    try:
        tools.stopped(outcome.decide(found, reply, True, tools.retriever.settings,
                                     interrupted=outcome.ANSWER_STOPPED))
    except Exception:  # the client is gone; a failed history row must not hide the close
        log.exception("answer_stopped_record_failed")
