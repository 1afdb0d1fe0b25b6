"""LLM protocol, the Ollama and OpenAI-compatible chat clients, a fallback and a fake for tests.

    class LLM(Protocol):
        name: str                                        # e.g. "ollama:llama3", "none"
        def chat(self, messages, max_tokens=None) -> str
        def stream(self, messages, max_tokens=None) -> Iterator[str]   # the reply, token by token
        def probe(self, timeout: float) -> None   # real clients only: the model list lists the model

Every call is bounded: ``max_tokens`` (default: the client's, LLM_MAX_TOKENS, a constant in config.INTERNAL) is sent
to the server, and ``llm_http.Deadline`` bounds the time: ``timeout`` (LLM_TIMEOUT) for the
whole reply, ``first_token_timeout`` for a stream's first word, whatever the server sends
meanwhile. ``stream`` reads the reply as it arrives (Ollama's JSON lines, OpenAI's server-sent
events); closing the generator closes the HTTP response, so the server stops generating.

The finish is read, not assumed: a reply that stopped at the length limit (OpenAI
``finish_reason: length``, Ollama ``done_reason: length``) raises ``LLMCutOff`` after its text
(``partial``); a stream that ends without a finish reason (cut, or ``[DONE]`` alone, as a
server that interrupts a request for another sends it) raises ``LLMBrokeOff``. ``chunks``
yields the raw pieces with the model name the server reports and the finish (check-llm).

Every failure of a real client is an ``LLMUnavailable`` whose detail names the URL and the
model, of a subclass that says why (see ``llm_http``). ``NoLLM`` raises ``LLMNotConfigured``.
Callers tell causes apart by these types, never by ``requests``.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import requests

from irisrag.config import DEFAULTS
from irisrag.deadline import Deadline
from irisrag.embeddings import pooled_session
from irisrag.errors import (
    LLMCutOff,
    LLMModelNotFound,
    LLMNotConfigured,
    LLMRefused,
    LLMUnavailable,
)
from irisrag.i18n import N_
from irisrag.llm import http as llm_http
from irisrag.llm.http import BROKE_OFF, UNEXPECTED
from irisrag.llm.http import SERVICE as _SERVICE

Messages = list[dict[str, str]]
_NAMED = {"service": _SERVICE}
COMPLETE = frozenset({"stop", "eos", "end_turn", "tool_calls", "function_call"})


@runtime_checkable
class LLM(Protocol):
    name: str

    def chat(self, messages: Messages, max_tokens: int | None = None) -> str: ...

    def stream(self, messages: Messages, max_tokens: int | None = None) -> Iterator[str]: ...


@dataclass(frozen=True)
class Chunk:
    """A piece of a reply: its text, the model the server names, and the finish reason on the last one."""

    text: str
    model: str = ""
    finish: str | None = None


def _content(data: Any, path: tuple[str | int, ...], where: str) -> str:
    """Dig the answer text out of a decoded JSON reply."""
    value = data
    try:
        for step in path:
            value = value[step]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMUnavailable(UNEXPECTED, f"{where}: missing {'/'.join(map(str, path))}: {str(data)[:300]}",
                             params=_NAMED) from exc
    if not isinstance(value, str):
        raise LLMUnavailable(UNEXPECTED, f"{where}: {'/'.join(map(str, path))} is {type(value).__name__}, not text",
                             params=_NAMED)
    return value


def finished(finish: str | None, text: str, where: str) -> None:
    """Raise unless ``finish`` is a proper end: ``length`` is LLMCutOff, a content filter a refusal."""
    if finish == "length":
        raise LLMCutOff(N_("%(service)s stopped at the length limit"), f"{where}: finish reason length after "
                        f"{len(text)} characters", partial=text, params=_NAMED)
    if finish == "content_filter":
        raise LLMRefused(N_("%(service)s refused to answer"), f"{where}: finish reason content_filter", params=_NAMED)
    if finish not in COMPLETE:
        raise llm_http.broke_off(where, f"the reply ended with finish reason {finish!r}")


class _Client:
    """What both clients share: bounded ``chat`` and ``stream`` over ``chunks``, and the model check."""

    name: str
    model: str
    timeout: float
    max_tokens: int
    first_token_timeout: float | None
    session: requests.Session

    def chunks(self, messages: Messages, max_tokens: int | None = None, *, stream: bool = True) -> Iterator[Chunk]:
        raise NotImplementedError

    def models(self, timeout: float) -> set[str]:
        raise NotImplementedError

    def _limit(self, max_tokens: int | None) -> int:
        return int(max_tokens or self.max_tokens)

    def _deadline(self, stream: bool) -> Deadline:
        return Deadline(self.timeout, self.first_token_timeout if stream else None)

    def chat(self, messages: Messages, max_tokens: int | None = None) -> str:
        """Send the conversation and return the reply's text (LLMCutOff at the length limit)."""
        parts = []
        for chunk in self.chunks(messages, max_tokens, stream=False):
            parts.append(chunk.text)
            if chunk.finish is not None:
                finished(chunk.finish, "".join(parts), self._where())
        return "".join(parts)

    def stream(self, messages: Messages, max_tokens: int | None = None) -> Iterator[str]:
        """Send the conversation and yield the reply's pieces as they arrive (LLMCutOff after them at the limit)."""
        parts: list[str] = []
        for chunk in self.chunks(messages, max_tokens, stream=True):
            if chunk.text:
                parts.append(chunk.text)
                yield chunk.text
            if chunk.finish is not None:
                finished(chunk.finish, "".join(parts), self._where())

    def probe(self, timeout: float) -> None:
        """Check that the server answers its model list within ``timeout`` and lists the configured model."""
        names = self.models(timeout)
        if not llm_http.model_listed(names, self.model):
            listed = ", ".join(sorted(names)[:10]) or "none"
            raise LLMModelNotFound(N_("the model %(model)s is not listed (listed: %(listed)s)"), "",
                                   params={"model": repr(self.model), "listed": listed})

    def _where(self) -> str:
        return f"{self.name}"


