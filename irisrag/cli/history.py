"""History command: delete questions older than HISTORY_RETENTION_DAYS."""
from __future__ import annotations

import click

from irisrag.cli import command
from irisrag.services.asking import history


@command("prune-history")
@click.option("--days", type=click.IntRange(min=0), default=None,
              help="Keep this many days instead of HISTORY_RETENTION_DAYS (0 keeps everything).")
def prune_history(days: int | None) -> None:
    """Delete questions, answers and feedback older than the retention period."""
    kept = history.retention_days() if days is None else days
    if kept <= 0:
        click.echo("History retention is 0 (keep forever): nothing deleted.")
        return
    deleted = history.prune(kept)
    click.echo(f"Deleted {deleted} question(s) older than {kept} day(s).")
