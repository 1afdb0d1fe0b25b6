"""``flask rag source ...``: sources kept in sync (issue 40): add, list, edit, delete, sync, runs."""
from __future__ import annotations

import click

from irisrag.cli import ID, command, rag
from irisrag.i18n import english_stored
from irisrag.models.sources import INTERVALS, KINDS
from irisrag.services.sources import sources
from irisrag.services.sources.sources import SourceInput


@rag.group("source")
def source_group() -> None:
    """Sources that keep an area current: a web page, a website section, a source-volume folder."""


def _command(*args, **kwargs):
    """A ``flask rag source`` command (opens the database, domain errors as ClickExceptions)."""
    return command(*args, group=source_group, **kwargs)


def _fields(f):
    options = [
        click.option("--prefix", "url_prefix", default="", help="Website section: the URL prefix the crawl stays within."),
        click.option("--depth", type=int, default=3, show_default=True, help="Website section: link depth."),
        click.option("--page-limit", type=int, default=200, show_default=True, help="Website section: pages a sync fetches at most."),
        click.option("--interval", type=click.Choice(tuple(INTERVALS)), default="off", show_default=True),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _line(source) -> str:
    return (f"{source.id}\t{source.area.name}\t{source.kind}\t{source.label or '/'}\t{source.interval}\t"
            f"last run: {source.last_run_at or '-'}")


@_command("add")
@click.argument("area")
@click.argument("kind", type=click.Choice(KINDS))
@click.argument("target")
@_fields
def add(area: str, kind: str, target: str, **fields) -> None:
    """Add a source to AREA: KIND url or site with TARGET its start URL, folder with TARGET its volume path."""
    entered = SourceInput(kind, folder_path=target, **fields) if kind == "folder" else \
        SourceInput(kind, start_url=target, **fields)
    click.echo(_line(sources.create_source(int(area) if area.isdigit() else area, entered)))


@_command("edit")
@click.argument("source_id", type=ID)
@click.option("--target", default=None, help="The new start URL (url, site) or folder (folder).")
@_fields
def edit(source_id: int, target: str | None, **fields) -> None:
    """Change a source (its kind stays); options left out are reset to their defaults."""
    source = sources.get_source(source_id)
    target = target if target is not None else source.label
    entered = SourceInput(source.kind, start_url=target, folder_path=target, **fields)
    click.echo(_line(sources.update_source(source_id, entered)))


@_command("list")
def list_() -> None:
    """List the sources."""
    for source in sources.list_sources():
        click.echo(_line(source))


@_command("delete")
@click.argument("source_id", type=ID)
def delete(source_id: int) -> None:
    """Delete a source with its runs; its documents stay."""
    click.echo(f"Deleted source {sources.delete_source(source_id)}; its documents stay.")


@_command("sync")
@click.argument("source_id", type=ID)
@click.option("--here", is_flag=True, help="Sync in this process (under the source's lock) instead of queueing it.")
def sync(source_id: int, here: bool) -> None:
    """Sync a source now: queued for the worker, or here with --here (then its counts are printed)."""
    from irisrag.jobs import sync as sync_jobs

    sources.get_source(source_id)
    if not here:
        click.echo(f"Queued sync job {sync_jobs.enqueue_sync(source_id)}.")
        return
    result = sync_jobs.sync_source(source_id)
    if result["status"] == "busy":
        raise click.ClickException("A sync of this source is running; wait until it has finished. [conflict]")
    _runs(source_id, 1)


@_command("runs")
@click.argument("source_id", type=ID)
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True)
def runs(source_id: int, limit: int) -> None:
    """Show a source's latest sync runs: new, changed, unchanged, removed, failed, deleted, requests, duration."""
    sources.get_source(source_id)
    _runs(source_id, limit)


def _runs(source_id: int, limit: int) -> None:
    click.echo("run\tstate\tnew\tchanged\tunchanged\tremoved\tfailed\tdeleted\trequests\tseconds\tnote")
    for r in sources.source_runs(source_id, limit):
        click.echo(f"{r.id}\t{r.state}\t{r.new}\t{r.changed}\t{r.unchanged}\t{r.removed}\t{r.failed}\t{r.deleted}\t"
                   f"{r.requests}\t{r.duration_ms / 1000:.1f}\t{english_stored(r.note)}")
