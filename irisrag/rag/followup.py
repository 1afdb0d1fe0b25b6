"""Follow-up questions: the earlier turns of a conversation that a new question may refer to."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PreviousTurn:
    """An earlier question of the conversation and the answer it got (Markdown)."""

    question: str
    answer: str
