"""Access model: User -> UserGroup -> Group -> AreaGroup -> Area (SPEC 1)."""
from __future__ import annotations

import secrets

from peewee import AutoField, BooleanField, CharField, DateTimeField, ForeignKeyField, TextField

from irisrag.models.base import BaseModel, utcnow


def new_token() -> str:
    """Return a random session token; rotating it ends every session of an account."""
    return secrets.token_urlsafe(16)


class User(BaseModel):
    id = AutoField()
    username = CharField(max_length=150, unique=True)
    password_hash = CharField(max_length=255)
    is_admin = BooleanField(default=False)
    is_active = BooleanField(default=True)
    # Part of the session cookie of each login world; rotating one ends those sessions.
    session_token = CharField(max_length=64, default=new_token)
    admin_session_token = CharField(max_length=64, default=new_token)
    created_at = DateTimeField(default=utcnow)


class Group(BaseModel):
    id = AutoField()
    name = CharField(max_length=150, unique=True)
    description = TextField(default="")
    created_at = DateTimeField(default=utcnow)


class Area(BaseModel):
    id = AutoField()
    name = CharField(max_length=150, unique=True)
    description = TextField(default="")
    created_at = DateTimeField(default=utcnow)


class UserGroup(BaseModel):
    user = ForeignKeyField(User, backref="memberships", on_delete="CASCADE")
    group = ForeignKeyField(Group, backref="memberships", on_delete="CASCADE")

    class Meta:
        indexes = ((("user", "group"), True),)


class AreaGroup(BaseModel):
    area = ForeignKeyField(Area, backref="grants", on_delete="CASCADE")
    group = ForeignKeyField(Group, backref="grants", on_delete="CASCADE")

    class Meta:
        indexes = ((("area", "group"), True),)


class LoginAttempt(BaseModel):
    """A failed login, kept for the rate limit (per account name and client address)."""

    key = CharField(max_length=300, index=True)
    address = CharField(max_length=64, index=True)
    at = DateTimeField(default=utcnow, index=True)
