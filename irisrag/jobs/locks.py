"""A document's import lock: one job at a time works on a document, renewed while it makes progress."""
from __future__ import annotations

import logging
import time

from flask import current_app

from irisrag import components
from irisrag.jobs.keys import lock_key
from irisrag.jobs.queue import queue_errors

log = logging.getLogger("irisrag.jobs.documents")  # the import job's log lines, as before the split
RELEASE_WAIT_SECONDS = 30.0


def document_lock(document_id: int):
    """Return the document's lock (not yet taken); it lapses after IMPORT_STALE_SECONDS without renewal."""
    timeout = max(2, current_app.config["IMPORT_STALE_SECONDS"])
    # Not thread-local: the fetch's heartbeat thread renews the lock its job thread took.
    return components.get().redis.lock(lock_key(document_id), timeout=timeout, blocking_timeout=0,
                                       thread_local=False)


class NoLock:
    """Stands in for the Redis lock when the CLI imports in-process without Redis (``--sync``)."""

    def acquire(self) -> bool:
        return True

    def release(self) -> None:
        pass

    def reacquire(self) -> bool:
        return True


def free_lock(document_id: int) -> None:
    """Free the document's lock once RQ says its job is dead (a killed horse cannot release it)."""
    with queue_errors():
        components.get().redis.delete(lock_key(document_id))


def release(lock) -> None:
    """Free the document's lock; while Redis is away, keep trying a little so a retry is not refused."""
    from redis.exceptions import LockError, RedisError

    deadline = time.monotonic() + RELEASE_WAIT_SECONDS
    while True:
        try:
            lock.release()
            return
        except LockError:  # expired while we were stuck: someone may hold it now; nothing to free
            log.warning("import_lock_expired name=%s", lock.name)
            return
        except RedisError as exc:
            if time.monotonic() > deadline:
                log.warning("import_lock_not_released name=%s error=%s", lock.name, exc)
                return
            time.sleep(1.0)
