"""The one decision of what an answer is: its status, the user's notice and error (message ids), its views.

``rag.answer.answer_events`` reports what the model did (answered, extractive fallback,
interrupted, with the model's error); ``decide`` turns that and the retrieval into the
``AskResult``: the status, the message ids the edges translate (``_(result.error)`` on the
web, as they are in the CLI), the technical detail for admins chosen by the type of the
model's error (``errors.LLMTimeout``, ``LLMUnreachable``, ...), the checked citations and
the views of sources and context.
"""
from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from irisrag.errors import (
    LLMBrokeOff,
    LLMContextTooLong,
    LLMCutOff,
    LLMModelNotFound,
    LLMNotConfigured,
    LLMRefused,
    LLMTimeout,
    LLMUnreachable,
)
from irisrag.i18n import N_
from irisrag.rag import citations, numbering, views
from irisrag.rag.answer import Answer
from irisrag.rag.answer_types import (
    ANSWERED,
    EXTRACTIVE,
    INCOMPLETE,
    NO_CONTEXT_FOUND,
    SEARCHING,
    AskResult,
    Retrieved,
)
from irisrag.rag.render import urls_in

if TYPE_CHECKING:
    from irisrag.rag.retrieve import Context, RetrievalSettings

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
LLM_MODEL_NOT_FOUND = N_("The language model server does not have the configured model.")
LLM_BROKE_OFF = N_("The language model broke off its answer.")
LLM_EMPTY = N_("The language model sent an empty answer.")
LLM_CUT_OFF = N_("The answer was cut off at the length limit.")
LLM_TIMEOUT_MIDWAY = N_("The language model did not finish its answer in time.")
# The notice of an extractive fallback names its cause too (it may be shown without the error).
FALLBACK_TIMEOUT = N_("The language model did not answer in time, so this answer was assembled from the documents.")
FALLBACK_UNREACHABLE = N_("The language model could not be reached, so this answer was assembled from the documents.")
FALLBACK_FAILED = N_("The language model reported an error, so this answer was assembled from the documents.")
FALLBACK_CONTEXT_TOO_LONG = N_("The passages did not fit the language model's context window, so this answer was "
                               "assembled from the documents.")
FALLBACK_MODEL_NOT_FOUND = N_("The language model server does not have the configured model, so this answer was "
                              "assembled from the documents.")
FALLBACK_BROKE_OFF = N_("The language model broke off its answer, so this answer was assembled from the documents.")
FALLBACK_EMPTY = N_("The language model sent an empty answer, so this answer was assembled from the documents.")
FALLBACK_CUT_OFF = N_("The language model reached its length limit before writing anything, so this answer was "
                      "assembled from the documents.")
_CONTEXT_REFUSAL = re.compile(r"context[ _-]?(?:length|window|size)|too many tokens|maximum context|n_ctx|exceeds",
                              re.IGNORECASE)
# (error type, message, notice of the fallback): the first that matches names the cause
_CAUSES = (
    (LLMContextTooLong, LLM_CONTEXT_TOO_LONG, FALLBACK_CONTEXT_TOO_LONG),
    (LLMModelNotFound, LLM_MODEL_NOT_FOUND, FALLBACK_MODEL_NOT_FOUND),
    (LLMCutOff, LLM_CUT_OFF, FALLBACK_CUT_OFF),
    (LLMTimeout, LLM_TIMEOUT, FALLBACK_TIMEOUT),
    (LLMBrokeOff, LLM_BROKE_OFF, FALLBACK_BROKE_OFF),
    (LLMUnreachable, LLM_UNREACHABLE, FALLBACK_UNREACHABLE),
)
_NOTICES = {message: notice for _, message, notice in _CAUSES} | {LLM_FAILED: FALLBACK_FAILED,
                                                                  LLM_EMPTY: FALLBACK_EMPTY}
SEARCH_FAILED = N_("The document search is not available at the moment. Please try again later.")
LLM_INTERRUPTED = N_("The language model stopped before the answer was complete.")
ANSWER_STOPPED = N_("The answer was stopped before it was complete.")
INCOMPLETE_NOTICE = N_("This answer is incomplete.")


