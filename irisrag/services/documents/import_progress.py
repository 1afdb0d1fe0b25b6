"""Import progress for the documents tab (issue 19): the overall bar and the rows one poll refreshes.

One poll per open tab asks for every running row it shows at once. The poll backs off while
nothing changes (the ``signature`` of what it shows stays the same) and stops when nothing runs.
The batch is everything queued since the first job still in the queue was enqueued (from RQ;
from the rows when Redis does not answer).
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime

from irisrag.errors import QueueUnavailable
from irisrag.jobs.keys import pointer_key
from irisrag.jobs.queue import earliest_enqueued
from irisrag.models import Area, Document
from irisrag.models.base import utcnow
from irisrag.models.documents import FINAL, RUNNING

MAX_ROWS = 100  # rows one poll refreshes (the page shows 50)
BATCH_PROBE = 500  # running documents whose jobs are asked for the batch start
FIRST_WAIT, MAX_WAIT = 3.0, 24.0  # seconds between polls: after a change, and at most


@dataclass(frozen=True)
class Overall:
    """The whole queue: documents done of the batch, still running, and about how long the rest takes."""

    done: int
    total: int
    seconds_left: float | None

    @property
    def running(self) -> int:
        return self.total - self.done


@dataclass(frozen=True)
class Poll:
    """One poll's answer: the overall state, the requested rows, and when to ask again (None: stop)."""

    overall: Overall
    rows: list[Document]
    signature: str
    wait: float | None
    finished: bool = False  # this tab was following imports and the last of them ended just now

    @property
    def failed(self) -> int:
        """How many of the rows shown ended failed (named with the finished line)."""
        return sum(d.status == "failed" for d in self.rows)


def _batch_start(running: list[int]) -> datetime | None:
    try:
        start = earliest_enqueued([pointer_key(i) for i in running[:BATCH_PROBE]])
    except QueueUnavailable:
        start = None
    if start is None and running:
        start = Document.select(Document.updated_at).where(Document.id.in_(running)) \
            .order_by(Document.updated_at).scalar()
    return start


def overall(now: datetime | None = None) -> Overall:
    """Return the batch's progress: done of total, and an estimate of the time left from its pace."""
    running = [d.id for d in Document.select(Document.id).where(Document.status.in_(RUNNING)).order_by(Document.id)]
    start = _batch_start(running)
    if start is None:
        return Overall(0, 0, None)
    done = Document.select().where(Document.status.in_(FINAL) & (Document.updated_at >= start)).count()
    elapsed = ((now or utcnow()) - start).total_seconds()
    left = elapsed / done * len(running) if done and elapsed > 0 else None
    return Overall(done, done + len(running), left)


def rows(ids: list[int]) -> list[Document]:
    """Return the documents of these ids that still exist (a poll's rows), in id order."""
    wanted = sorted(set(ids))[:MAX_ROWS]
    return list(Document.select(Document, Area).join(Area).where(Document.id.in_(wanted)).order_by(Document.id))


def poll(ids: list[int], previous: str = "", waited: float = 0.0) -> Poll:
    """Answer one poll: the wait doubles while nothing changed since ``previous``; None once nothing runs."""
    waited = waited if math.isfinite(waited) else 0.0  # from the query string
    state, shown = overall(), rows(ids)
    text = repr((state.done, state.total, [(d.id, d.status, d.progress_done) for d in shown]))
    signature = hashlib.sha256(text.encode()).hexdigest()[:16]
    if not state.running and not any(d.is_running for d in shown):
        wait = None
    elif signature == previous:
        wait = min(max(waited, FIRST_WAIT) * 2, MAX_WAIT)
    else:
        wait = FIRST_WAIT
    return Poll(state, shown, signature, wait, finished=wait is None and bool(previous))
