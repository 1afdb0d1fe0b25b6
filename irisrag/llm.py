"""LLM protocol, the Ollama and OpenAI-compatible chat clients, a fallback and a fake for tests.

    class LLM(Protocol):
        name: str                                        # e.g. "ollama:llama3", "none"
        def chat(self, messages: list[dict[str, str]]) -> str
        def stream(self, messages: list[dict[str, str]]) -> Iterator[str]   # the reply, token by token
        def probe(self, timeout: float) -> None   # real clients only: a cheap model-list GET (readiness)

``stream`` reads the reply as it arrives (Ollama's JSON lines, OpenAI's server-sent events);
closing the generator closes the HTTP response, so the server stops generating (cancelling).
A stream that ends without the server's end marker is an error, never a truncated answer.

Every failure of a real client is an ``LLMUnavailable`` whose detail names the URL and the
model, of a subclass that says why: ``LLMTimeout`` (no answer, or a stalled stream, within the
timeout), ``LLMUnreachable`` (no connection, or it broke off), ``LLMRefused`` (an HTTP error
status or an error the server reports); a malformed answer is a plain ``LLMUnavailable``.
``NoLLM`` raises ``LLMNotConfigured``. Callers tell causes apart by these types, never by
``requests`` (which only this adapter and ``embeddings`` import).
"""
from __future__ import annotations

import http.client
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

import requests
import urllib3.exceptions

from irisrag.config import DEFAULTS
from irisrag.embeddings import pooled_session, post_json
from irisrag.errors import (
    ConfigurationError,
    LLMNotConfigured,
    LLMRefused,
    LLMTimeout,
    LLMUnavailable,
    LLMUnreachable,
)

Messages = list[dict[str, str]]
_SERVICE = "The language model"
_KINDS = {"timeout": LLMTimeout, "unreachable": LLMUnreachable, "refused": LLMRefused}


@runtime_checkable
class LLM(Protocol):
    name: str

    def chat(self, messages: Messages) -> str: ...

    def stream(self, messages: Messages) -> Iterator[str]: ...


def _content(data: Any, path: tuple[str | int, ...], where: str) -> str:
    """Dig the answer text out of a decoded JSON reply."""
    value = data
    try:
        for step in path:
            value = value[step]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMUnavailable(f"{_SERVICE} sent an unexpected answer",
                             f"{where}: missing {'/'.join(map(str, path))}: {str(data)[:300]}") from exc
    if not isinstance(value, str):
        raise LLMUnavailable(f"{_SERVICE} sent an unexpected answer",
                             f"{where}: {'/'.join(map(str, path))} is {type(value).__name__}, not text")
    return value


# --- streaming over HTTP -----------------------------------------------------------

def _open_stream(session: requests.Session, url: str, payload: dict[str, Any], *, timeout: float,
                 context: str, headers: Mapping[str, str] | None = None) -> requests.Response:
    """POST JSON and return the response with its body unread; failures are LLMUnavailable."""
    where = f"POST {url} ({context})"
    try:
        resp = session.post(url, json=payload, timeout=timeout, headers=dict(headers or {}), stream=True)
    except requests.Timeout as exc:
        raise LLMTimeout(f"{_SERVICE} did not answer within {timeout:g} s", f"{where}: timeout: {exc}") from exc
    except requests.RequestException as exc:
        base = "/".join(url.split("/", 3)[:3])
        raise LLMUnreachable(f"{_SERVICE} at {base} could not be reached", f"{where}: {exc}") from exc
    if resp.status_code >= 400:
        try:
            text = resp.raw.read(500, decode_content=True).decode("utf-8", "replace")
        except Exception:  # the status is the news; the body is a courtesy
            text = ""
        resp.close()
        raise LLMRefused(f"{_SERVICE} answered with HTTP {resp.status_code}",
                             f"{where}: HTTP {resp.status_code}: {text}")
    return resp


def _read_failure(exc: Exception, timeout: float, where: str) -> LLMUnavailable:
    """Return the LLMTimeout or LLMUnreachable for a stream that broke off (its cause: the requests error)."""
    slow = isinstance(exc, (urllib3.exceptions.ReadTimeoutError, TimeoutError))
    message = f"{_SERVICE} stopped sending for more than {timeout:g} s" if slow else f"{_SERVICE} broke off the answer"
    kind = LLMTimeout if slow else LLMUnreachable
    error = kind(message, f"{where}: the stream broke off: {type(exc).__name__}: {exc}")
    error.__cause__ = (requests.ReadTimeout if slow else requests.ConnectionError)(str(exc))
    return error


