"""``flask rag maintain``: one index upkeep pass now (cron, or after a bulk load)."""
from __future__ import annotations

import json

import click

from irisrag.cli import command
from irisrag.errors import QueueUnavailable
from irisrag.jobs.maintenance import run_maintenance
from irisrag.jobs.queue import queue_errors


@command("maintain")
@click.option("--retrain", is_flag=True, help="Rebuild the vector index even if it is current (past the threshold).")
@click.option("--no-lock", "no_lock", is_flag=True,
              help="Run without the Redis lock (only when no worker can run upkeep at the same time).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def maintain(retrain: bool, no_lock: bool, as_json: bool) -> None:
    """Build or refresh the full-text and vector indexes, optimize and remove old LanceDB versions."""
    try:
        with queue_errors(with_url=False):
            report = run_maintenance(full=True, retrain=retrain, use_lock=not no_lock)
    except QueueUnavailable as exc:
        raise click.ClickException(f"Redis is not reachable for the maintenance lock ({exc.detail}); "
                                   "use --no-lock if no worker is running") from exc
    if as_json:
        click.echo(json.dumps(report, indent=2))
    elif report["status"] == "busy":
        click.echo("Another process is running index upkeep right now; nothing done.")
    else:
        click.echo(f"{report['rows']} chunks: full text {report['fulltext']}, vector index {report['vector']}, "
                   f"optimized {'yes' if report['optimized'] else 'no'}, "
                   f"{report['versions_removed']} old version(s) removed, {report['seconds']:.1f} s")
    if report["status"] == "busy":
        raise SystemExit(3)
