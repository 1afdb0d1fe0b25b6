"""Streamed answers: the found sources first, then the answer token by token, then the checked result.

The same access rules and pipeline as ``questions`` (permitted ∩ selected areas, computed
here; retrieval with the areas as prefilter; checked citations; history), as events::

    Sources(result)          retrieval is done: result.sources / result.context (status "searching")
    Token(text, answer)      one piece from the model, and the Markdown written so far
    Done(result)             the final AskResult: citations checked and linked, timings, question_id
    Error(message, partial, result)   the model failed mid-answer: the partial answer, status "incomplete"

Validation, area selection and retrieval run when the stream is created, so an API caller
gets a plain JSON error for them; the model is called while the events are read. A model
that fails before its first token gives the extractive fallback as ``Done``, like ``ask``.

Cancelling is closing the generator (the web server does it when the client goes away or
presses stop): the model's HTTP response is closed, so the model stops writing, and the
part written so far is recorded in the history as incomplete.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from irisrag import components
from irisrag.errors import EmbedderMismatch, EmbeddingError, LLMUnavailable
from irisrag.llm import NoLLM
from irisrag.rag.answer import (
    Answer,
    answer,
    build_messages,
    extractive_text,
    llm_name,
    reply_text,
    with_checked_citations,
)
from irisrag.services import questions
from irisrag.services.answer_views import AskResult, CitationView

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sources:
    """Retrieval is done: the sources and the numbered context, before the model writes."""

    result: AskResult


@dataclass(frozen=True)
class Token:
    """A piece of the answer (``text``) and the Markdown written so far (``answer``)."""

    text: str
    answer: str


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


def stream_from_web(user_id: int, question: str | None, requested_ids: Iterable[int] | None) -> Iterator[Event]:
    """Stream a dashboard answer; foreign selections are dropped and problems become a single Done."""
    prepared = questions.web_question(user_id, question, requested_ids)
    if isinstance(prepared, AskResult):
        return iter([Done(prepared)])
    text, areas = prepared
    try:
        found = questions.retrieve(text, areas)
    except (EmbeddingError, EmbedderMismatch) as exc:
        return iter([Done(questions.search_failed(text, areas, exc))])
    return _events(user_id, found, components.get().llm, record=True)


def stream(user_id: int, question: str | None, area_ids: Iterable[int] | None, *, strict: bool = True,
           use_llm: bool = True, record: bool = True) -> Iterator[Event]:
    """Stream a CLI or API answer; invalid input, foreign areas and a failed search raise before any event."""
    text, areas = questions.checked_question(user_id, question, area_ids, strict=strict)
    found = questions.retrieve(text, areas)
    return _events(user_id, found, components.get().llm if use_llm else None, record=record)


def _events(user_id: int, found: questions.Retrieved, llm: object | None, *, record: bool) -> Iterator[Event]:
    yield Sources(questions.sources_result(found))
    if not found.context.chunks or llm is None or isinstance(llm, NoLLM):
        reply = answer(found.question, found.context, None)  # nothing to ask, or no model: no tokens
        yield Done(questions.finish(user_id, found, reply, llm, record=record))
        return
    yield from _streamed(user_id, found, llm, record=record)


def _tokens(llm: object, messages: list[dict[str, str]]) -> Iterator[str]:
    """Return the model's reply as pieces (a model without ``stream`` gives its whole reply as one)."""
    if callable(getattr(llm, "stream", None)):
        return iter(llm.stream(messages))  # type: ignore[attr-defined]
    return iter([reply_text(llm.chat(messages))])  # type: ignore[attr-defined]


def _streamed(user_id: int, found: questions.Retrieved, llm: object, *, record: bool) -> Iterator[Event]:
    name = llm_name(llm)
    parts: list[str] = []
    timings: dict[str, float] = {}
    start = time.perf_counter()
    tokens = None
    try:
        tokens = _tokens(llm, build_messages(found.question, found.context))
        for piece in tokens:
            if not parts:
                now = time.perf_counter()
                timings.update(llm_first_token=now - start, first_token=now - found.started)
            parts.append(piece)
            yield Token(piece, "".join(parts))
    except GeneratorExit:
        timings["llm"] = time.perf_counter() - start
        _close(tokens)  # first: the model stops writing now, not after the history row
        _record_stopped(user_id, found, Answer("".join(parts).strip(), name, False, "stopped by the client",
                                               timings), llm, record=record)
        raise
    except Exception as exc:  # the model failed: keep the cause; never let the stream crash
        timings["llm"] = time.perf_counter() - start
        yield _failed(user_id, found, llm, "".join(parts).strip(), exc, timings, record=record)
        return
    finally:
        _close(tokens)
    timings["llm"] = time.perf_counter() - start
    text = "".join(parts).strip()
    if not text:
        reply = Answer(extractive_text(found.context), name, True, "empty answer", timings)
        yield Done(questions.finish(user_id, found, reply, llm, record=record))
        return
    reply = with_checked_citations(Answer(text, name, False, None, timings), found.context, found.hashes)
    yield Done(questions.finish(user_id, found, reply, llm, record=record))


def _close(tokens: Iterator[str] | None) -> None:
    """Close the model's stream (its HTTP response), so the model stops writing; closing twice is harmless."""
    close = getattr(tokens, "close", None)
    if close is not None:
        close()


def _failed(user_id: int, found: questions.Retrieved, llm: object, partial: str, exc: Exception,
            timings: dict[str, float], *, record: bool) -> Done | Error:
    """Return the event for a model failure: the extractive fallback before any text, else Error."""
    name = llm_name(llm)
    detail = " ".join(filter(None, [getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}",
                                    getattr(exc, "detail", None)]))
    if isinstance(exc, LLMUnavailable):
        log.warning("llm_stream_failed llm=%s chars=%s detail=%s", name, len(partial), detail)
    else:
        log.exception("llm_stream_failed llm=%s chars=%s", name, len(partial))
    if not partial:
        reply = Answer(extractive_text(found.context), name, True, detail, timings)
        return Done(questions.finish(user_id, found, reply, llm, exc, record=record))
    reply = Answer(partial, name, False, f"{name}: {detail}", timings)
    result = questions.finish(user_id, found, reply, llm, record=record, interrupted=questions.LLM_INTERRUPTED)
    return Error(questions.LLM_INTERRUPTED, partial, result)


def _record_stopped(user_id: int, found: questions.Retrieved, reply: Answer, llm: object, *, record: bool) -> None:
    """Record an answer the client stopped (the generator is closing: nothing may be yielded)."""
    log.info("answer_stopped llm=%s chars=%s", reply.llm, len(reply.text))
    if not record:
        return
    try:
        questions.finish(user_id, found, reply, llm, record=True, interrupted=questions.ANSWER_STOPPED)
    except Exception:  # the client is gone; a failed history row must not hide the close
        log.exception("answer_stopped_record_failed user=%s", user_id)

