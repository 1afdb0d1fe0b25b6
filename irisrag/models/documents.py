"""Documents (SPEC 2): metadata and import status; chunks live in LanceDB."""
from __future__ import annotations

from peewee import (
    AutoField,
    BigIntegerField,
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    TextField,
)

from irisrag.models.access import Area
from irisrag.models.base import BaseModel, utcnow

# Stages in order; the last three are final.
STATUSES = ("queued", "fetching", "extracting", "chunking", "embedding", "done", "unchanged", "failed")
RUNNING = ("queued", "fetching", "extracting", "chunking", "embedding")


class Document(BaseModel):
    id = AutoField()
    area = ForeignKeyField(Area, backref="documents", on_delete="RESTRICT")
    name = CharField(max_length=255)
    directory = CharField(max_length=1024, default="")
    kind = CharField(max_length=16, default="")
    sha256 = CharField(max_length=64, default="")
    size_bytes = BigIntegerField(default=0)
    source_url = TextField(null=True)
    original_path = TextField(null=True)
    status = CharField(max_length=16, default="queued", index=True)
    progress_done = IntegerField(default=0)
    progress_total = IntegerField(default=0)
    error = TextField(null=True)
    error_detail = TextField(null=True)
    chunk_count = IntegerField(default=0)
    embedder_key = CharField(max_length=128, default="")
    imported_at = DateTimeField(null=True)
    created_at = DateTimeField(default=utcnow)
    updated_at = DateTimeField(default=utcnow)

    class Meta:
        # Identity includes the area: a same-named file of another area is another document.
        indexes = ((("area", "directory", "name"), True),)

    @property
    def is_running(self) -> bool:
        return self.status in RUNNING

    @property
    def short_hash(self) -> str:
        return (self.sha256 or "")[:8]
