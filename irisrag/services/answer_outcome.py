"""The outcome of an answer: its status, the user's notice and error (message ids), checked citations, history.

``rag.answer.answer_events`` decides what happened (answered, extractive fallback,
interrupted); this module only names it: the status, the message ids the edges translate
(``_(result.error)`` on the web, as they are in the CLI), the technical detail for admins,
chosen by the type of the model's error (``errors.LLMTimeout``, ``LLMUnreachable``, ...).
"""
from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from irisrag.errors import LLMNotConfigured, LLMRefused, LLMTimeout, LLMUnreachable
from irisrag.i18n import N_
from irisrag.rag import citations, extractive
from irisrag.rag.answer import Answer, to_html
from irisrag.rag.retrieve import Context, RetrievalSettings
from irisrag.services import history
from irisrag.services.answer_views import (
    ANSWERED,
    EXTRACTIVE,
    INCOMPLETE,
    NO_CONTEXT_FOUND,
    AskResult,
    citation_views,
    context_entry,
    source_views,
)

if TYPE_CHECKING:
    from irisrag.services.asking import Retrieved

NO_AREA_SELECTED = N_("Select at least one area to search.")
NO_AREA_PERMITTED = N_("You do not have access to any area yet. An administrator can grant you areas.")
NO_CONTEXT = N_("No information was found in the context. Check the areas you selected.")
NO_SOURCES = N_("No sources were found. Check the areas you selected, or ask with other words.")
NO_LLM = N_("The language model is not available, so this answer was assembled from the documents.")
ASSEMBLED = N_("This answer was assembled from the documents without a language model.")
LLM_NOT_CONFIGURED = N_("No language model is configured.")
LLM_TIMEOUT = N_("The language model did not answer in time.")
LLM_UNREACHABLE = N_("The language model could not be reached.")
LLM_FAILED = N_("The language model reported an error.")
LLM_CONTEXT_TOO_LONG = N_("The language model refused the question: the passages did not fit its context window.")
_CONTEXT_REFUSAL = re.compile(r"context[ _-]?(?:length|window|size)|too many tokens|maximum context|n_ctx|exceeds",
                              re.IGNORECASE)
SEARCH_FAILED = N_("The document search is not available at the moment. Please try again later.")
LLM_INTERRUPTED = N_("The language model stopped before the answer was complete.")
ANSWER_STOPPED = N_("The answer was stopped before it was complete.")
INCOMPLETE_NOTICE = N_("This answer is incomplete.")


def finish(user_id: int, found: Retrieved, reply: Answer, asked: bool, settings: RetrievalSettings, *,
           record: bool = True, interrupted: str | None = None) -> AskResult:
    """Build the AskResult of a retrieved question's reply (checked citations) and record it in the history.

    ``asked``: a model was asked (False: the caller wanted none, CLI --no-llm). ``interrupted``
    (a message id) marks an answer that ended early: ``reply.text`` is the part written so far
    and ``reply.error`` the technical detail.
    """
    context = found.context
    timings = {**found.timings, **reply.timings, "total": time.perf_counter() - found.started}
    error, detail = llm_problem(reply, asked) if reply.extractive else (None, None)
    if interrupted:
        status, notice, body, error, detail = INCOMPLETE, INCOMPLETE_NOTICE, reply.text, interrupted, reply.error
    elif not context.chunks:
        status, notice, body = NO_CONTEXT_FOUND, NO_CONTEXT, ""
    elif reply.extractive:
        status, notice, body = EXTRACTIVE, NO_LLM if error else ASSEMBLED, reply.text
    else:
        status, notice, body = ANSWERED, None, reply.text
    # The model's answer was checked by answer_events; the extractive passages are checked as shown.
    checked = reply.checked if status == ANSWERED and reply.checked else citations.check(body, context.chunks,
                                                                                         found.hashes)
    result = AskResult(
        question=found.question, area_ids=found.areas, status=status, answer_text=reply.text,
        answer_html=_html(checked, context, status) if body.strip() else "", llm=reply.llm,
        extractive=reply.extractive, notice=notice, error=error, error_detail=detail,
        retrieval_detail=retrieval_detail(context, settings), sources=source_views(context, found.documents),
        context=tuple(context_entry(c, found.documents) for c in context.chunks), timings=timings,
        citations=citation_views(checked, context, found.documents), invalid_citations=checked.invalid,
        unsupported=checked.unsupported, omitted=found.omitted, search_query=found.search_query,
    )
    if not record:
        return result
    return replace(result, question_id=history.record(user_id, result, checked.text,
                                                      conversation_id=found.conversation_id))


def llm_problem(reply: Answer, asked: bool) -> tuple[str | None, str | None]:
    """Return (user message, admin detail) for an extractive fallback, by the type of the model's error."""
    if not asked:
        return None, None  # the caller asked for no model (CLI --no-llm)
    exc = reply.failure
    if isinstance(exc, LLMNotConfigured):
        return None, None  # none configured or found: the extractive answer is the plan, not a failure
    if exc is None:
        return LLM_FAILED, f"{reply.llm}: the model sent an empty answer"
    parts = [getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}", getattr(exc, "detail", None)]
    detail = f"{reply.llm}: " + ": ".join(filter(None, parts))
    if isinstance(exc, LLMTimeout):
        return LLM_TIMEOUT, detail
    if isinstance(exc, LLMUnreachable):
        return LLM_UNREACHABLE, detail
    if isinstance(exc, LLMRefused) and _CONTEXT_REFUSAL.search(detail):
        return LLM_CONTEXT_TOO_LONG, detail
    return LLM_FAILED, detail


def _html(checked: citations.CheckedAnswer, context: Context, status: str) -> str:
    """Render the checked answer; an extractive one with the question's terms highlighted."""
    html = citations.linked_html(checked, to_html)
    return extractive.highlighter(context.terms)(html) if status == EXTRACTIVE else html


def retrieval_detail(context: Context, settings: RetrievalSettings) -> str:
    """Return what retrieval found, for admins (the SPEC 7 hints)."""
    passed = sum(1 for c in context.candidates if c.gate != "lexical")
    return (f"areas {list(context.area_ids)}: {len(context.candidates)} of at most {settings.candidates} "
            f"candidates, {passed} passed the lexical filter (MIN_MATCH_TERMS={settings.min_match_terms}, "
            f"MIN_MATCH_SCORE={settings.min_match_score:g}), {len(context.chunks)} in the context, "
            f"{len(context.sources)} sources (MIN_SOURCE_SCORE={settings.min_source_score:g})")
