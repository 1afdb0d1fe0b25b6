"""Source syncs on real worker processes: the scheduler queues a due sync, a sync killed with SIGKILL runs again.

The worker fetches the local website (tests/support/website.py) on 127.0.0.1; its pages answer
slowly, so the first sync is still running when the worker and its work horse are killed.
"""
import signal
import time

import pytest

from irisrag.extensions import db
from irisrag.models import Area, Document, Source, SyncRun
from irisrag.models.base import utcnow
from irisrag.services.admin import admin as admin_service
from irisrag.services.sources import sources
from irisrag.services.sources.sources import SourceInput
from tests.conftest import make_app
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.website import Website

pytestmark = pytest.mark.integration


def runs(app, source_id):
    with app.app_context(), db.connection_context():
        return list(SyncRun.select().where(SyncRun.source == source_id).order_by(SyncRun.id))


def wait_run(app, source_id, test, seconds=180):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = [r for r in runs(app, source_id) if test(r)]
        if found:
            return found[-1]
        time.sleep(0.2)
    raise AssertionError(f"no such run of source {source_id}: {runs(app, source_id)}")


def test_the_scheduler_starts_a_due_sync_and_a_killed_sync_runs_again_without_duplicates(tmp_path, database_url,
                                                                                           redis_url):
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"], CRAWL_DELAY=0.0)
    with Website(pages=40, delay=0.1) as site:
        with app.app_context(), db.connection_context():
            admin_service.create_named(Area, "Handbuch")
            source = sources.create_source("Handbuch", SourceInput("site", site.url("/docs/"), interval="hourly"))
            Source.update(next_due_at=utcnow()).where(Source.id == source.id).execute()  # due now
        worker = start_worker(app, tmp_path, IRISRAG_CRAWL_DELAY="0")
        try:
            killed = wait_run(app, source.id, lambda r: r.new >= 5)  # queued by the worker's sweep
            stop_worker(worker, signal.SIGKILL)
        finally:
            stop_worker(worker)
        with app.app_context(), db.connection_context():
            assert Source.get_by_id(source.id).next_due_at > utcnow()  # queued once, due again in an hour
        assert runs(app, source.id)[-1].state == "running" and runs(app, source.id)[-1].id == killed.id

        site.delay = 0.0
        worker = start_worker(app, tmp_path, "worker2.log", IRISRAG_CRAWL_DELAY="0")
        try:
            with app.app_context(), db.connection_context():
                from irisrag.jobs.sync import enqueue_sync, is_syncing

                # Redis drops the killed worker's subscription as it notices the closed connection
                # (milliseconds); from then on the killed sync's lock does not stand in the way.
                deadline = time.monotonic() + 10
                while is_syncing(source.id) and time.monotonic() < deadline:
                    time.sleep(0.1)
                enqueue_sync(source.id)  # "sync now"
            again = wait_run(app, source.id, lambda r: r.state == "done")
        finally:
            stop_worker(worker)
    first, second = runs(app, source.id)
    assert first.state == "interrupted" and first.finished_at is not None
    assert second.new + second.unchanged == site.expected_pages and second.unchanged >= 4
    assert (second.changed, second.removed, second.failed) == (0, 0, 1)  # failed: the redirect to 10.0.0.1
    with app.app_context(), db.connection_context():
        docs = list(Document.select().where(Document.source == source.id))
    assert len(docs) == len({d.source_url for d in docs}) == site.expected_pages  # no page twice
    assert all(d.status == "done" and d.chunk_count > 0 for d in docs)
    assert again.id == second.id
