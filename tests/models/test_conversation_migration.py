"""Schema version 5: every question belongs to a conversation; an old history becomes one-turn conversations."""
from datetime import datetime

import pytest
from peewee import BooleanField, CharField, DateTimeField, ForeignKeyField, TextField

from irisrag.extensions import db
from irisrag.models import Conversation, Feedback, QuestionLog, User
from irisrag.models.base import BaseModel, utcnow
from irisrag.models.history import JSONField
from irisrag.models.schema import SchemaVersion, current_version, upgrade
from tests.conftest import make_app


@pytest.fixture
def conn(tmp_path, any_database_url, redis_url):
    app = make_app(tmp_path, any_database_url, redis_url)
    with app.app_context(), db.connection_context():
        yield


class QuestionLogV4(BaseModel):
    """The question_log table as version 4 had it (no conversation, search query or sources)."""

    user = ForeignKeyField(User, on_delete="CASCADE")
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

    class Meta:
        table_name = "question_log"


def as_version_4() -> None:
    """Turn the fresh schema back into version 4: no conversation table, no new question_log columns."""
    db.drop_tables([Feedback, QuestionLog, Conversation])
    db.create_tables([QuestionLogV4])
    db.create_tables([Feedback])
    SchemaVersion.delete().where(SchemaVersion.version >= 5).execute()


def old_question(user_id: int, text: str, when: str) -> int:
    return QuestionLogV4.create(user=user_id, question=text, area_ids=[1], status="answered", answer="Antwort [1].",
                                created_at=datetime.fromisoformat(when)).id


def test_upgrade_makes_each_old_question_a_conversation_and_keeps_its_feedback(conn):
    as_version_4()
    alice, bob = User.create(username="alice", password_hash="x"), User.create(username="bob", password_hash="x")
    first = old_question(alice.id, "Wie lange gilt " + "x" * 300, "2026-01-02 10:00:00")
    second = old_question(bob.id, "Wo ist die Kantine?", "2026-01-03 11:00:00")
    db.execute_sql(f"INSERT INTO feedback (question_id, user_id, rating, comment, created_at, updated_at) "
                   f"VALUES ({first}, {alice.id}, -1, 'falsch', '2026-01-02 10:05:00', '2026-01-02 10:05:00')")
    assert (current_version(), upgrade()) == (4, (4, 6))
    for qid, user in ((first, alice), (second, bob)):
        row = QuestionLog.get_by_id(qid)
        conversation = Conversation.get_by_id(row.conversation_id)
        assert conversation.user_id == user.id and conversation.title == row.question[:200]
        assert conversation.updated_at == row.created_at and row.search_query == "" and row.sources == []
    assert Feedback.get().question_id == first and Feedback.get().comment == "falsch"
    # the id sequence moved past the given ids: a new conversation gets a fresh one
    assert Conversation.create(user=alice, title="neu").id > max(first, second)
    assert "question_log_conversation_id" in {index.name for index in db.get_indexes("question_log")}
    assert upgrade() == (6, 6)
