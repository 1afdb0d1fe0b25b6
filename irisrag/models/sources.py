"""Sources (issue 40): a web page, a website section or a source-volume folder kept in sync with an area.

A ``Source`` says where documents come from and how often they are synced; each sync is a
``SyncRun`` with its ledger (new, changed, unchanged, removed, failed). Documents name their
source (``Document.source``, nullable: documents imported by hand have none).
"""
from __future__ import annotations

from datetime import timedelta

from peewee import AutoField, CharField, DateTimeField, ForeignKeyField, IntegerField, TextField

from irisrag.models.access import Area
from irisrag.models.base import BaseModel, utcnow

KINDS = ("url", "site", "folder")
INTERVALS: dict[str, timedelta | None] = {
    "off": None, "hourly": timedelta(hours=1), "daily": timedelta(days=1), "weekly": timedelta(weeks=1),
}
RUN_STATES = ("running", "done", "failed", "interrupted")
COUNTS = ("new", "changed", "unchanged", "removed", "failed")


class Source(BaseModel):
    id = AutoField()
    area = ForeignKeyField(Area, backref="sources", on_delete="CASCADE")  # an area deleted takes its sources along
    kind = CharField(max_length=16)
    start_url = TextField(default="")     # url and site
    url_prefix = TextField(default="")    # site: the section the crawl stays within
    depth = IntegerField(default=3)       # site: links followed from the start page
    page_limit = IntegerField(default=200)  # site: pages fetched per run at most
    folder_path = TextField(default="")   # folder: relative to the source volume
    interval = CharField(max_length=16, default="off")
    last_run_at = DateTimeField(null=True)
    next_due_at = DateTimeField(null=True, index=True)  # None: no scheduled sync
    created_at = DateTimeField(default=utcnow)

    @property
    def label(self) -> str:
        """What the source is, in one line: its URL or its folder."""
        return self.folder_path if self.kind == "folder" else self.start_url

    def schedule_from(self, moment) -> None:
        """Set the next due time from ``moment`` by the interval (None when off)."""
        step = INTERVALS.get(self.interval)
        self.next_due_at = moment + step if step else None


class SyncRun(BaseModel):
    id = AutoField()
    source = ForeignKeyField(Source, backref="runs", on_delete="CASCADE")
    state = CharField(max_length=16, default="running")
    started_at = DateTimeField(default=utcnow)
    finished_at = DateTimeField(null=True)
    new = IntegerField(default=0)
    changed = IntegerField(default=0)
    unchanged = IntegerField(default=0)
    removed = IntegerField(default=0)
    failed = IntegerField(default=0)
    deleted = IntegerField(default=0)    # removed earlier, deleted now (the grace period passed)
    requests = IntegerField(default=0)   # fetches made (robots.txt and sitemap included; a redirect is one)
    fetched_bytes = IntegerField(default=0)
    duration_ms = IntegerField(default=0)
    current = TextField(default="")      # the page or file being synced (live progress)
    note = TextField(default="")         # why a run stopped early (a limit) or failed
    job_id = CharField(max_length=128, default="")

    @property
    def is_running(self) -> bool:
        return self.state == "running"

    @property
    def total(self) -> int:
        return self.new + self.changed + self.unchanged + self.removed + self.failed
