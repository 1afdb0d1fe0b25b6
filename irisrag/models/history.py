"""Conversations, their questions (turns) and answer feedback (kept for HISTORY_RETENTION_DAYS)."""
from __future__ import annotations

import json
from typing import Any

from peewee import (
    AutoField,
    BooleanField,
    CharField,
    DateTimeField,
    ForeignKeyField,
    SmallIntegerField,
    TextField,
)

from irisrag.models.access import User
from irisrag.models.base import BaseModel, utcnow

MAX_COMMENT_CHARS = 2000
TITLE_CHARS = 200


class JSONField(TextField):
    """JSON stored as text (portable across SQLite and PostgreSQL)."""

    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)


class Conversation(BaseModel):
    """A thread of questions of one user; ``updated_at`` is the time of its last question (newest first)."""

    id = AutoField()
    user = ForeignKeyField(User, backref="conversations", on_delete="CASCADE")
    title = CharField(max_length=TITLE_CHARS)
    created_at = DateTimeField(default=utcnow)
    updated_at = DateTimeField(default=utcnow, index=True)


class QuestionLog(BaseModel):
    """One asked question: who, where, what was retrieved (chunk ids, scores), the answer, timings.

    ``chunks``: the context as ``[{id, position, document_id, chunk_index, sha256, score, lexical_score}]``.
    ``citations``: ``[{number, id, document_id, chunk_index, sha256, page, area_id, name, text, unsupported}]``,
    the cited passage text kept so an old answer still shows what it cited.
    ``flags``: ``{"invalid": [numbers removed], "unsupported": [{sentence, number}], "notice": message id}``.
    ``sources``: the found sources as ``[{document_id, name, area_id, area_name, source_url, original_path, score}]``.
    ``search_query``: the retrieval query actually used (the question itself unless a follow-up was rewritten).
    """

    id = AutoField()
    user = ForeignKeyField(User, backref="questions", on_delete="CASCADE")
    # indexed by schema version 5 (create_tables must not index a column an old table lacks)
    conversation = ForeignKeyField(Conversation, backref="turns", null=True, on_delete="CASCADE", index=False)
    question = TextField()
    search_query = TextField(default="")
    area_ids = JSONField(default=list)
    status = CharField(max_length=16, default="")
    answer = TextField(default="")
    llm = CharField(max_length=255, default="")
    extractive = BooleanField(default=False)
    chunks = JSONField(default=list)
    citations = JSONField(default=list)
    sources = JSONField(default=list)
    flags = JSONField(default=dict)
    timings = JSONField(default=dict)
    created_at = DateTimeField(default=utcnow, index=True)


class Feedback(BaseModel):
    """A thumbs up (+1) or down (-1) with an optional comment; one per question and user."""

    id = AutoField()
    question = ForeignKeyField(QuestionLog, backref="feedback", on_delete="CASCADE")
    user = ForeignKeyField(User, backref="feedback", on_delete="CASCADE")
    rating = SmallIntegerField()
    comment = TextField(default="")
    created_at = DateTimeField(default=utcnow, index=True)
    updated_at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("question", "user"), True),)
