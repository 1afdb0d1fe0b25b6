"""Fit the prompt into the language model's context window (LLM_CONTEXT_TOKENS).

Tokens are estimated from characters: ``CHARS_PER_TOKEN`` (3) characters a token, a
conservative figure for German and English text with the tokenizers of common open models
(about 3.5-4.5 characters a token for prose, fewer for code, numbers and compound words).
The window must hold the system prompt, the question, the passages and the answer: the
answer's reserve is what the model may write (LLM_MAX_TOKENS), at most half the window
(``answer_reserve``; a server that counts the whole limit then refuses, and says so). Passages are left out from the lowest fused rank up (the
context is numbered in rank order, so the kept ones keep their numbers) until the rest
fits: the fewest passages are dropped. Nothing is sent that the model must refuse, unless
even the question alone does not fit; then one passage is still sent and the server's
refusal is reported as such.

Previous turns of a conversation (``fit_turns``) get at most ``TURNS_SHARE`` (a quarter) of
the window, before the passages are fitted into the rest: the newest turns are kept, the
oldest dropped first; a turn is kept whole or not at all.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irisrag.rag.followup import PreviousTurn
    from irisrag.rag.retrieve import Context

CHARS_PER_TOKEN = 3
ANSWER_TOKENS = 512
MESSAGE_OVERHEAD_TOKENS = 16  # role markers and separators per message and passage label
TURNS_SHARE = 0.25  # of the window, at most, for a conversation's previous turns


def estimate_tokens(text: str) -> int:
    """Return the estimated token count of a text (characters / 3, rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def answer_reserve(max_tokens: int | None, window_tokens: int) -> int:
    """Return the tokens kept free for the answer: what the model may write, at most half the window."""
    return min(int(max_tokens or ANSWER_TOKENS), window_tokens // 2)


def fit(context: Context, fixed_text: str, window_tokens: int,
        answer_tokens: int = ANSWER_TOKENS) -> tuple[Context, int]:
    """Return the context with the lowest-ranked passages left out until the prompt fits, and how many were."""
    available = window_tokens - answer_tokens - estimate_tokens(fixed_text) - 2 * MESSAGE_OVERHEAD_TOKENS
    kept = []
    for chunk in context.chunks:
        cost = estimate_tokens(chunk.hit.text) + MESSAGE_OVERHEAD_TOKENS
        if kept and cost > available:
            break
        kept.append(chunk)
        available -= cost
    omitted = len(context.chunks) - len(kept)
    return (replace(context, chunks=tuple(kept)) if omitted else context), omitted


def turn_text(turn: PreviousTurn) -> str:
    """Return the text a previous turn adds to the prompt (question and answer)."""
    return f"{turn.question}\n{turn.answer}"


def fit_turns(turns: Sequence[PreviousTurn], window_tokens: int) -> tuple[PreviousTurn, ...]:
    """Return the newest previous turns that fit into TURNS_SHARE of the window (oldest dropped first)."""
    available = int(window_tokens * TURNS_SHARE)
    kept: list[PreviousTurn] = []
    for turn in reversed(turns):
        cost = estimate_tokens(turn_text(turn)) + 2 * MESSAGE_OVERHEAD_TOKENS
        if cost > available:
            break
        kept.append(turn)
        available -= cost
    return tuple(reversed(kept))