def _lines(resp: requests.Response, timeout: float, where: str) -> Iterator[str]:
    """Yield the body's lines as they arrive (``read1``: whatever is there, not fixed-size blocks)."""
    buffer = b""
    while True:
        try:
            data = resp.raw.read1(65536)
        except (urllib3.exceptions.HTTPError, http.client.HTTPException, OSError) as exc:
            raise _read_failure(exc, timeout, where)  # noqa: B904 - its __cause__ is the requests error
        if not data:
            break
        *complete, buffer = (buffer + data).split(b"\n")
        for line in complete:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
    if buffer.strip():
        yield buffer.decode("utf-8", "replace")


def _truncated(where: str) -> LLMUnavailable:
    return _read_failure(EOFError("the stream ended without its end marker"), 0, where)


def _json_object(text: str, where: str) -> dict[str, Any]:
    """Decode one streamed JSON object; raise the error a server reports in it (``{"error": ...}``)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise LLMUnavailable(f"{_SERVICE} sent an unexpected answer", f"{where}: not JSON: {text[:300]!r}") from exc
    if not isinstance(data, dict) or data.get("error"):
        error = data.get("error") if isinstance(data, dict) else data
        message = error.get("message", error) if isinstance(error, dict) else error
        raise LLMRefused(f"{_SERVICE} reported an error", f"{where}: {str(message)[:500]}")
    return data


def _sse_events(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """Group server-sent event lines into (event, data) pairs; comments and other fields are skipped."""
    event, data = "message", []
    for line in lines:
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
    if data:
        yield event, "\n".join(data)


def _probe(session: requests.Session, url: str, headers: Mapping[str, str], timeout: float) -> None:
    """GET a model list (never a generation); failures name no URL (readiness answers without a login)."""
    try:
        resp = session.get(url, headers=dict(headers), timeout=timeout)
    except requests.Timeout as exc:
        raise LLMTimeout(f"{type(exc).__name__} (no answer within {timeout:g} s or refused)", url) from exc
    except requests.RequestException as exc:
        raise LLMUnreachable(f"{type(exc).__name__} (no answer within {timeout:g} s or refused)", url) from exc
    if resp.status_code >= 400:
        raise LLMRefused(f"model list answered HTTP {resp.status_code}", url)


# --- clients ---------------------------------------------------------------------

class OllamaLLM:
    """Ollama ``/api/chat``: one JSON reply (``chat``) or JSON lines (``stream``)."""

    def __init__(self, url: str, model: str = "llama3", timeout: float = 120.0,
                 session: requests.Session | None = None) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.timeout = float(timeout)
        self.session = session or pooled_session()
        self.name = f"ollama:{model}"

    def chat(self, messages: Messages) -> str:
        """Send the conversation and return the model's reply text."""
        endpoint = f"{self.url}/api/chat"
        data = post_json(self.session, endpoint, {"model": self.model, "messages": messages, "stream": False},
                         timeout=self.timeout, error=LLMUnavailable, service=_SERVICE,
                         context=f"model={self.model}", kinds=_KINDS)
        return _content(data, ("message", "content"), f"POST {endpoint} (model={self.model})")

    def probe(self, timeout: float) -> None:
        """Check that the server answers with its model list (``/api/tags``); raise LLMUnavailable if not."""
        _probe(self.session, f"{self.url}/api/tags", {}, timeout)

    def stream(self, messages: Messages) -> Iterator[str]:
        """Send the conversation and yield the reply's pieces as Ollama writes them."""
        endpoint = f"{self.url}/api/chat"
        where = f"POST {endpoint} (model={self.model})"
        resp = _open_stream(self.session, endpoint, {"model": self.model, "messages": messages, "stream": True},
                            timeout=self.timeout, context=f"model={self.model}")
        try:
            for line in _lines(resp, self.timeout, where):
                if not line.strip():
                    continue
                data = _json_object(line, where)
                piece = _content(data, ("message", "content"), where) if "message" in data else ""
                if piece:
                    yield piece
                if data.get("done"):
                    return
            raise _truncated(where)
        finally:
            resp.close()


