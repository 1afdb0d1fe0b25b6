"""Answers: the prompt with a numbered context, the LLM call, an extractive fallback (rendering: ``rag.render``).

``answer_events`` is the one answering step (streamed answers forward its events, ``answer``
drains it) and never raises: no context gives the SPEC 7 message without calling the model;
an unavailable model gives an extractive answer (the best passages, numbered as in the
context) with the model's error kept in ``Answer.error`` and ``Answer.failure``. The text's citations are checked
(``citations.py``): numbers that were not in the context are removed from ``Answer.text``
and listed in ``Answer.checked.invalid``; unsupported sentences are listed there too.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from irisrag.errors import LLMNotConfigured, LLMUnavailable
from irisrag.llm.auto import chat_model
from irisrag.rag import extractive
from irisrag.rag.citations import CheckedAnswer, check
from irisrag.rag.extractive import Embedder
from irisrag.rag.followup import PreviousTurn, plain_answer
from irisrag.rag.render import passage_text

if TYPE_CHECKING:
    from irisrag.rag.retrieve import Context

log = logging.getLogger(__name__)

SYSTEM_PROMPT = """You answer questions about an organisation's documents.
Use only the numbered context passages in the user's message; do not use outside knowledge.
Cite the passages you use with their numbers in square brackets, e.g. [1] or [2][3].
Refer to passages only by these numbers; do not repeat the word "Context" or other labels of this message.
If the context does not contain the answer, say so plainly instead of guessing.
Answer in the language of the question, concisely, in Markdown."""

NO_CONTEXT_MESSAGE = "No information was found in the context. Check the areas you selected."
NO_LLM_MESSAGE = "No language model is available, so here are the passages that match best:"


class ChatModel(Protocol):
    def chat(self, messages: list[dict[str, str]], max_tokens: int | None = None) -> Any: ...


@dataclass(frozen=True)
class Token:
    """A piece of the model's answer (``text``) and the Markdown written so far (``answer``)."""

    text: str
    answer: str


@dataclass(frozen=True)
class Answer:
    """The answer text (Markdown, invalid citations removed), which model wrote it, how, and its checked citations.

    ``failure`` is the model's error behind a fallback or an interruption (its type says why);
    ``interrupted``: the model broke off after writing ``text`` (not checked: a partial answer).
    """

    text: str
    llm: str
    extractive: bool
    error: str | None
    timings: dict[str, float] = field(default_factory=dict)
    checked: CheckedAnswer | None = None
    failure: Exception | None = None
    interrupted: bool = False


def format_context(context: Context) -> str:
    """Render the context chunks as passages labelled only by their citation number."""
    return "\n\n".join(f"[{c.position}]\n{passage_text(c.hit.text)}" for c in context.chunks)


def build_messages(question: str, context: Context,
                   previous: Sequence[PreviousTurn] = ()) -> list[dict[str, str]]:
    """Return the chat messages: the system prompt, the previous turns (citation numbers removed),
    then the numbered context and the question."""
    user = f"Context:\n\n{format_context(context)}\n\nQuestion: {question.strip()}"
    turns = [m for t in previous for m in ({"role": "user", "content": t.question.strip()},
                                           {"role": "assistant", "content": plain_answer(t.answer)})]
    return [{"role": "system", "content": SYSTEM_PROMPT}, *turns, {"role": "user", "content": user}]


