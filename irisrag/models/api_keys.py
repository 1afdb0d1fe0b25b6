"""API keys: per-user keys for the JSON API, optionally limited to some of the user's areas."""
from __future__ import annotations

from peewee import AutoField, BooleanField, CharField, DateTimeField, ForeignKeyField

from irisrag.models.access import Area, User
from irisrag.models.base import BaseModel, utcnow


class ApiKey(BaseModel):
    """A key ``irk_<id>_<secret>``; only the SHA-256 of the secret is stored."""

    id = AutoField()
    user = ForeignKeyField(User, backref="api_keys", on_delete="CASCADE")
    name = CharField(max_length=150, default="")
    prefix = CharField(max_length=32)          # shown in lists: irk_<id>_<first characters>
    secret_hash = CharField(max_length=64)
    # A limited key reaches only its ApiKeyArea rows; it stays limited (to nothing) when they are deleted.
    limited = BooleanField(default=False)
    created_at = DateTimeField(default=utcnow)
    last_used_at = DateTimeField(null=True)
    revoked_at = DateTimeField(null=True)

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None


class ApiKeyArea(BaseModel):
    key = ForeignKeyField(ApiKey, backref="areas", on_delete="CASCADE")
    area = ForeignKeyField(Area, backref="api_keys", on_delete="CASCADE")

    class Meta:
        indexes = ((("key", "area"), True),)
