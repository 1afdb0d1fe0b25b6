"""Question history and answer feedback (kept for HISTORY_RETENTION_DAYS)."""
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


class JSONField(TextField):
    """JSON stored as text (portable across SQLite and PostgreSQL)."""

    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)


class QuestionLog(BaseModel):
    """One asked question: who, where, what was retrieved (chunk ids, scores), the answer, timings.

    ``chunks``: the context as ``[{id, position, document_id, chunk_index, sha256, score, lexical_score}]``.
    ``citations``: ``[{number, id, document_id, chunk_index, sha256, page, area_id, name, text, unsupported}]``,
    the cited passage text kept so an old answer still shows what it cited.
    ``flags``: ``{"invalid": [numbers removed], "unsupported": [{sentence, number}]}``.
    """

    id = AutoField()
    user = ForeignKeyField(User, backref="questions", on_delete="CASCADE")
    question = TextField()
    area_ids = JSONField(default=list)
    status = CharField(max_length=16, default="")
    answer = TextField(default="")
    llm = CharField(max_length=255, default="")
    extractive = BooleanField(default=False)
    chunks = JSONField(default=list)
    citations = JSONField(default=list)
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
