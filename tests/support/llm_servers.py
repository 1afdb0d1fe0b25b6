"""Replies of Ollama and OpenAI-compatible servers as the real ones send them, for ``HttpStub``.

Besides plain answers, the behaviours a real server (llama-cpp-python, Ollama) shows and the
clients must handle::

    openai_stream(["X ", "ist"], keepalives=30, keepalive_delay=0.1)  # ": ping" comments before the first token
    openai_stream(words, finish="length")                           # cut off at max_tokens
    openai_stream(words, finish=None)                               # interrupted: [DONE] without a finish reason
    ollama_stream(words, done_reason="length")                      # Ollama's cut-off
    context_exceeded()                                              # HTTP 400 context_length_exceeded
    openai_models("other-model"), ollama_tags("other:latest")      # a model list without the configured model
"""
from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence

from tests.support.http_stub import Reply


def openai_chunk(content: str | None = None, finish: str | None = None, model: str = "served-model") -> str:
    delta = {} if content is None else {"content": content}
    return "data: " + json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                                  "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def _openai_lines(words: Sequence[str], finish: str | None, keepalives: int, keepalive_delay: float,
                  word_delay: float, model: str) -> Iterator[str]:
    for _ in range(keepalives):  # sse-starlette's ping while the prompt is processed
        yield ": ping - 2026-12-01 14:00:00.000000+00:00"
        yield ""
        time.sleep(keepalive_delay)
    for word in words:
        yield openai_chunk(word, model=model)
        yield ""
        time.sleep(word_delay)
    if finish is not None:
        yield openai_chunk(finish=finish, model=model)
        yield ""
    yield "data: [DONE]"
    yield ""


def openai_stream(words: Sequence[str], *, finish: str | None = "stop", keepalives: int = 0,
                  keepalive_delay: float = 0.0, word_delay: float = 0.0, model: str = "served-model") -> Reply:
    """A streamed chat completion; ``finish=None`` ends with ``[DONE]`` alone (an interrupted request)."""
    return Reply(lines=_openai_lines(words, finish, keepalives, keepalive_delay, word_delay, model),
                 content_type="text/event-stream")


def openai_reply(text: str, *, finish: str = "stop", model: str = "served-model") -> Reply:
    """A chat completion in one piece."""
    return Reply(json={"id": "chatcmpl-1", "object": "chat.completion", "model": model,
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": finish}]})


def ollama_line(content: str, done: bool = False, done_reason: str = "stop", model: str = "llama3") -> dict:
    line = {"model": model, "created_at": "2024-05-01T10:00:00Z",
            "message": {"role": "assistant", "content": content}, "done": done}
    if done:
        line.update(done_reason=done_reason, total_duration=123, eval_count=4)
    return line


def ollama_stream(words: Sequence[str], *, done_reason: str = "stop", model: str = "llama3",
                  word_delay: float = 0.0) -> Reply:
    """Ollama's JSON lines; ``done_reason="length"`` when ``num_predict`` was reached."""
    lines = [ollama_line(w, model=model) for w in words] + [ollama_line("", True, done_reason, model)]
    return Reply(lines=lines, line_delay=word_delay)


def context_exceeded(n_ctx: int = 2048, requested: int = 3391) -> Reply:
    """llama-cpp-python's (and OpenAI's) refusal of a prompt longer than the context window."""
    message = (f"This model's maximum context length is {n_ctx} tokens. However, you requested {requested} tokens "
               f"({requested - 1024} in the messages, 1024 in the completion). Please reduce the length of the "
               "messages or completion.")
    return Reply(status=400, json={"error": {"message": message, "type": "invalid_request_error",
                                             "param": "messages", "code": "context_length_exceeded"}})


def openai_models(*ids: str) -> Reply:
    """``GET /v1/models``."""
    return Reply(json={"object": "list", "data": [{"id": i, "object": "model", "owned_by": "me"} for i in ids]})


def ollama_tags(*names: str) -> Reply:
    """``GET /api/tags``."""
    return Reply(json={"models": [{"name": n, "model": n, "size": 1} for n in names]})