def llm_name(llm: object | None) -> str:
    """Return a display name for a chat model ("none" when there is none)."""
    if llm is None:
        return "none"
    for attribute in ("name", "key", "model"):
        value = getattr(llm, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(llm).__name__


def extractive_text(context: Context, reason: str = "", embedder: Embedder | None = None) -> str:
    """Return the extractive answer (``extractive.compose``: the best sentences, cited), after ``reason`` if any."""
    body = extractive.compose(context.question, context, embedder)
    return f"{reason}\n\n{body}" if reason else body


def reply_text(reply: Any) -> str:
    """Return the text of a chat model's reply (a string, or an object with ``text``)."""
    if isinstance(reply, str):
        return reply
    return str(getattr(reply, "text", reply))


def answer(question: str, context: Context, llm: ChatModel | None, *,
           hashes: Mapping[int, str] | None = None, embedder: Embedder | None = None,
           previous: Sequence[PreviousTurn] = ()) -> Answer:
    """Answer the question from the context with the LLM in one piece (``answer_events`` drained).

    ``hashes`` maps document ids to the SHA-256 of the indexed version, for the citation ids;
    ``embedder`` (the one retrieval used) helps choose the extractive answer's sentences;
    ``previous``: the conversation's earlier turns that fit the prompt (``budget.fit_turns``).
    """
    for event in answer_events(question, context, llm, hashes=hashes, stream=False, embedder=embedder,
                               previous=previous):
        if isinstance(event, Answer):
            return event
    raise RuntimeError("answer_events ended without its Answer")


def answer_events(question: str, context: Context, llm: ChatModel | None, *,
                  hashes: Mapping[int, str] | None = None, stream: bool = True,
                  embedder: Embedder | None = None,
                  previous: Sequence[PreviousTurn] = ()) -> Iterator[Token | Answer]:
    """Yield the model's reply as ``Token`` events, then the final ``Answer``; never raise.

    What the model did, for ``rag.outcome.decide`` to name: no context gives the no-context message without
    calling the model; no model (None), a failure before any text or an empty reply give the
    extractive fallback (``Answer.failure`` keeps the model's error); a failure after some
    text gives that text with ``interrupted``; otherwise the reply with checked citations.
    ``stream=False`` asks the model in one piece (``chat``): one Token, then the Answer.
    Closing the generator closes the model's stream, so the model stops writing. ``embedder``
    (the one retrieval used) helps the extractive answer choose its sentences.
    """
    llm = chat_model(llm)
    name = llm_name(llm)
    if not context.chunks:
        yield with_checked_citations(Answer(NO_CONTEXT_MESSAGE, name, False, None, {"llm": 0.0}), context, hashes)
        return
    if llm is None:
        yield _fallback(context, name, "no language model configured", {"llm": 0.0}, None, hashes, embedder)
        return
    timings: dict[str, float] = {}
    written = yield from _written(llm, build_messages(question, context, previous), stream, timings)
    if isinstance(written, _Broken):  # never let an answer crash the page; keep the cause
        yield _failed(context, name, written.partial, written.error, timings, hashes, embedder)
    elif not written:
        yield _fallback(context, name, "empty answer", timings, None, hashes, embedder)
    else:
        yield with_checked_citations(Answer(written, name, False, None, timings), context, hashes)


@dataclass(frozen=True)
class _Broken:
    """The model failed: its error, and the text it wrote before."""

    error: Exception
    partial: str


def _written(llm: ChatModel, messages: list[dict[str, str]], stream: bool,
             timings: dict[str, float]) -> Generator[Token, None, str | _Broken]:
    """Yield the reply's Tokens; return its stripped text, or ``_Broken``: the model's error and the text so far.

    ``timings`` gets ``llm`` (and ``llm_first_token`` when streaming). Closing this closes the model's stream.
    """
    start, parts, tokens = time.perf_counter(), [], None
    try:
        tokens = _tokens(llm, messages, stream)
        for piece in tokens:
            if not parts and stream:
                timings["llm_first_token"] = time.perf_counter() - start
            parts.append(piece)
            yield Token(piece, "".join(parts))
    except Exception as exc:
        timings["llm"] = time.perf_counter() - start
        # cut off in one piece: the error carries what was written
        return _Broken(exc, "".join(parts).strip() or str(getattr(exc, "partial", "") or "").strip())
    finally:
        _close(tokens)
    timings["llm"] = time.perf_counter() - start
    return "".join(parts).strip()


def _tokens(llm: ChatModel, messages: list[dict[str, str]], stream: bool) -> Iterator[str]:
    """Return the model's reply as pieces (one piece when not streaming or the model cannot stream)."""
    if stream and callable(getattr(llm, "stream", None)):
        return iter(llm.stream(messages))  # type: ignore[attr-defined]
    return iter([reply_text(llm.chat(messages))])


def _close(tokens: Iterator[str] | None) -> None:
    """Close the model's stream (its HTTP response), so the model stops writing; closing twice is harmless."""
    close = getattr(tokens, "close", None)
    if close is not None:
        close()


def _fallback(context: Context, name: str, error: str, timings: dict[str, float], failure: Exception | None,
              hashes: Mapping[int, str] | None, embedder: Embedder | None = None) -> Answer:
    text = extractive_text(context, embedder=embedder)
    return with_checked_citations(Answer(text, name, True, error, timings, failure=failure), context, hashes)


def _failed(context: Context, name: str, partial: str, exc: Exception, timings: dict[str, float],
            hashes: Mapping[int, str] | None, embedder: Embedder | None = None) -> Answer:
    """Return the Answer of a model failure: the extractive fallback before any text, else the partial text."""
    if isinstance(exc, LLMUnavailable):
        detail = " ".join(filter(None, [exc.message, exc.detail]))
        level = logging.INFO if isinstance(exc, LLMNotConfigured) else logging.WARNING  # none is a choice
        log.log(level, "llm_unavailable llm=%s chars=%s detail=%s", name, len(partial), exc.detail or exc.message)
    else:
        detail = f"{type(exc).__name__}: {exc}"
        log.exception("llm_failed llm=%s chars=%s", name, len(partial))
    if not partial:
        return _fallback(context, name, detail, timings, exc, hashes, embedder)
    return Answer(partial, name, False, f"{name}: {detail}", timings, failure=exc, interrupted=True)


def with_checked_citations(result: Answer, context: Context, hashes: Mapping[int, str] | None = None) -> Answer:
    """Return the answer with its citations checked against the context (invalid numbers removed)."""
    checked = check(result.text, context.chunks, hashes)
    if checked.invalid or checked.unsupported:
        log.info("citations_flagged llm=%s invalid=%s unsupported=%s", result.llm, list(checked.invalid),
                 sorted(checked.unsupported_numbers))
    return replace(result, text=checked.text, checked=checked)
