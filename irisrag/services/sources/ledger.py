"""A sync run's ledger: counts written as they happen, so the source page shows the run live."""
from __future__ import annotations

from irisrag.models import SyncRun
from irisrag.models.base import utcnow
from irisrag.models.sources import COUNTS


class Ledger:
    """Counts of one run (new, changed, unchanged, removed, failed), the page or file at hand, the requests."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id

    def count(self, outcome: str, current: str = "") -> None:
        """Add one page or file to an outcome's count and name it as the one at hand."""
        if outcome not in COUNTS:
            raise ValueError(f"not an outcome: {outcome!r}")
        column = getattr(SyncRun, outcome)
        SyncRun.update({column: column + 1, SyncRun.current: current[:2000]}).where(SyncRun.id == self.run_id).execute()

    def at(self, current: str, requests: int | None = None, fetched_bytes: int | None = None) -> None:
        """Name the page or file at hand (and the requests and bytes so far)."""
        fields = {SyncRun.current: current[:2000]}
        if requests is not None:
            fields.update({SyncRun.requests: requests, SyncRun.fetched_bytes: fetched_bytes or 0})
        SyncRun.update(fields).where(SyncRun.id == self.run_id).execute()


def start_run(source_id: int, job_id: str = "") -> SyncRun:
    """Record a new run; a run of the source still marked running was killed (its lock is ours now)."""
    SyncRun.update(state="interrupted", finished_at=utcnow(), current="").where(
        (SyncRun.source == source_id) & (SyncRun.state == "running")).execute()
    return SyncRun.create(source=source_id, job_id=job_id[:128])


def finish_run(run_id: int, state: str, note: str = "") -> SyncRun:
    run = SyncRun.get_by_id(run_id)
    finished = utcnow()
    SyncRun.update(state=state, finished_at=finished, note=note[:2000], current="",
                   duration_ms=int((finished - run.started_at).total_seconds() * 1000)).where(
        SyncRun.id == run_id).execute()
    return SyncRun.get_by_id(run_id)
