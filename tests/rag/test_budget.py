"""The context budget: the lowest-ranked passages are left out until the prompt fits the window."""
from __future__ import annotations

from irisrag.errors import LLMRefused
from irisrag.rag import outcome as answer_outcome
from irisrag.rag.answer import Answer
from irisrag.rag.budget import ANSWER_TOKENS, answer_reserve, estimate_tokens, fit
from tests.rag.test_extractive import make_context


def test_budget_keeps_everything_that_fits_and_drops_lowest_ranked_first():
    context = make_context("a" * 3000, "b" * 3000, "c" * 3000, question="Frage?")
    kept, omitted = fit(context, "system Frage?", 4096)
    assert omitted == 0 and kept is context
    kept, omitted = fit(context, "system Frage?", 2048)
    assert omitted == 2 and [c.position for c in kept.chunks] == [1]
    assert estimate_tokens("x" * 3000) + ANSWER_TOKENS < 2048


def test_the_answer_reserve_is_what_the_model_may_write_at_most_half_the_window():
    context = make_context("a" * 3000, "b" * 3000, "c" * 3000, question="Frage?")
    assert answer_reserve(1024, 4096) == 1024 and answer_reserve(4096, 4096) == 2048
    assert answer_reserve(None, 4096) == ANSWER_TOKENS
    # each passage costs 1000 + 16 tokens; the prompt's fixed part 5 + 2 x 16
    assert fit(context, "system Frage?", 4096, answer_reserve(512, 4096))[1] == 0  # 3048 <= 3547
    assert fit(context, "system Frage?", 4096, answer_reserve(1024, 4096))[1] == 1  # 3048 > 3035
    assert fit(context, "system Frage?", 4096, answer_reserve(3000, 4096))[1] == 2  # 2032 > 2011


def test_a_context_length_refusal_is_named_as_such():
    refusal = LLMRefused("The language model answered with HTTP 400",
                         "POST /v1/chat/completions: HTTP 400: {\"error\": {\"code\": \"context_length_exceeded\"}}")
    reply = Answer("x", "openai:m", True, "refused", {}, failure=refusal)
    assert answer_outcome.llm_problem(reply, True)[0] == answer_outcome.LLM_CONTEXT_TOO_LONG
    other = Answer("x", "openai:m", True, "refused", {}, failure=LLMRefused("HTTP 400", "HTTP 400: bad model"))
    assert answer_outcome.llm_problem(other, True)[0] == answer_outcome.LLM_FAILED
