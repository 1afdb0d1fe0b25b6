"""Peewee base model bound to the shared database proxy."""
from __future__ import annotations

from datetime import UTC, datetime

from peewee import Model

from irisrag.extensions import db


def utcnow() -> datetime:
    """Return the current UTC time without tzinfo (portable across SQLite and PostgreSQL)."""
    return datetime.now(UTC).replace(tzinfo=None)


class BaseModel(Model):
    class Meta:
        database = db
        legacy_table_names = False
