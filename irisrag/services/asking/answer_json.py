"""The JSON form of an answer: the API's responses and stream events, and ``flask rag ask --json``.

``answer_json`` is the one form (``openapi.py``: Answer). The terminal's ``--json`` is the
same document for a terminal (``terminal_json``): the answer as plain text, the areas by
name, the error with its detail, the context and sources without their passages.

``sources`` are the documents the answer cites, in the order of their first citation (issue 37
item 8; every found source when the answer cites none); ``other_sources`` the found sources it
does not cite, as the dashboard lists them under "Other matches".
"""
from __future__ import annotations

from dataclasses import asdict
from typing import Any

from irisrag.i18n import english_stored
from irisrag.rag.answer_types import INCOMPLETE, AskResult, SourceView
from irisrag.rag.render import to_terminal


def answer_json(result: AskResult, *, admin: bool) -> dict[str, Any]:
    """Return the JSON form of an answer; ``error_detail`` only for ``admin`` (it may name internal URLs)."""
    return {
        "question": result.question, "areas": list(result.area_ids), "status": result.status,
        "search_query": result.search_query or result.question,
        "answer": result.answer_text, "llm": result.llm, "extractive": result.extractive,
        "notice": result.notice, "error": english_stored(result.error) or None,
        "error_detail": result.error_detail if admin else None,
        "citations": [asdict(c) for c in result.citations],
        "context": [{"position": c.position, "document_id": c.document_id, "area_id": c.area_id,
                     "chunk_index": c.chunk_index, "page": c.page, "score": c.score} for c in result.context],
        "sources": [_found(s) for s in result.listed_sources],
        "other_sources": [_found(s) for s in result.other_matches],
        "nearest": [{**_source(s), "chunk_index": s.chunk} for s in result.nearest],
        "timings": {stage: round(seconds, 6) for stage, seconds in result.timings.items()},
    }


def _found(s: SourceView) -> dict[str, Any]:
    """Return a found source with its best passages."""
    return {**_source(s), "passages": [{"chunk_index": p.chunk_index, "page": p.page, "score": p.score,
                                        "text": p.text} for p in s.passages]}


def _source(s: SourceView) -> dict[str, Any]:
    return {"document_id": s.document_id, "name": s.name, "area": {"id": s.area_id, "name": s.area_name},
            "source_url": s.source_url, "original_path": s.original_path, "score": s.score}


def terminal_json(result: AskResult) -> dict[str, Any]:
    """Return ``answer_json`` for a terminal (``flask rag ask --json``: an operator's, so with the detail)."""
    full = answer_json(result, admin=True)
    return {
        "answer": to_terminal(full["answer"]), "search_query": full["search_query"], "llm": full["llm"],
        "extractive": full["extractive"],
        "error": " ".join(filter(None, [full["error"], full["error_detail"]])) or None,
        "sources": [_named(s) for s in full["sources"]], "other_sources": [_named(s) for s in full["other_sources"]],
        "nearest": [_named(s) for s in full["nearest"]],
        "context": [{k: c[k] for k in ("document_id", "chunk_index", "score")} for c in full["context"]],
        "timings": full["timings"], "status": full["status"], "incomplete": full["status"] == INCOMPLETE,
        "citations": full["citations"], "invalid_citations": list(result.invalid_citations),
        "unsupported": [{"sentence": u.sentence, "number": u.number} for u in result.unsupported],
    }


def _named(source: dict[str, Any]) -> dict[str, Any]:
    """Return a source as the terminal lists it: its area by name, no URLs or passages."""
    return {"document_id": source["document_id"], "name": source["name"], "area": source["area"]["name"],
            "score": source["score"]}