class OpenAILLM:
    """OpenAI-compatible ``/chat/completions``: one JSON reply or server-sent events."""

    def __init__(self, base_url: str, api_key: str, model: str, timeout: float = 120.0,
                 session: requests.Session | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.timeout = float(timeout)
        self.session = session or pooled_session()
        self.name = f"openai:{model}"
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def chat(self, messages: Messages) -> str:
        """Send the conversation and return the first choice's text."""
        endpoint = f"{self.base_url}/chat/completions"
        data = post_json(self.session, endpoint, {"model": self.model, "messages": messages},
                         timeout=self.timeout, error=LLMUnavailable, service=_SERVICE,
                         context=f"model={self.model}", headers=self.headers, kinds=_KINDS)
        return _content(data, ("choices", 0, "message", "content"), f"POST {endpoint} (model={self.model})")

    def probe(self, timeout: float) -> None:
        """Check that the server answers with its model list (``/models``); raise LLMUnavailable if not."""
        _probe(self.session, f"{self.base_url}/models", self.headers, timeout)

    def stream(self, messages: Messages) -> Iterator[str]:
        """Send the conversation with ``stream: true`` and yield the first choice's deltas."""
        endpoint = f"{self.base_url}/chat/completions"
        where = f"POST {endpoint} (model={self.model})"
        resp = _open_stream(self.session, endpoint, {"model": self.model, "messages": messages, "stream": True},
                            timeout=self.timeout, context=f"model={self.model}",
                            headers={**self.headers, "Accept": "text/event-stream"})
        finished = False
        try:
            for event, text in _sse_events(_lines(resp, self.timeout, where)):
                if text.strip() == "[DONE]":
                    return
                data = _json_object(text, where)
                if event == "error":
                    raise LLMRefused(f"{_SERVICE} reported an error", f"{where}: {text[:500]}")
                for choice in (data.get("choices") or [])[:1]:
                    piece = (choice.get("delta") or {}).get("content")
                    if isinstance(piece, str) and piece:
                        yield piece
                    finished = finished or bool(choice.get("finish_reason"))
            if not finished:  # some servers omit [DONE] after the final chunk; none omit both
                raise _truncated(where)
        finally:
            resp.close()


class NoLLM:
    """No model configured: answers fall back to extractive mode."""

    name = "none"

    def chat(self, messages: Messages) -> str:
        """Refuse: there is no model."""
        raise LLMNotConfigured("No language model is configured", "IRISRAG_LLM=none")

    def stream(self, messages: Messages) -> Iterator[str]:
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
        self.closed = 0

    def chat(self, messages: Messages) -> str:
        """Record the messages and return the scripted reply."""
        self.calls.append([dict(m) for m in messages])
        return self.reply(messages) if callable(self.reply) else self.reply

    def stream(self, messages: Messages) -> Iterator[str]:
        """Record the messages and yield the scripted reply word by word."""
        try:
            for i, piece in enumerate(re.findall(r"\s*\S+|\s+", self.chat(messages))):
                if self.fail_after is not None and i >= self.fail_after:
                    raise LLMUnavailable(f"{_SERVICE} broke off the answer", "fake: fail_after")
                if self.delay and i:
                    time.sleep(self.delay)
                yield piece
        finally:
            self.closed += 1


def build_llm(config: Mapping[str, Any]) -> LLM:
    """Build the LLM named by config["LLM"]."""
    def get(key: str) -> Any:
        return config.get(key, DEFAULTS.get(key))

    kind = str(get("LLM") or "").strip().lower()
    if kind == "auto":
        from irisrag.llm_auto import AutoLLM

        return AutoLLM(config)
    if kind == "ollama":
        return OllamaLLM(get("OLLAMA_URL"), get("OLLAMA_CHAT_MODEL"), float(get("LLM_TIMEOUT")))
    if kind == "openai":
        return OpenAILLM(get("OPENAI_BASE_URL"), get("OPENAI_API_KEY") or "", get("OPENAI_CHAT_MODEL"),
                         float(get("LLM_TIMEOUT")))
    if kind == "none":
        return NoLLM()
    if kind == "fake":
        return FakeLLM()
    raise ConfigurationError(f"Unknown language model setting {kind!r}",
                             "IRISRAG_LLM must be one of: auto, ollama, openai, none, fake")