class OllamaLLM(_Client):
    """Ollama ``/api/chat``: one JSON reply (``chat``) or JSON lines (``stream``)."""

    def __init__(self, url: str, model: str = "llama3", timeout: float = 120.0,
                 session: requests.Session | None = None, *, max_tokens: int = 1024,
                 first_token_timeout: float | None = None) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.timeout = float(timeout)
        self.max_tokens = int(max_tokens)
        self.first_token_timeout = first_token_timeout
        self.session = session or pooled_session()
        self.name = f"ollama:{model}"

    def _where(self) -> str:
        return f"POST {self.url}/api/chat (model={self.model})"

    def models(self, timeout: float) -> set[str]:
        """Return the names in Ollama's model list (``/api/tags``)."""
        data = llm_http.get_json(self.session, f"{self.url}/api/tags", {}, timeout)
        listed = data.get("models") if isinstance(data, dict) else None
        return {str(m.get("name") or m.get("model") or "") for m in listed or [] if isinstance(m, dict)}

    def chunks(self, messages: Messages, max_tokens: int | None = None, *, stream: bool = True) -> Iterator[Chunk]:
        """Yield the reply's pieces (one when not streaming); the last carries ``done_reason``."""
        where, deadline = self._where(), self._deadline(stream)
        payload = {"model": self.model, "messages": messages, "stream": stream,
                   "options": {"num_predict": self._limit(max_tokens)}}
        resp = llm_http.open_response(self.session, f"{self.url}/api/chat", payload, deadline, where=where)
        try:
            if not stream:
                data = llm_http.read_json(resp, deadline, where)
                yield Chunk(_content(data, ("message", "content"), where), str(data.get("model") or ""),
                            str(data.get("done_reason") or "stop"))
                return
            yield from self._lines(resp, deadline, where)
        finally:
            llm_http.release(resp)

    def _lines(self, resp: requests.Response, deadline: Deadline, where: str) -> Iterator[Chunk]:
        for line in llm_http.lines(resp, deadline, where):
            if not line.strip():
                continue
            data = llm_http.json_object(line, where)
            piece = _content(data, ("message", "content"), where) if "message" in data else ""
            if piece:
                deadline.saw_text()
            done = bool(data.get("done"))
            yield Chunk(piece, str(data.get("model") or ""), str(data.get("done_reason") or "stop") if done else None)
            if done:
                return
        raise llm_http.broke_off(where)


