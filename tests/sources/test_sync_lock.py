"""Two syncs of one source never run at once: the source's lock in Redis, named after its holder's job."""
import pytest

from irisrag import components
from irisrag.errors import Conflict
from irisrag.extensions import db
from irisrag.jobs import sync as sync_jobs
from irisrag.jobs.tasks import ping
from irisrag.models import SyncRun
from irisrag.services.sources import sources
from irisrag.services.sources.sources import SourceInput


def test_a_second_sync_waits_for_the_first_and_a_lock_whose_job_ended_is_taken_over(sync_app, site):
    with sync_app.app_context(), db.connection_context():
        source = sources.create_source("Handbuch", SourceInput("url", site.url("/docs/page-1.html")))
        holder = components.get().queue.enqueue(ping, "x")  # a live holder: its job is waiting, not lost
        lock = sync_jobs.source_lock(source.id)
        assert lock.acquire(token=holder.id)
        assert sync_jobs.is_syncing(source.id)
        with pytest.raises(Conflict):
            sync_jobs.enqueue_sync(source.id)
        assert sync_jobs.sync_source(source.id)["status"] == "busy" and SyncRun.select().count() == 0

        holder.delete()  # the holder's job is gone (killed and cleaned up): its lock no longer counts
        assert not sync_jobs.is_syncing(source.id)
        result = sync_jobs.sync_source(source.id)
        assert result["status"] == "done" and SyncRun.get_by_id(result["run_id"]).new == 1
        assert not components.get().redis.exists(sync_jobs._lock_key(source.id))  # released