def decide(found: Retrieved, reply: Answer, asked: bool, settings: RetrievalSettings, *,
           interrupted: str | None = None) -> AskResult:
    """Return the AskResult of a retrieved question's reply: status, messages, checked citations, views.

    Its citations are renumbered 1..n in reading order last (``rag.numbering``), for every medium.

    ``asked``: a model was asked (False: none, or the caller wanted none, CLI --no-llm).
    ``interrupted`` (a message id) marks an answer that ended early: ``reply.text`` is the part
    written so far and ``reply.error`` the technical detail.
    """
    context = found.context
    status, notice, body, error, detail = _status(reply, context, asked, interrupted)
    # The model's answer was checked by answer_events; the extractive passages are checked as shown.
    checked = reply.checked if status == ANSWERED and reply.checked else citations.check(body, context.chunks,
                                                                                         found.hashes)
    return numbering.renumber(AskResult(
        question=found.question, area_ids=found.areas, status=status, answer_text=reply.text,
        shown_text=checked.text if body.strip() else "", llm=reply.llm, extractive=reply.extractive,
        notice=notice, error=error, error_detail=detail, retrieval_detail=retrieval_detail(context, settings),
        sources=views.source_views(context, found.documents, {c.document_id for c in checked.citations},
                                   settings.found_sources_chunks),
        context=views.context_entries(context, found.documents),
        timings={**found.timings, **reply.timings, "total": time.perf_counter() - found.started},
        citations=views.citation_views(checked, context, found.documents), invalid_citations=checked.invalid,
        unsupported=checked.unsupported, omitted=found.omitted, search_query=found.search_query,
        nearest=views.nearest_views(context, found.documents), links=urls_in(c.hit.text for c in context.chunks),
        marked=context.terms,
    ))


def _status(reply: Answer, context: Context, asked: bool,
            interrupted: str | None) -> tuple[str, str | None, str, str | None, str | None]:
    """Return (status, notice, the body shown, error, detail) of a reply."""
    error, detail = llm_problem(reply, asked) if reply.extractive else (None, None)
    if interrupted:
        return INCOMPLETE, INCOMPLETE_NOTICE, reply.text, interrupted, reply.error
    if not context.chunks:
        return NO_CONTEXT_FOUND, NO_CONTEXT, "", error, detail
    if reply.extractive:
        return EXTRACTIVE, _NOTICES.get(error, NO_LLM) if error else ASSEMBLED, reply.text, error, detail
    return ANSWERED, None, reply.text, error, detail


def searching(found: Retrieved, settings: RetrievalSettings) -> AskResult:
    """Return what is known before the model writes: the sources and the context (status ``searching``)."""
    return AskResult(
        question=found.question, area_ids=found.areas, status=SEARCHING, search_query=found.search_query,
        retrieval_detail=retrieval_detail(found.context, settings),
        sources=views.source_views(found.context, found.documents),
        context=views.context_entries(found.context, found.documents),
        timings={**found.timings, "sources": time.perf_counter() - found.started},
    )


def llm_problem(reply: Answer, asked: bool) -> tuple[str | None, str | None]:
    """Return (user message, admin detail) for an extractive fallback, by the type of the model's error."""
    if not asked:
        return None, None  # the caller asked for no model (CLI --no-llm)
    exc = reply.failure
    if isinstance(exc, LLMNotConfigured):
        return None, None  # none configured or found: the extractive answer is the plan, not a failure
    if exc is None:
        return LLM_EMPTY, f"{reply.llm}: the model sent an empty answer"
    parts = [getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}", getattr(exc, "detail", None)]
    detail = f"{reply.llm}: " + ": ".join(filter(None, parts))
    for kind, message, _ in _CAUSES:
        if isinstance(exc, kind):
            return message, detail
    if isinstance(exc, LLMRefused) and _CONTEXT_REFUSAL.search(detail):
        return LLM_CONTEXT_TOO_LONG, detail
    return LLM_FAILED, detail



def interruption(reply: Answer) -> str:
    """Return the message id of an answer the model ended early: cut off at the length limit, late, or broken off."""
    if isinstance(reply.failure, LLMCutOff):
        return LLM_CUT_OFF
    if isinstance(reply.failure, LLMTimeout):
        return LLM_TIMEOUT_MIDWAY
    return LLM_INTERRUPTED



def retrieval_detail(context: Context, settings: RetrievalSettings) -> str:
    """Return what retrieval found, for admins (the SPEC 7 hints)."""
    passed = sum(1 for c in context.candidates if c.gate != "lexical")
    return (f"areas {list(context.area_ids)}: {len(context.candidates)} of at most {settings.candidates} "
            f"candidates, {passed} passed the lexical filter (MIN_MATCH_TERMS={settings.min_match_terms}, "
            f"MIN_MATCH_SCORE={settings.min_match_score:g}), {len(context.chunks)} in the context, "
            f"{len(context.sources)} sources (MIN_SOURCE_SCORE={settings.min_source_score:g})")
