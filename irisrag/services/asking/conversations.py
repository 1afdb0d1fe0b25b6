"""Conversations: a user's threads of questions, listed newest first, searched, renamed, deleted, continued.

A conversation is only ever visible to its owner: every function takes the user id and
treats another user's conversation exactly like a missing one (``NotFound``), so ids
cannot be probed. Turns are shown by ``services.turns`` (answers of areas the user has
lost are withheld, and never reused as context for a follow-up).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from irisrag.errors import NotFound, ValidationError
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.ids import page_number
from irisrag.models import Conversation, Feedback, QuestionLog
from irisrag.models.history import TITLE_CHARS
from irisrag.rag.answer_types import AskResult
from irisrag.rag.followup import PreviousTurn
from irisrag.services import access
from irisrag.services.asking.turns import Turn, is_withheld, turns_of

PAGE_SIZE = 50
PREVIOUS_TURNS = 3  # earlier turns handed to a follow-up (the prompt budget drops the oldest first)
NO_SUCH_CONVERSATION = N_("There is no such conversation.")
EMPTY_TITLE = N_("Please enter a title.")
TITLE_TOO_LONG = N_("The title is too long: please use at most 200 characters.")


@dataclass(frozen=True)
class Summary:
    """A conversation as listed in the sidebar."""

    id: int
    title: str
    updated_at: datetime


@dataclass(frozen=True)
class Listing:
    """One page of the user's conversations, newest first."""

    items: tuple[Summary, ...]
    query: str
    page: int
    has_more: bool


@dataclass(frozen=True)
class Thread:
    """A conversation with its turns, oldest first."""

    id: int
    title: str
    created_at: datetime
    updated_at: datetime
    turns: tuple[Turn, ...]


def own(user_id: int, conversation_id: int) -> Conversation:
    """Return the user's conversation; another user's (or none) is NotFound."""
    row = Conversation.get_or_none((Conversation.id == conversation_id) & (Conversation.user == user_id))
    if row is None:
        raise NotFound(NO_SUCH_CONVERSATION, detail=f"conversation {conversation_id}")
    return row


def _turn_rows(conversation_id: int):
    return (QuestionLog.select().where(QuestionLog.conversation == conversation_id)
            .order_by(QuestionLog.created_at, QuestionLog.id))


def thread(user_id: int, conversation_id: int) -> Thread:
    """Return the user's conversation with all its turns."""
    row = own(user_id, conversation_id)
    turns = turns_of(user_id, list(_turn_rows(row.id)))
    return Thread(row.id, row.title, row.created_at, row.updated_at, tuple(turns))


def listing(user_id: int, query: str = "", page: int = 1) -> Listing:
    """Return a page of the user's conversations, newest first; ``query`` searches their titles and questions."""
    page, query = page_number(page), (query or "").strip()[:TITLE_CHARS]
    rows = Conversation.select(Conversation.id, Conversation.title, Conversation.updated_at).where(
        Conversation.user == user_id)
    if query:
        asked = QuestionLog.select(QuestionLog.conversation).where(
            (QuestionLog.user == user_id) & QuestionLog.question.contains(query))
        rows = rows.where(Conversation.title.contains(query) | Conversation.id.in_(asked))
    rows = list(rows.order_by(Conversation.updated_at.desc(), Conversation.id.desc())
                .offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE + 1))
    items = tuple(Summary(r.id, r.title, r.updated_at) for r in rows[:PAGE_SIZE])
    return Listing(items, query, page, len(rows) > PAGE_SIZE)


def rename(user_id: int, conversation_id: int, title: str | None) -> Conversation:
    """Give the user's conversation a new title (1 to 200 characters)."""
    row = own(user_id, conversation_id)
    text = " ".join((title or "").split())
    if not text:
        raise ValidationError(EMPTY_TITLE, field="title")
    if len(text) > TITLE_CHARS:
        raise ValidationError(TITLE_TOO_LONG, detail=f"{len(text)} characters", field="title")
    row.title = text
    row.save(only=[Conversation.title])
    return row


def delete(user_id: int, conversation_id: int) -> None:
    """Delete the user's conversation with its questions and their feedback."""
    row = own(user_id, conversation_id)
    with db.atomic():
        turns = QuestionLog.select(QuestionLog.id).where(QuestionLog.conversation == row.id)
        Feedback.delete().where(Feedback.question.in_(turns)).execute()
        QuestionLog.delete().where(QuestionLog.conversation == row.id).execute()
        row.delete_instance()


def previous_turns(user_id: int, conversation_id: int, *, limit: int = PREVIOUS_TURNS) -> list[PreviousTurn]:
    """Return the last answered turns a follow-up may refer to, oldest first; withheld answers are left out."""
    row = own(user_id, conversation_id)
    permitted = set(access.permitted_area_ids(user_id))
    rows = (QuestionLog.select().where((QuestionLog.conversation == row.id) & (QuestionLog.answer != ""))
            .order_by(QuestionLog.created_at.desc(), QuestionLog.id.desc()).limit(limit))
    return [PreviousTurn(r.question, r.answer, cited_documents(r)) for r in reversed(list(rows))
            if not is_withheld(r, permitted)]


def cited_documents(row: QuestionLog) -> tuple[int, ...]:
    """Return the documents a recorded answer cites, in citation order, each once."""
    found = [c.get("document_id") for c in row.citations or [] if isinstance(c, dict)]
    return tuple(dict.fromkeys(int(d) for d in found if isinstance(d, int)))


def conversation_of(user_id: int, question_id: int) -> int:
    """Return the conversation of the user's recorded question."""
    row = QuestionLog.get_or_none((QuestionLog.id == question_id) & (QuestionLog.user == user_id))
    if row is None or row.conversation_id is None:
        raise NotFound(NO_SUCH_CONVERSATION, detail=f"question {question_id}")
    return row.conversation_id


def shown_turn(user_id: int, result: AskResult) -> AskResult:
    """Return an answer just given as its recorded turn (with the live details), or itself when not recorded."""
    if result.question_id is None:
        return result
    [turn] = turns_of(user_id, [QuestionLog.get_by_id(result.question_id)])
    return replace(turn, error=result.error, error_detail=result.error_detail,
                   retrieval_detail=result.retrieval_detail, omitted=result.omitted,
                   notice=result.notice or turn.notice)
