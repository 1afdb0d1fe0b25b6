"""Question history and feedback: record every answered question, show users their own, prune old ones.

A user only ever reads or rates their own log entries: any other id is ``NotFound``, so
the existence of another user's question does not leak. A history entry keeps the text
of the passages it cited and the SHA-256 of their document versions, so an old answer
still shows what it cited after a document changed ("changed since"); passages of areas
the user may no longer query are not shown again.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from peewee import DatabaseError

from irisrag import components
from irisrag.errors import NotFound, ValidationError
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.models import Area, Document, Feedback, QuestionLog, User
from irisrag.models.base import utcnow
from irisrag.models.history import MAX_COMMENT_CHARS
from irisrag.rag.answer import to_html
from irisrag.rag.citations import CheckedAnswer, Unsupported, linked_html
from irisrag.services import access
from irisrag.services.answer_views import CitationView

if TYPE_CHECKING:
    from irisrag.services.answer_views import AskResult

log = logging.getLogger(__name__)

PRUNE_INTERVAL_SECONDS = 3600
HISTORY_PAGE = 50
NO_SUCH_QUESTION = N_("There is no such question in your history.")
BAD_RATING = N_("Please rate the answer with thumbs up or thumbs down.")
COMMENT_TOO_LONG = N_("The comment is too long: please use at most 2000 characters.")
ANSWER_WITHHELD = N_("This answer drew on an area you can no longer search, so it is not shown any more.")
RATINGS = {"up": 1, "+1": 1, "1": 1, "down": -1, "-1": -1}

_last_prune: float | None = None  # monotonic time of this process's last opportunistic prune


@dataclass(frozen=True)
class HistoryEntry:
    """One of the user's questions as shown in their history."""

    id: int
    question: str
    created_at: datetime
    status: str
    area_names: tuple[str, ...]
    answer_html: str
    llm: str
    extractive: bool
    citations: tuple[CitationView, ...]
    invalid_citations: tuple[int, ...]
    unsupported: tuple[Unsupported, ...]
    rating: int | None
    comment: str
    seconds: float


@dataclass(frozen=True)
class FeedbackRow:
    """A rated question for the admin's feedback list."""

    question_id: int
    username: str
    question: str
    answer: str
    llm: str
    rating: int
    comment: str
    asked_at: datetime
    rated_at: datetime
    chunk_ids: tuple[str, ...]
    invalid_citations: int
    unsupported: int


# --- recording and retention ------------------------------------------------------

def _citation_record(c: CitationView) -> dict[str, Any]:
    return {"number": c.number, "id": c.chunk_id, "document_id": c.document_id, "chunk_index": c.chunk_index,
            "sha256": c.document_sha256, "page": c.page, "area_id": c.area_id, "name": c.document_name,
            "text": c.text, "unsupported": c.unsupported}


def record(user_id: int, result: AskResult, answer_markdown: str) -> int | None:
    """Store an answered question with its chunks, scores, timings and answer; return the row id.

    A database failure is logged and gives None: losing a history row must not lose the answer.
    """
    chunks = [{"id": c.chunk_id, "position": c.position, "document_id": c.document_id,
               "chunk_index": c.chunk_index, "sha256": c.sha256, "score": c.score,
               "lexical_score": round(c.lexical_score, 4)} for c in result.context]
    flags = {"invalid": list(result.invalid_citations),
             "unsupported": [{"sentence": u.sentence, "number": u.number} for u in result.unsupported]}
    try:
        row = QuestionLog.create(
            user=user_id, question=result.question, area_ids=list(result.area_ids), status=result.status,
            answer=answer_markdown, llm=result.llm, extractive=result.extractive, chunks=chunks,
            citations=[_citation_record(c) for c in result.citations], flags=flags,
            timings={k: round(float(v), 6) for k, v in result.timings.items()},
        )
    except DatabaseError:
        log.exception("history_record_failed user=%s", user_id)
        return None
    _prune_now_and_then()
    return row.id


def retention_days() -> int:
    """Return HISTORY_RETENTION_DAYS (0: keep forever)."""
    return int(components.get().config.get("HISTORY_RETENTION_DAYS", 90))


def prune(days: int | None = None, *, now: datetime | None = None) -> int:
    """Delete questions (and their feedback) older than ``days`` (default: the setting); return how many."""
    days = retention_days() if days is None else int(days)
    if days <= 0:
        return 0
    cutoff = (now or utcnow()) - timedelta(days=days)
    with db.atomic():
        old = QuestionLog.select(QuestionLog.id).where(QuestionLog.created_at < cutoff)
        Feedback.delete().where(Feedback.question.in_(old)).execute()
        deleted = QuestionLog.delete().where(QuestionLog.created_at < cutoff).execute()
    if deleted:
        log.info("history_pruned rows=%s days=%s", deleted, days)
    return deleted


def _prune_now_and_then() -> None:
    global _last_prune
    if _last_prune is not None and time.monotonic() - _last_prune < PRUNE_INTERVAL_SECONDS:
        return
    _last_prune = time.monotonic()
    try:
        prune()
    except DatabaseError:
        log.exception("history_prune_failed")


# --- the user's own history ------------------------------------------------------

def own_question(user_id: int, question_id: int) -> QuestionLog:
    """Return a question of the user's history; another user's (or none) is NotFound."""
    row = QuestionLog.get_or_none((QuestionLog.id == question_id) & (QuestionLog.user == user_id))
    if row is None:
        raise NotFound(NO_SUCH_QUESTION, detail=f"question {question_id}")
    return row


