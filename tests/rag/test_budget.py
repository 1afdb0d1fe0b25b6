"""The context budget: the lowest-ranked passages are left out until the prompt fits the window."""
from __future__ import annotations

from irisrag.errors import LLMRefused
from irisrag.rag.answer import Answer
from irisrag.rag.budget import ANSWER_TOKENS, estimate_tokens, fit
from irisrag.services import answer_outcome
from tests.rag.test_extractive import make_context


def test_budget_keeps_everything_that_fits_and_drops_lowest_ranked_first():
    context = make_context("a" * 3000, "b" * 3000, "c" * 3000, question="Frage?")
    kept, omitted = fit(context, "system Frage?", 4096)
    assert omitted == 0 and kept is context
    kept, omitted = fit(context, "system Frage?", 2048)
    assert omitted == 2 and [c.position for c in kept.chunks] == [1]
    assert estimate_tokens("x" * 3000) + ANSWER_TOKENS < 2048


def test_a_context_length_refusal_is_named_as_such():
    refusal = LLMRefused("The language model answered with HTTP 400",
                         "POST /v1/chat/completions: HTTP 400: {\"error\": {\"code\": \"context_length_exceeded\"}}")
    reply = Answer("x", "openai:m", True, "refused", {}, failure=refusal)
    assert answer_outcome.llm_problem(reply, True)[0] == answer_outcome.LLM_CONTEXT_TOO_LONG
    other = Answer("x", "openai:m", True, "refused", {}, failure=LLMRefused("HTTP 400", "HTTP 400: bad model"))
    assert answer_outcome.llm_problem(other, True)[0] == answer_outcome.LLM_FAILED
