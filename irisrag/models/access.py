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
    # "local" (password), or the single sign-on that created it ("ldap", "oidc"): such an
    # account has no password and is found again by ``external_id`` (login name / subject).
    auth_source = CharField(max_length=16, default="local")
    external_id = CharField(max_length=300, null=True, index=True)

    @property
    def is_external(self) -> bool:
        return self.auth_source != "local"


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
    # Set by a directory sign-in (mapped group); such a membership ends when the directory drops it.
    via_directory = BooleanField(default=False)

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


class DirectoryGroupMapping(BaseModel):
    """A directory group (LDAP DN, OIDC group claim value) that puts its members into a group or makes them admins."""

    provider = CharField(max_length=16)  # "ldap" | "oidc"
    external_group = CharField(max_length=500)
    group = ForeignKeyField(Group, null=True, backref="directory_mappings", on_delete="CASCADE")
    grants_admin = BooleanField(default=False)
    created_at = DateTimeField(default=utcnow)