def history_for(user_id: int, *, limit: int = HISTORY_PAGE) -> list[HistoryEntry]:
    """Return the user's own questions, newest first."""
    rows = list(QuestionLog.select().where(QuestionLog.user == user_id)
                .order_by(QuestionLog.created_at.desc(), QuestionLog.id.desc()).limit(limit))
    if not rows:
        return []
    ratings = {f.question_id: f for f in Feedback.select().where(
        Feedback.question.in_([r.id for r in rows]) & (Feedback.user == user_id))}
    area_ids = {int(a) for r in rows for a in r.area_ids}
    names = {a.id: a.name for a in Area.select(Area.id, Area.name).where(Area.id.in_(sorted(area_ids)))}
    doc_ids = {int(c["document_id"]) for r in rows for c in r.citations}
    current = {d.id: d.sha256 for d in Document.select(Document.id, Document.sha256)
               .where(Document.id.in_(sorted(doc_ids)))} if doc_ids else {}
    permitted = set(access.permitted_area_ids(user_id))
    return [_entry(r, ratings.get(r.id), names, current, permitted) for r in rows]


def _withheld_html() -> str:
    from flask_babel import gettext
    from markupsafe import escape

    return f'<p class="notice">{escape(gettext(ANSWER_WITHHELD))}</p>'


def _entry(row: QuestionLog, feedback: Feedback | None, names: dict[int, str], current: dict[int, str],
           permitted: set[int]) -> HistoryEntry:
    unsupported = tuple(Unsupported(u["sentence"], int(u["number"])) for u in row.flags.get("unsupported", []))
    invalid = tuple(int(n) for n in row.flags.get("invalid", []))
    checked = CheckedAnswer(row.answer, (), invalid, unsupported)
    html = linked_html(checked, to_html, href=lambda n: f"#q{row.id}-cite-{n}",
                       note_id=f"q{row.id}-unsupported-note") if row.answer.strip() else ""
    if html and not {int(a) for a in row.area_ids} <= permitted:
        # The answer quotes or retells passages of a searched area this user has lost: withhold it too.
        html, unsupported = _withheld_html(), ()
    return HistoryEntry(
        row.id, row.question, row.created_at, row.status,
        tuple(names.get(int(a), f"#{a}") for a in row.area_ids), html, row.llm, row.extractive,
        tuple(_citation_view(c, current, permitted) for c in row.citations), invalid, unsupported,
        feedback.rating if feedback else None, feedback.comment if feedback else "",
        float(row.timings.get("total", 0.0)),
    )


def _citation_view(c: dict[str, Any], current: dict[int, str], permitted: set[int]) -> CitationView:
    document_id, area_id = int(c["document_id"]), int(c["area_id"])
    accessible = area_id in permitted
    return CitationView(
        int(c["number"]), c["id"], document_id, int(c["chunk_index"]), c["sha256"], c.get("page"), area_id,
        c["name"] if accessible else "", c["text"] if accessible else "", bool(c.get("unsupported")),
        current.get(document_id) if accessible else None, accessible,
    )


# --- feedback ---------------------------------------------------------------------

def parse_rating(value: object) -> int:
    """Return +1 or -1 for "up"/"down" (or 1/-1); anything else is a ValidationError."""
    rating = RATINGS.get(str(value).strip().lower()) if value is not None else None
    if rating is None:
        raise ValidationError(BAD_RATING, field="rating")
    return rating


def give_feedback(user_id: int, question_id: int, rating: object, comment: str | None = "") -> Feedback:
    """Store the user's rating and comment of their own answer; a second vote replaces the first."""
    row = own_question(user_id, question_id)
    value = parse_rating(rating)
    text = (comment or "").strip()
    if len(text) > MAX_COMMENT_CHARS:
        raise ValidationError(COMMENT_TOO_LONG, detail=f"{len(text)} characters", field="comment")
    now = utcnow()
    (Feedback.insert(question=row.id, user=user_id, rating=value, comment=text, created_at=now, updated_at=now)
     .on_conflict(conflict_target=[Feedback.question, Feedback.user],
                  update={Feedback.rating: value, Feedback.comment: text, Feedback.updated_at: now})
     .execute())
    log.info("feedback question=%s user=%s rating=%s", row.id, user_id, value)
    return Feedback.get((Feedback.question == row.id) & (Feedback.user == user_id))


def negative_feedback(*, limit: int = 100) -> list[FeedbackRow]:
    """Return the most recently rated questions with a thumbs down (admins)."""
    query = (Feedback.select(Feedback, QuestionLog, User)
             .join(QuestionLog, on=(Feedback.question == QuestionLog.id))
             .switch(Feedback).join(User, on=(Feedback.user == User.id))
             .where(Feedback.rating < 0)
             .order_by(Feedback.updated_at.desc(), Feedback.id.desc()).limit(limit))
    return [_feedback_row(f) for f in query]


def _feedback_row(f: Feedback) -> FeedbackRow:
    q: QuestionLog = f.question
    return FeedbackRow(
        q.id, f.user.username, q.question, q.answer, q.llm, f.rating, f.comment, q.created_at, f.updated_at,
        _chunk_ids(q.citations), len(q.flags.get("invalid", [])), len(q.flags.get("unsupported", [])),
    )


def _chunk_ids(cited: Sequence[dict[str, Any]]) -> tuple[str, ...]:
    return tuple(f"[{c['number']}] {c['id']}" for c in cited)
