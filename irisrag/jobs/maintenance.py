"""Index upkeep jobs: after every import and periodically, one process at a time.

``VectorStore.maintain`` does the work (``irisrag.vectors.index``); this module decides when and
makes sure only one process runs it: a Redis lock per queue, renewed while a pass runs (a
killed worker frees it within ``LOCK_SECONDS``). An import that finds the lock taken leaves a
*pending* mark instead of waiting; the holder runs one more short pass when it sees the mark,
so no import's rows wait for the next periodic run.

The periodic run is an RQ job scheduled at fixed slots (multiples of ``MAINTENANCE_INTERVAL``
seconds) with the slot in its job id: every worker schedules the next slot at start and each
run schedules the one after it, and since they all pick the same id there is one chain
however many workers run. The workers' schedulers (``with_scheduler=True``) move it to the queue.
"""
from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import current_app
from redis.exceptions import LockError

from irisrag import components
from irisrag.vectors.index import IndexPolicy

log = logging.getLogger(__name__)
LOCK_SECONDS = 60      # lock lifetime; renewed every third of it while a pass runs
MAX_PASSES = 5         # extra short passes a holder runs for imports that found the lock taken


def policy(config: Mapping[str, Any]) -> IndexPolicy:
    """Return the index policy of the configured settings."""
    return IndexPolicy(min_rows=int(config["VECTOR_INDEX_MIN_ROWS"]), index_type=config["VECTOR_INDEX_TYPE"],
                       cleanup_older_than=timedelta(seconds=float(config["LANCEDB_CLEANUP_OLDER_THAN"])))


def _prefix() -> str:
    # As for import jobs: one Redis may serve several installations; keys carry the queue name.
    return re.sub(r"[^A-Za-z0-9_-]", "_", current_app.config["QUEUE_NAME"])


def _key(name: str) -> str:
    return f"irisrag:{_prefix()}:maintenance:{name}"


@contextmanager
def _renewed(lock) -> Iterator[None]:
    """Keep renewing a held lock from a thread while the body runs (passes may take minutes)."""
    done = threading.Event()

    def renew() -> None:
        while not done.wait(LOCK_SECONDS / 3):
            try:
                lock.reacquire()
            except LockError:  # lost it (Redis restarted?); the pass finishes, the next one re-checks
                log.warning("event=maintenance_lock_lost")
                return

    thread = threading.Thread(target=renew, name="maintenance-lock", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _pass(full: bool, retrain: bool = False) -> Callable[[], dict]:
    def run() -> dict:
        config = current_app.config
        return components.get().store.maintain(policy(config), full=full, retrain=retrain).as_dict()

    return run


def run_maintenance(*, full: bool = True, retrain: bool = False, use_lock: bool = True,
                    after_import: bool = False) -> dict:
    """Run an upkeep pass unless another process is running one; return what was done.

    Returns the pass's report plus ``status``: ``done``, or ``busy`` when another process
    holds the lock (an import's request is then picked up by that process).
    """
    first = _pass(full, retrain)
    if not use_lock:
        return {"status": "done", **first()}
    redis = components.get().redis
    if after_import:
        redis.set(_key("pending"), "1", ex=86400)
    lock = redis.lock(_key("lock"), timeout=LOCK_SECONDS, blocking_timeout=0, thread_local=False)
    reports: list[dict] = []
    step = first
    while len(reports) <= MAX_PASSES:
        if not lock.acquire():
            break
        try:
            with _renewed(lock):
                redis.delete(_key("pending"))  # this pass covers every import committed before now
                reports.append(step())
        finally:
            try:
                lock.release()
            except LockError:
                log.warning("event=maintenance_lock_expired")
        if not redis.exists(_key("pending")):
            break
        step = _pass(full=False)  # an import finished while we ran: fold it in too
    if not reports:
        return {"status": "busy"}
    return {"status": "done", **reports[0], "passes": len(reports)}


# Job ids that run an upkeep pass when they finish (import_document, fetch_document, periodic).
_UPKEEP_JOBS = ("-import-doc-", "-fetch-doc-", "-maintenance-")
_LOOKAHEAD = 200  # queued job ids inspected; a longer queue is certainly not drained


def upkeep_job_waiting(document_id: int | None = None) -> bool:
    """Return True when the queue holds a job that will run an upkeep pass after this one.

    A job of ``document_id`` itself does not count (the CLI's in-process import leaves the
    document's queued job behind; it finds the document unchanged and may never get to it).

    An import then leaves the pass to the last job of the batch ("once per queue drain"):
    per-import passes cost about 0.3 s each, a quarter of the time of a batch of small
    documents. Unindexed rows stay searchable meanwhile (Lance searches them flat).
    """
    prefix = _prefix()
    try:
        ids = components.get().queue.get_job_ids(0, _LOOKAHEAD)
    except Exception as exc:  # Redis trouble: do not skip the pass on a guess
        log.warning("event=queue_unreadable error=%s", exc)
        return False
    own = f"-doc-{document_id}-" if document_id is not None else None
    return any(job_id.startswith(prefix) and any(kind in job_id for kind in _UPKEEP_JOBS)
               and (own is None or own not in job_id) for job_id in ids)


def maintain_after_import(*, use_lock: bool = True, document_id: int | None = None) -> dict:
    """Run the short pass after an import; log and report failures instead of raising.

    With the queue in use (``use_lock``), the pass is ``deferred`` while another import or
    upkeep job waits in the queue: that job runs it. The document's rows are committed and
    searchable either way; the periodic run retries failures.
    """
    try:
        if use_lock and upkeep_job_waiting(document_id):
            return {"status": "deferred"}
        return run_maintenance(full=False, use_lock=use_lock, after_import=True)
    except Exception as exc:  # upkeep must not turn a finished import into a failed one
        log.warning("event=maintenance_after_import_failed error=%s", exc, exc_info=True)
        return {"status": "failed", "error": str(exc)[:500]}


def periodic_maintenance() -> dict:
    """RQ task: schedule the next slot, then run a full pass (errors go to RQ's failed registry)."""
    schedule_maintenance()
    return run_maintenance(full=True)


def _slot_time(slot: int, interval: int) -> datetime:
    return datetime.fromtimestamp(slot * interval, tz=UTC)


def schedule_maintenance(now: datetime | None = None) -> str | None:
    """Schedule the periodic pass at the next slot; return its job id (None when turned off)."""
    interval = int(current_app.config["MAINTENANCE_INTERVAL"])
    if interval <= 0:
        return None
    now = now or datetime.now(UTC)
    slot = int(now.timestamp()) // interval + 1
    job_id = f"{_prefix()}-maintenance-{slot}"
    comps = components.get()
    # Same slot, same id: a second worker's call rewrites the same scheduled job, no second chain.
    comps.queue.enqueue_at(_slot_time(slot, interval), periodic_maintenance, job_id=job_id,
                           result_ttl=max(interval * 2, 600), failure_ttl=7 * 86400,
                           job_timeout=current_app.config["JOB_TIMEOUT"])
    return job_id
