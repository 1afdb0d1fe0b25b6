"""Documents (SPEC 2): metadata and import status; chunks live in LanceDB.

The status moves only through the transition methods below (nothing else writes it):

    queued -> fetching -> extracting -> chunking -> embedding -> done | unchanged | failed
    any running status -> failed | cancelled;   done | unchanged | failed | cancelled -> queued

Each transition is one conditional UPDATE (``WHERE status IN`` the states it may leave), so
two processes never both win: a job whose row was cancelled or failed meanwhile changes
nothing and learns it from the returned count.
"""
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
from irisrag.models.sources import Source

# Stages in order; the last four are final.
STATUSES = ("queued", "fetching", "extracting", "chunking", "embedding", "done", "unchanged", "failed", "cancelled")
RUNNING = ("queued", "fetching", "extracting", "chunking", "embedding")
WORKING = ("fetching", "extracting", "chunking", "embedding")
FINAL = ("done", "unchanged", "failed", "cancelled")
# status -> the statuses it may be entered from. A fetch retried by RQ enters fetching from failed.
ENTERED_FROM = {
    "queued": ("queued", *FINAL),
    "fetching": ("queued", "fetching", "failed"),
    **{stage: RUNNING for stage in ("extracting", "chunking", "embedding")},
    **{final: RUNNING for final in FINAL if final != "failed"},
    "failed": RUNNING,
}


class Document(BaseModel):
    id = AutoField()
    area = ForeignKeyField(Area, backref="documents", on_delete="RESTRICT")
    name = CharField(max_length=255)
    directory = CharField(max_length=1024, default="")
    kind = CharField(max_length=16, default="")
    title = CharField(max_length=255, default="")  # a fetched page's title, shown instead of the staged name
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
    # Sources (issue 40): the source a sync keeps this document current from, and what the sync
    # needs to ask its server "changed since?" (ETag, Last-Modified) and to crawl an unchanged page.
    source = ForeignKeyField(Source, null=True, backref="documents", on_delete="SET NULL", index=False)
    etag = TextField(null=True)
    last_modified = TextField(null=True)
    links = TextField(null=True)  # a crawled page's links (JSON list), followed again when it is unchanged (304)
    removed_at = DateTimeField(null=True)  # gone at its source (404/410, file removed); deleted after the grace
    created_at = DateTimeField(default=utcnow)
    updated_at = DateTimeField(default=utcnow)

    class Meta:
        # Identity includes the area: a same-named file of another area is another document.
        indexes = ((("area", "directory", "name"), True),)

    @property
    def display_name(self) -> str:
        """Return the name to show: a web page's title, else the file name."""
        return self.title or self.name

    @property
    def is_running(self) -> bool:
        return self.status in RUNNING

    @property
    def short_hash(self) -> str:
        return (self.sha256 or "")[:8]

    @property
    def is_cancellable(self) -> bool:
        return self.status in RUNNING

    # --- status transitions (the only writers of ``status``) ---------------------------

    @classmethod
    def _move(cls, status: str, where, **fields) -> int:
        """Set ``status`` (and fields) on the rows matching ``where`` that may enter it; return how many."""
        allowed = cls.status.in_(ENTERED_FROM[status])
        return cls.update(status=status, updated_at=utcnow(), **fields).where(where & allowed).execute()

    @classmethod
    def mark_queued(cls, document_id: int) -> bool:
        """Queue a document again (a new import, retry or rebuild); refused while a job works on it."""
        return bool(cls._move("queued", cls.id == document_id, progress_done=0, progress_total=0, error=None,
                              error_detail=None))

    @classmethod
    def mark_stage(cls, document_id: int, stage: str, done: int = 0, total: int = 0) -> bool:
        """Record a job's stage and progress; False when the row is no longer running (cancelled, failed)."""
        if stage not in WORKING:
            raise ValueError(f"not a working stage: {stage!r}")
        return bool(cls._move(stage, cls.id == document_id, progress_done=done, progress_total=total))

    @classmethod
    def mark_finished(cls, document_id: int, status: str, **result) -> bool:
        """Record a job's result (``done`` or ``unchanged``) with its hash, size and chunk count."""
        if status not in ("done", "unchanged"):
            raise ValueError(f"not a result: {status!r}")
        return bool(cls._move(status, cls.id == document_id, error=None, error_detail=None, **result))

    @classmethod
    def mark_failed(cls, document_id: int, message: str, detail: str = "") -> bool:
        """Record a failure of a running import (a cancelled row stays cancelled)."""
        return bool(cls._move("failed", cls.id == document_id, error=message, error_detail=detail))

    @classmethod
    def fail_where(cls, where, message: str, detail: str = "") -> int:
        """Fail every running import matching ``where`` (stale, lost, restored); return how many."""
        return cls._move("failed", where, error=message, error_detail=detail)

    @classmethod
    def holder_of(cls, area_id: int, sha256: str, newer_than: int) -> Document | None:
        """Return the earliest imported document of the area with this content, older than ``newer_than``."""
        return (cls.select().where((cls.area == area_id) & (cls.sha256 == sha256) & (cls.id < newer_than)
                                   & cls.status.in_(("done", "unchanged"))).order_by(cls.id).first())

    @classmethod
    def mark_cancelled(cls, document_id: int, detail: str = "") -> bool:
        """Cancel a queued or running import; its old chunks stay."""
        return bool(cls._move("cancelled", cls.id == document_id, error=None, error_detail=detail or None))
