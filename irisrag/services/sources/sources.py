"""Sources (issue 40 item 1): create, change, delete and list them; the web, the CLI and the jobs call these.

Every input is checked here, before anything is stored: a source's URL passes the address
guard as an import's would, a website section's prefix holds its start page, a folder lies
inside the source volume.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from irisrag import components
from irisrag.errors import NotFound, ValidationError
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.ingest.crawl import normalise
from irisrag.ingest.fetch import precheck_url
from irisrag.ingest.stage import volume_root
from irisrag.models import Area, Document, Source, SyncRun
from irisrag.models.base import utcnow
from irisrag.models.sources import INTERVALS, KINDS
from irisrag.services.admin.admin import get as get_named

MAX_URL_LENGTH = 2048
MAX_DEPTH = 20
MAX_PAGE_LIMIT = 10_000
RUNS_SHOWN = 20


@dataclass(frozen=True)
class SourceInput:
    """What an admin enters for a source (the form, the CLI); checked by ``checked``."""

    kind: str
    start_url: str = ""
    url_prefix: str = ""
    depth: int = 3
    page_limit: int = 200
    folder_path: str = ""
    interval: str = "off"


def get_source(source_id: int) -> Source:
    """Return a source or raise NotFound."""
    source = Source.get_or_none(Source.id == source_id)
    if source is None:
        raise NotFound(N_("There is no source with id %(id)s."), params={"id": source_id})
    return source


def list_sources(area_id: int | None = None) -> list[Source]:
    query = Source.select(Source, Area).join(Area).order_by(Area.name, Source.id)
    return list(query.where(Source.area == area_id) if area_id else query)


def create_source(area_ident: int | str, entered: SourceInput) -> Source:
    """Check and store a new source of an area (its first sync is the caller's next step)."""
    area = get_named(Area, area_ident)
    fields = checked(entered)
    source = Source(area=area, **fields)
    source.schedule_from(utcnow())
    source.save()
    return source


def update_source(source_id: int, entered: SourceInput) -> Source:
    """Change a source (its kind stays); a new interval counts from now."""
    source = get_source(source_id)
    fields = checked(SourceInput(**{**entered.__dict__, "kind": source.kind}))
    interval_changed = fields["interval"] != source.interval
    for key, value in fields.items():
        setattr(source, key, value)
    if interval_changed:
        source.schedule_from(utcnow())
    source.save()
    return source


def delete_source(source_id: int) -> str:
    """Delete a source and its runs; its documents stay (imported, no longer synced)."""
    source = get_source(source_id)
    with db.atomic():
        Document.update(source=None).where(Document.source == source.id).execute()
        source.delete_instance()
    return source.label


def source_documents(source_id: int) -> list[Document]:
    return list(Document.select().where(Document.source == source_id).order_by(Document.source_url, Document.name))


def source_runs(source_id: int, limit: int = RUNS_SHOWN) -> list[SyncRun]:
    return list(SyncRun.select().where(SyncRun.source == source_id).order_by(SyncRun.id.desc()).limit(limit))


def checked(entered: SourceInput) -> dict:
    """Return the fields of a valid source, or raise ValidationError naming the field."""
    if entered.kind not in KINDS:
        raise ValidationError(N_("Please choose the kind of source."), repr(entered.kind), "kind")
    if entered.interval not in INTERVALS:
        raise ValidationError(N_("Please choose how often the source is synced."), repr(entered.interval), "interval")
    fields = {"kind": entered.kind, "interval": entered.interval}
    if entered.kind == "folder":
        return {**fields, "folder_path": checked_folder(entered.folder_path)}
    start = checked_url(entered.start_url, "start_url")
    if entered.kind == "url":
        return {**fields, "start_url": start}
    return {**fields, "start_url": start, "url_prefix": checked_prefix(entered.url_prefix, start),
            "depth": _bounded(entered.depth, 0, MAX_DEPTH, "depth"),
            "page_limit": _bounded(entered.page_limit, 1, MAX_PAGE_LIMIT, "page_limit")}


def checked_url(text: str, field: str) -> str:
    """Return a web address normalised, refused by the address rules as an import's would be."""
    text = (text or "").strip()
    url = normalise(text) if len(text) <= MAX_URL_LENGTH else None
    if url is None or not text.lower().startswith(("http://", "https://")):
        raise ValidationError(N_("Please enter a web address starting with http:// or https://."), repr(text[:200]),
                              field)
    precheck_url(url, components.get().config["URL_ALLOWLIST"])
    return url


def checked_prefix(text: str, start: str) -> str:
    """Return the section's prefix (default: the start page's folder); it must hold the start page."""
    if not (text or "").strip():
        parts = urlsplit(start)
        return f"{parts.scheme}://{parts.netloc}{parts.path.rsplit('/', 1)[0]}/"
    prefix = checked_url(text, "url_prefix")
    if not start.startswith(prefix):
        raise ValidationError(N_("The start page must lie within the URL prefix."), f"{start} not in {prefix}",
                              "url_prefix")
    return prefix


def checked_folder(text: str) -> str:
    """Return a folder path relative to the source volume; refuse one outside it or missing."""
    text = (text or "").strip().strip("/")
    root = volume_root(components.get().config["SRC_VOLUME_PATH"])
    rel = PurePosixPath(text.replace("\\", "/"))
    if "\x00" in text or rel.is_absolute() or ".." in rel.parts:
        raise ValidationError(N_("Give the folder relative to the source volume, without '..'."), repr(text[:200]),
                              "folder_path")
    folder = (root / Path(*rel.parts)).resolve() if text else root
    if not folder.is_relative_to(root) or not folder.is_dir():
        raise ValidationError(N_("There is no folder %(path)s in the source volume."), str(folder), "folder_path",
                              params={"path": text or "/"})
    return text


def _bounded(value: int, low: int, high: int, field: str) -> int:
    if not isinstance(value, int) or not low <= value <= high:
        raise ValidationError(N_("Please enter a whole number from %(low)d to %(high)d."), repr(value), field,
                              params={"low": low, "high": high})
    return value
