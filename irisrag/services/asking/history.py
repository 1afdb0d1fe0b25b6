"""Question history and feedback: record every answered question in a conversation, rate answers, prune old ones.

Every recorded question is a turn of a conversation (a new one unless the caller continues
one of the same user's). A user only ever rates their own questions: any other id is
``NotFound``, so the existence of another user's question does not leak. How a stored turn
is shown again (and withheld) is ``services.turns``; conversations are ``services.conversations``.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from peewee import DatabaseError

from irisrag import components
from irisrag.errors import NotFound, ValidationError
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.models import Conversation, Feedback, QuestionLog, User
from irisrag.models.base import utcnow
from irisrag.models.history import MAX_COMMENT_CHARS, TITLE_CHARS
from irisrag.rag.answer_types import CitationView
from irisrag.services.asking.turns import source_record

if TYPE_CHECKING:
    from irisrag.rag.answer_types import AskResult

log = logging.getLogger(__name__)

NO_SUCH_QUESTION = N_("There is no such question in your history.")
BAD_RATING = N_("Please rate the answer with thumbs up or thumbs down.")
COMMENT_TOO_LONG = N_("The comment is too long: please use at most 2000 characters.")
RATINGS = {"up": 1, "+1": 1, "1": 1, "down": -1, "-1": -1}


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


def _fields(result: AskResult, answer_markdown: str) -> dict[str, Any]:
    chunks = [{"id": c.chunk_id, "position": c.position, "document_id": c.document_id,
               "chunk_index": c.chunk_index, "sha256": c.sha256, "score": c.score,
               "lexical_score": round(c.lexical_score, 4)} for c in result.context]
    flags = {"invalid": list(result.invalid_citations),
             "unsupported": [{"sentence": u.sentence, "number": u.number} for u in result.unsupported],
             **({"notice": result.notice} if result.notice else {}),
             **({"nearest": [source_record(s) for s in result.nearest]} if result.nearest else {})}
    return dict(question=result.question, search_query=result.search_query or result.question,
                area_ids=list(result.area_ids), status=result.status, answer=answer_markdown, llm=result.llm,
                extractive=result.extractive, chunks=chunks, citations=[_citation_record(c) for c in result.citations],
                sources=[source_record(s) for s in result.sources], flags=flags,
                timings={k: round(float(v), 6) for k, v in result.timings.items()})


def _conversation(user_id: int, conversation_id: int | None, question: str) -> Conversation:
    """Return the user's conversation to continue (its time moved on), or a new one titled by the question."""
    now = utcnow()
    if conversation_id is not None:
        updated = (Conversation.update(updated_at=now)
                   .where((Conversation.id == conversation_id) & (Conversation.user == user_id)).execute())
        if updated:
            return Conversation.get_by_id(conversation_id)
        log.warning("conversation_not_continued id=%s user=%s", conversation_id, user_id)
    return Conversation.create(user=user_id, title=question[:TITLE_CHARS], created_at=now, updated_at=now)


def record(user_id: int, result: AskResult, answer_markdown: str, *, conversation_id: int | None = None) -> int | None:
    """Store an answered question with its chunks, scores, sources, timings and answer; return the row id.

    The question continues the user's ``conversation_id``, or starts a conversation. A
    database failure is logged and gives None: losing a history row must not lose the answer.
    """
    try:
        with db.atomic():
            conversation = _conversation(user_id, conversation_id, result.question)
            row = QuestionLog.create(user=user_id, conversation=conversation, **_fields(result, answer_markdown))
    except DatabaseError:
        log.exception("history_record_failed user=%s", user_id)
        return None
    return row.id


def retention_days() -> int:
    """Return HISTORY_RETENTION_DAYS (0: keep forever)."""
    return int(components.get().config.get("HISTORY_RETENTION_DAYS", 90))


def prune(days: int | None = None, *, now: datetime | None = None) -> int:
    """Delete questions (and their feedback) older than ``days`` (default: the setting); return how many.

    A conversation left without questions is deleted with them.
    """
    days = retention_days() if days is None else int(days)
    if days <= 0:
        return 0
    cutoff = (now or utcnow()) - timedelta(days=days)
    with db.atomic():
        old = QuestionLog.select(QuestionLog.id).where(QuestionLog.created_at < cutoff)
        Feedback.delete().where(Feedback.question.in_(old)).execute()
        deleted = QuestionLog.delete().where(QuestionLog.created_at < cutoff).execute()
        kept = QuestionLog.select(QuestionLog.conversation).where(QuestionLog.conversation.is_null(False))
        Conversation.delete().where(Conversation.id.not_in(kept)).execute()
    if deleted:
        log.info("history_pruned rows=%s days=%s", deleted, days)
    return deleted


# --- the user's own questions -------------------------------------------------------

def own_question(user_id: int, question_id: int) -> QuestionLog:
    """Return a question of the user's history; another user's (or none) is NotFound."""
    row = QuestionLog.get_or_none((QuestionLog.id == question_id) & (QuestionLog.user == user_id))
    if row is None:
        raise NotFound(NO_SUCH_QUESTION, detail=f"question {question_id}")
    return row


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
