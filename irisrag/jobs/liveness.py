"""Whether a started job still has a worker, read from RQ's own state, and ending a job whose worker is gone.

Every RQ worker listens on its command channel (``rq:pubsub:<name>``) for as long as its main
process lives; Redis drops the subscription the moment that process's connection closes. So a
worker killed with SIGKILL (or whose machine stopped) has no listener from then on, which is
seen at once instead of when the job's lease in RQ's started registry runs out
(``job_monitoring_interval`` + 60 s after the last heartbeat). Such a job is then handed to
RQ's own abandoned-job path: its lease is ended now and ``StartedJobRegistry.cleanup`` moves it
to the failed registry with ``AbandonedJobError``, exactly as RQ does for an expired lease.
"""
from __future__ import annotations

import logging

from rq.command import PUBSUB_CHANNEL_TEMPLATE
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Job
from rq.registry import StartedJobRegistry

from irisrag import components
from irisrag.jobs.pointers import PENDING

log = logging.getLogger("irisrag.jobs.documents")  # the import job's log lines, as before the split
ABANDONED = "AbandonedJobError"  # what RQ's cleanup writes into the failure of a job whose worker vanished


def worker_gone(job: Job) -> bool:
    """Return True when the job is registered as started but its worker no longer listens on RQ's channel."""
    if job.get_status(refresh=False) != "started" or not job.worker_name:
        return False
    ((_channel, listeners),) = components.get().redis.pubsub_numsub(PUBSUB_CHANNEL_TEMPLATE % job.worker_name)
    return listeners == 0


def abandon(job: Job) -> None:
    """End a job whose worker is gone through RQ's cleanup (failed, ``AbandonedJobError``); no retry follows."""
    registry = StartedJobRegistry(job.origin, connection=components.get().redis)
    leases = {f"{job_id}:{execution_id}": 0 for job_id, execution_id
              in registry.get_job_and_execution_ids(cleanup=False) if job_id == job.id}
    if leases:
        registry.connection.zadd(registry.key, leases, xx=True)  # the lease ends now, not in a minute or more
    registry.cleanup()
    log.warning("job_abandoned job=%s worker=%s leases=%d", job.id, job.worker_name, len(leases))
    _no_retry(job)


def _no_retry(job: Job) -> None:
    """Cancel the retry RQ's cleanup queues for a job with retries left: a lost worker is no network error."""
    if job.get_status(refresh=True) not in PENDING:
        return
    try:
        job.cancel()
    except (InvalidJobOperation, NoSuchJobError) as exc:  # it ended meanwhile
        log.info("abandoned_retry_ended job=%s error=%s", job.id, exc)
