"""Stored questions (turns) as shown again: the answer, its citations and sources, withheld where access was lost.

A turn keeps the text of the passages it cited and the SHA-256 of their document versions,
so an old answer still shows what it cited after a document changed ("changed since").
The rule for areas the user may no longer query: their passages, names and sources are
not shown again, and an answer that drew on such an area (any of its searched areas) is
withheld as a whole, since it quotes or retells them.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from irisrag.models import Area, Document, Feedback, QuestionLog
from irisrag.rag.answer_types import ANSWER_WITHHELD, AskResult, CitationView, SourceView
from irisrag.rag.citations import Unsupported
from irisrag.services import access

__all__ = ["ANSWER_WITHHELD", "Turn", "is_withheld", "source_record", "turns_of"]

Turn = AskResult  # a stored turn is an answer read back from the history (created_at set)


@dataclass(frozen=True)
class _Lookups:
    """What showing a batch of turns needs to know once: feedback, area names, current hashes, permitted areas."""

    ratings: dict[int, Feedback]
    names: dict[int, str]
    current: dict[int, str]
    permitted: set[int]


def turns_of(user_id: int, rows: Sequence[QuestionLog]) -> list[Turn]:
    """Return the user's own rows as turns, in the given order, withholding what their areas no longer allow."""
    if not rows:
        return []
    lookups = _lookups(user_id, rows)
    return [_turn(r, lookups) for r in rows]


def _lookups(user_id: int, rows: Sequence[QuestionLog]) -> _Lookups:
    ratings = {f.question_id: f for f in Feedback.select().where(
        Feedback.question.in_([r.id for r in rows]) & (Feedback.user == user_id))}
    area_ids = {int(a) for r in rows for a in r.area_ids}
    names = {a.id: a.name for a in Area.select(Area.id, Area.name).where(Area.id.in_(sorted(area_ids)))}
    doc_ids = {int(c["document_id"]) for r in rows for c in r.citations}
    current = {d.id: d.sha256 for d in Document.select(Document.id, Document.sha256)
               .where(Document.id.in_(sorted(doc_ids)))} if doc_ids else {}
    return _Lookups(ratings, names, current, set(access.permitted_area_ids(user_id)))


def is_withheld(row: QuestionLog, permitted: set[int]) -> bool:
    """Tell whether the row's answer drew on an area outside ``permitted`` (then it is not shown, nor reused)."""
    return not {int(a) for a in row.area_ids} <= permitted


def _turn(row: QuestionLog, lookups: _Lookups) -> Turn:
    withheld = bool(row.answer.strip()) and is_withheld(row, lookups.permitted)
    unsupported = () if withheld else tuple(Unsupported(u["sentence"], int(u["number"]))
                                            for u in row.flags.get("unsupported", []))
    feedback = lookups.ratings.get(row.id)
    return Turn(
        row.question, tuple(int(a) for a in row.area_ids), row.status, row.answer, row.answer, row.llm,
        row.extractive, row.flags.get("notice"),
        citations=tuple(_citation_view(c, lookups.current, lookups.permitted) for c in row.citations),
        invalid_citations=tuple(int(n) for n in row.flags.get("invalid", [])), unsupported=unsupported,
        sources=tuple(_source_view(s) for s in row.sources if int(s["area_id"]) in lookups.permitted),
        timings=dict(row.timings), question_id=row.id,
        search_query=row.search_query or row.question, created_at=row.created_at,
        area_names=tuple(lookups.names.get(int(a), f"#{a}") for a in row.area_ids),
        rating=feedback.rating if feedback else None, comment=feedback.comment if feedback else "",
        withheld=withheld,
        nearest=tuple(_source_view(s) for s in row.flags.get("nearest", []) if int(s["area_id"]) in lookups.permitted),
    )


def _citation_view(c: dict[str, Any], current: dict[int, str], permitted: set[int]) -> CitationView:
    document_id, area_id = int(c["document_id"]), int(c["area_id"])
    accessible = area_id in permitted
    return CitationView(
        int(c["number"]), c["id"], document_id, int(c["chunk_index"]), c["sha256"], c.get("page"), area_id,
        c["name"] if accessible else "", c["text"] if accessible else "", bool(c.get("unsupported")),
        current.get(document_id) if accessible else None, accessible,
    )


def _source_view(s: dict[str, Any]) -> SourceView:
    return SourceView(int(s["document_id"]), s["name"], int(s["area_id"]), s["area_name"], s.get("source_url"),
                      s.get("original_path"), float(s.get("score", 0.0)), (), s.get("chunk"))


def source_record(s: SourceView) -> dict[str, Any]:
    """Return a found source as stored with its turn (its passages are not kept)."""
    return {"document_id": s.document_id, "name": s.name, "area_id": s.area_id, "area_name": s.area_name,
            "source_url": s.source_url, "original_path": s.original_path, "score": s.score,
            **({"chunk": s.chunk} if s.chunk is not None else {})}
