"""``flask rag check-llm``: ask the model for a fixed reply and say whether it came back, how fast, from which model.

The check streams a tiny answer (``MAX_TOKENS``) so it measures the time to the first word
and the total, and reads the model name the server reports (which may differ from the
configured one: an alias, a file name). A model that answers something else fails the check.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass

from irisrag.llm.clients import Chunk, finished

PROMPT = "Reply with the single word OK and nothing else."
MAX_TOKENS = 8
_EXPECTED = re.compile(r"\W*ok\b", re.IGNORECASE)


@dataclass(frozen=True)
class LLMCheck:
    """What came back: the reply, the model the server named, seconds to the first word and in all."""

    reply: str
    model: str
    first_token: float | None
    total: float

    @property
    def ok(self) -> bool:
        """Whether the model replied as asked."""
        return bool(_EXPECTED.match(self.reply))


def check(llm: object) -> LLMCheck:
    """Ask ``llm`` for the fixed reply (streamed where the client can); LLMUnavailable errors pass through."""
    messages = [{"role": "user", "content": PROMPT}]
    start = time.perf_counter()
    chunks = getattr(llm, "chunks", None)
    if not callable(chunks):  # a model without raw chunks (the fake): one reply
        reply = str(llm.chat(messages, max_tokens=MAX_TOKENS))  # type: ignore[attr-defined]
        elapsed = time.perf_counter() - start
        return LLMCheck(reply.strip(), str(getattr(llm, "name", "")), elapsed, elapsed)
    parts, model, first = [], "", None
    for chunk in chunks(messages, MAX_TOKENS, stream=True):
        model, first = _note(chunk, model, first, start)
        parts.append(chunk.text)
        if chunk.finish is not None and chunk.finish != "length":  # 8 tokens is enough for "OK"
            finished(chunk.finish, "".join(parts), str(getattr(llm, "name", "")))
    return LLMCheck("".join(parts).strip(), model, first, time.perf_counter() - start)


def _note(chunk: Chunk, model: str, first: float | None, start: float) -> tuple[str, float | None]:
    if first is None and chunk.text.strip():
        first = time.perf_counter() - start
    return chunk.model or model, first