class OpenAILLM(_Client):
    """OpenAI-compatible ``/chat/completions``: one JSON reply or server-sent events."""

    def __init__(self, base_url: str, api_key: str, model: str, timeout: float = 120.0,
                 session: requests.Session | None = None, *, max_tokens: int = 1024,
                 first_token_timeout: float | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.timeout = float(timeout)
        self.max_tokens = int(max_tokens)
        self.first_token_timeout = first_token_timeout
        self.session = session or pooled_session()
        self.name = f"openai:{model}"
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def _where(self) -> str:
        return f"POST {self.base_url}/chat/completions (model={self.model})"

    def models(self, timeout: float) -> set[str]:
        """Return the ids in the server's model list (``/models``)."""
        data = llm_http.get_json(self.session, f"{self.base_url}/models", self.headers, timeout)
        listed = data.get("data") if isinstance(data, dict) else None
        return {str(m.get("id") or "") for m in listed or [] if isinstance(m, dict)}

    def chunks(self, messages: Messages, max_tokens: int | None = None, *, stream: bool = True) -> Iterator[Chunk]:
        """Yield the first choice's pieces (one when not streaming); the last carries ``finish_reason``."""
        where, deadline = self._where(), self._deadline(stream)
        payload = {"model": self.model, "messages": messages, "max_tokens": self._limit(max_tokens), "stream": stream}
        headers = {**self.headers, "Accept": "text/event-stream"} if stream else self.headers
        resp = llm_http.open_response(self.session, f"{self.base_url}/chat/completions", payload, deadline,
                                      where=where, headers=headers)
        try:
            if not stream:
                data = llm_http.read_json(resp, deadline, where)
                choice = (data.get("choices") or [{}])[0]
                finish = str(choice.get("finish_reason") or "stop") if isinstance(choice, dict) else "stop"
                yield Chunk(_content(data, ("choices", 0, "message", "content"), where), str(data.get("model") or ""),
                            finish)
                return
            yield from self._events(resp, deadline, where)
        finally:
            llm_http.release(resp)

    def _events(self, resp: requests.Response, deadline: Deadline, where: str) -> Iterator[Chunk]:
        finish, done = None, False
        for event, text in llm_http.sse_events(llm_http.lines(resp, deadline, where)):
            if text.strip() == "[DONE]":
                done = True
                break
            if event == "error":
                raise llm_http.reported_error(text, where)
            data = llm_http.json_object(text, where)
            for choice in (data.get("choices") or [])[:1]:
                piece = (choice.get("delta") or {}).get("content")
                piece = piece if isinstance(piece, str) else ""
                if piece:
                    deadline.saw_text()
                reason = choice.get("finish_reason") or None
                finish = finish or reason
                yield Chunk(piece, str(data.get("model") or ""), str(reason) if reason else None)
        if finish is None:  # some servers omit [DONE] after the final chunk; none omit both
            raise llm_http.broke_off(where, "[DONE] without a finish reason: the server interrupted the answer"
                                     if done else "the stream ended without its end marker")


class NoLLM:
    """No model configured: answers fall back to extractive mode."""

    name = "none"

    def chat(self, messages: Messages, max_tokens: int | None = None) -> str:
        """Refuse: there is no model."""
        raise LLMNotConfigured(N_("No language model is configured"), "IRISRAG_LLM=none")

    def stream(self, messages: Messages, max_tokens: int | None = None) -> Iterator[str]:
        """Refuse: there is no model."""
        yield self.chat(messages)  # a generator, so it raises on the first read as real clients do


class FakeLLM:
    """Reply with a fixed text or a function of the messages, recording every call; ``stream`` yields
    words ``delay`` s apart, fails after ``fail_after`` words, and counts ended streams in ``closed``."""

    name = "fake"

    def __init__(self, reply: str | Callable[[Messages], str] = "This is a fake answer [1].", *,
                 delay: float = 0.0, fail_after: int | None = None) -> None:
        self.reply = reply
        self.delay = delay
        self.fail_after = fail_after
        self.calls: list[Messages] = []
        self.limits: list[int | None] = []  # the max_tokens of each call
        self.closed = 0

    def chat(self, messages: Messages, max_tokens: int | None = None) -> str:
        """Record the messages and return the scripted reply."""
        self.calls.append([dict(m) for m in messages])
        self.limits.append(max_tokens)
        return self.reply(messages) if callable(self.reply) else self.reply

    def stream(self, messages: Messages, max_tokens: int | None = None) -> Iterator[str]:
        """Record the messages and yield the scripted reply word by word."""
        try:
            for i, piece in enumerate(re.findall(r"\s*\S+|\s+", self.chat(messages, max_tokens))):
                if self.fail_after is not None and i >= self.fail_after:
                    raise LLMUnavailable(BROKE_OFF, "fake: fail_after", params=_NAMED)
                if self.delay and i:
                    time.sleep(self.delay)
                yield piece
        finally:
            self.closed += 1


def _limits(config: Mapping[str, Any]) -> dict[str, Any]:
    def get(key: str) -> Any:
        return config.get(key, DEFAULTS.get(key))

    first = float(get("LLM_FIRST_TOKEN_TIMEOUT") or 0)
    return {"timeout": float(get("LLM_TIMEOUT")), "max_tokens": int(get("LLM_MAX_TOKENS")),
            "first_token_timeout": first or None}


def ollama_client(config: Mapping[str, Any]) -> OllamaLLM:
    """Build the Ollama client of the settings (URL, model, limits)."""
    return OllamaLLM(config.get("OLLAMA_URL", DEFAULTS["OLLAMA_URL"]),
                     config.get("OLLAMA_CHAT_MODEL", DEFAULTS["OLLAMA_CHAT_MODEL"]), **_limits(config))


def openai_client(config: Mapping[str, Any]) -> OpenAILLM:
    """Build the OpenAI-compatible client of the settings (base URL, key, model, limits)."""
    return OpenAILLM(config.get("OPENAI_BASE_URL", DEFAULTS["OPENAI_BASE_URL"]),
                     config.get("OPENAI_API_KEY") or "",
                     config.get("OPENAI_CHAT_MODEL", DEFAULTS["OPENAI_CHAT_MODEL"]), **_limits(config))

