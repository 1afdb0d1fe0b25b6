"""The worker's periodic sweep: fail imports that can no longer finish, prune old question history, queue due syncs.

These checks used to run on read paths (document pages, API status calls, the ask path); now
one RQ job runs them every SWEEP_SECONDS. As for index upkeep (``jobs.maintenance``), the runs
are RQ jobs scheduled at fixed slots with the slot in the job id: each run schedules the next
slot and every worker start queues one run at once (at the front of the queue), so a worker
that replaces a killed one looks for the killed one's jobs before it takes the next import. The
workers' schedulers (``with_scheduler=True``) move the scheduled runs to the queue.
"""
from __future__ import annotations

import logging
from datetime import UTC, datetime

from flask import current_app

from irisrag import components
from irisrag.extensions import db
from irisrag.jobs.import_checks import fail_stopped_imports
from irisrag.jobs.keys import prefix
from irisrag.jobs.sync import queue_due_syncs

log = logging.getLogger(__name__)
SWEEP_SECONDS = 15            # how often the sweep runs
PRUNE_INTERVAL_SECONDS = 3600  # history is pruned at most this often (one Redis mark for all workers)
RESULT_SECONDS = 60           # a finished sweep's result is kept this long (they are many)


def sweep() -> dict:
    """Run the checks once; return what each did."""
    with db.connection_context():
        return {"failed_imports": fail_stopped_imports(), "pruned_questions": prune_history_now_and_then(),
                "syncs_queued": queue_due_syncs()}


def periodic_sweep() -> dict:
    """RQ task: schedule the next slot, then sweep (errors go to RQ's failed registry)."""
    schedule_sweep()
    return sweep()


def prune_history_now_and_then() -> int:
    """Prune the question history unless some worker did within PRUNE_INTERVAL_SECONDS; return rows deleted."""
    from irisrag.services.asking.history import prune

    mark = f"irisrag:{prefix()}:history-pruned"
    if not components.get().redis.set(mark, "1", nx=True, ex=PRUNE_INTERVAL_SECONDS):
        return 0
    return prune()


def schedule_sweep(now: datetime | None = None) -> str:
    """Schedule the sweep at the next slot; return its job id (a second worker's call rewrites the same job)."""
    slot = int((now or datetime.now(UTC)).timestamp()) // SWEEP_SECONDS + 1
    job_id = f"{prefix()}-sweep-{slot}"
    components.get().queue.enqueue_at(datetime.fromtimestamp(slot * SWEEP_SECONDS, tz=UTC), periodic_sweep,
                                      job_id=job_id, at_front=True, **_options())
    return job_id


def sweep_now() -> str:
    """Queue a sweep at the front of the queue (a worker starting); it starts the chain of scheduled runs."""
    slot = int(datetime.now(UTC).timestamp()) // SWEEP_SECONDS
    job_id = f"{prefix()}-sweep-now-{slot}"
    components.get().queue.enqueue(periodic_sweep, job_id=job_id, at_front=True, **_options())
    return job_id


def _options() -> dict:
    return {"result_ttl": RESULT_SECONDS, "failure_ttl": 7 * 86400, "job_timeout": current_app.config["JOB_TIMEOUT"]}
