"""Backup and restore: ``flask rag backup DEST`` and ``flask rag restore SRC`` (see services/operations/backup.py)."""
from __future__ import annotations

import click

from irisrag.cli import command
from irisrag.services.operations import backup as backup_service


def _tables(summary: backup_service.Summary) -> str:
    return ", ".join(f"{name} v{t['version']} ({t['rows']} chunks)" for name, t in summary.tables.items()) or "none"


@command("backup")
@click.argument("dest", type=click.Path(file_okay=False, path_type=str))
def backup_command(dest: str) -> None:
    """Back up the database, LanceDB and the staged files into DEST (a new or empty directory).

    Safe while the web process and the worker run: each part is copied as one consistent snapshot.
    """
    summary = backup_service.backup(dest)
    click.echo(f"Backup written to {summary.path}")
    click.echo(f"  database: {summary.database} ({summary.documents} documents)")
    click.echo(f"  lancedb:  {_tables(summary)}")
    click.echo(f"  staged:   {summary.staged_files} files")


@command("restore")
@click.argument("src", type=click.Path(exists=True, file_okay=False, path_type=str))
@click.option("--force", is_flag=True, help="Replace a database, LanceDB directory or upload root that is not empty.")
def restore_command(src: str, force: bool) -> None:
    """Restore a backup made by `flask rag backup` into the configured locations.

    Stop the web process and the worker first. The checksums of every file are checked before
    anything is replaced.
    """
    summary = backup_service.restore(src, force=force)
    click.echo(f"Restored {summary.path}")
    click.echo(f"  database: {summary.database} ({summary.documents} documents)")
    click.echo(f"  lancedb:  {_tables(summary)}")
    click.echo(f"  staged:   {summary.staged_files} files")
    for warning in summary.warnings:
        click.echo(f"Warning: {warning}", err=True)
    click.echo("Start the web process and the worker again.")
