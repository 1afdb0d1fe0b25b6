"""A whole worker (main process, work horse, scheduler) killed with SIGKILL mid-import, through a real Redis and RQ.

Before: Cancel waited 10 s for a stop nobody heard and left the document's lock for ~IMPORT_STALE_SECONDS;
Rebuild answered "queued" and queued nothing (the pointer still named the killed job, which RQ kept
as `started`); the row waited ~14 minutes for a sweep that then blamed Redis. Now the job's worker is
seen gone at once (it no longer listens on RQ's command channel), RQ's cleanup ends the job, and the
worker's periodic sweep, not a page read, fails the row with a message that says what happened.
"""
from __future__ import annotations

import signal
import time
from datetime import UTC, datetime

import pytest

from irisrag import components
from irisrag.errors import Conflict
from irisrag.extensions import db
from irisrag.i18n import english_stored
from irisrag.jobs.keys import lock_key
from irisrag.jobs.liveness import worker_gone
from irisrag.jobs.sweep import SWEEP_SECONDS, schedule_sweep
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.conftest import make_app
from tests.integration.test_import_control import LONG, embedding, job_of, row, upload
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.imports import wait_final, wait_status
from tests.support.trickle import TrickleServer

pytestmark = pytest.mark.integration


@pytest.fixture
def slow(tmp_path, database_url, redis_url):
    """Embedding takes 0.2 s a chunk, one chunk a batch: a long file runs for a while."""
    app = make_app(tmp_path, database_url, redis_url, EMBEDDING_BATCH_SIZE=1, FAKE_EMBED_DELAY=0.2,
                   URL_ALLOWLIST=["127.0.0.1"])
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
    return app


def killed_mid_import(app, tmp_path) -> Document:
    """Run a long import on a worker and SIGKILL the whole worker while it embeds; return the row then."""
    worker = start_worker(app, tmp_path, "killed.log")
    try:
        doc = upload(app, LONG)
        embedding(app, doc.id)
    finally:
        stop_worker(worker, signal.SIGKILL)
    _wait_unsubscribed(app, job_of(app, doc.id))
    return row(app, doc.id)


def _wait_unsubscribed(app, job, seconds: float = 10) -> None:
    """Wait until Redis has noticed the killed worker's connection closed (a moment on a loaded machine)."""
    deadline = time.monotonic() + seconds
    with app.app_context():
        while not worker_gone(job) and time.monotonic() < deadline:
            time.sleep(0.05)


def lock_held(app, document_id: int) -> bool:
    with app.app_context():
        return bool(components.get().redis.exists(lock_key(document_id)))


def test_a_killed_worker_is_recognised_within_a_minute_and_the_row_says_the_worker_was_lost(slow, tmp_path):
    app = slow
    doc = killed_mid_import(app, tmp_path)
    killed = time.monotonic()
    assert doc.status == "embedding" and lock_held(app, doc.id)
    worker = start_worker(app, tmp_path, "replacement.log")
    try:
        failed = wait_status(app, doc.id, "failed", 60)  # the replacement's sweep, no page read involved
        assert time.monotonic() - killed < 60
        assert "the worker running it was lost" in english_stored(failed.error), failed.error
        assert "lost from the queue" not in failed.error and not lock_held(app, doc.id)
        assert job_of(app, doc.id).get_status(refresh=True) == "failed"  # RQ agrees: no longer `started`
        assert "AbandonedJobError" in (job_of(app, doc.id).exc_info or "")
        with app.app_context(), db.connection_context():
            documents.rebuild(doc.id)
        app.config["FAKE_EMBED_DELAY"] = 0.0
        assert wait_final(app, doc.id, 180).status == "done"
    finally:
        stop_worker(worker)


def test_cancel_of_a_killed_workers_import_frees_its_lock_at_once_and_rebuild_queues_a_job(slow, tmp_path):
    app = slow
    doc = killed_mid_import(app, tmp_path)
    killed_job = job_of(app, doc.id)
    assert killed_job.get_status(refresh=True) == "started" and lock_held(app, doc.id)
    began = time.monotonic()
    with app.app_context(), db.connection_context():
        assert documents.cancel_import(doc.id).status == "cancelled"
    assert time.monotonic() - began < 5 and not lock_held(app, doc.id)  # not 10 s, not ~IMPORT_STALE_SECONDS
    assert killed_job.get_status(refresh=True) == "failed"
    with app.app_context(), db.connection_context():
        assert documents.rebuild(doc.id).status == "queued"
        assert job_of(app, doc.id).id in components.get().queue.job_ids  # a job really waits for it
    assert job_of(app, doc.id).id != killed_job.id
    worker = start_worker(app, tmp_path, "replacement.log", IRISRAG_FAKE_EMBED_DELAY="0")
    try:
        assert wait_final(app, doc.id, 180).status == "done"
    finally:
        stop_worker(worker)


def test_rebuild_of_a_killed_workers_running_import_works_at_once(slow, tmp_path):
    app = slow
    doc = killed_mid_import(app, tmp_path)
    killed_job = job_of(app, doc.id)
    with app.app_context(), db.connection_context():
        assert documents.rebuild(doc.id).status == "queued"  # no 409 "being imported right now"
        assert job_of(app, doc.id).id in components.get().queue.job_ids
    assert not lock_held(app, doc.id) and killed_job.get_status(refresh=True) == "failed"
    assert job_of(app, doc.id).id != killed_job.id


def test_a_rebuild_that_cannot_be_queued_says_so(slow, tmp_path):
    app = slow
    with TrickleServer("body") as server:  # a fetch that takes its time and does not look at the row meanwhile
        with app.app_context(), db.connection_context():
            doc = documents.import_url("Handbook", server.url + "/slow.txt")
        worker = start_worker(app, tmp_path, IRISRAG_URL_TOTAL_TIMEOUT="30")
        try:
            wait_status(app, doc.id, "fetching", 120)
            with app.app_context(), db.connection_context():
                Document.mark_cancelled(doc.id)  # as if its job had not heard the stop yet: it runs on
                with pytest.raises(Conflict, match="still stopping"):
                    documents.rebuild(doc.id)  # before: "queued", and nothing was queued
            failed = row(app, doc.id)
            assert failed.status == "failed" and "still stopping" in english_stored(failed.error)
        finally:
            stop_worker(worker)


def test_the_sweep_fails_a_queued_row_whose_job_lost_its_worker_without_waiting_for_a_timeout(slow, tmp_path):
    from irisrag.jobs.import_checks import fail_stopped_imports

    app = slow
    doc = killed_mid_import(app, tmp_path)
    with app.app_context(), db.connection_context():
        Document.mark_cancelled(doc.id)
        Document.mark_queued(doc.id)  # queued again, its pointer still naming the killed job (as Rebuild left it)
        assert fail_stopped_imports() == 1  # at once: not after IMPORT_STALE_SECONDS, not "lost from the queue"
    failed = row(app, doc.id)
    assert failed.status == "failed" and "the worker running it was lost" in english_stored(failed.error)
    assert not lock_held(app, doc.id)


def test_the_sweep_is_scheduled_once_per_slot_however_many_workers_schedule_it(app):
    now = datetime(2026, 1, 1, 12, 0, 1, tzinfo=UTC)
    with app.app_context():
        first = schedule_sweep(now)
        assert schedule_sweep(now.replace(second=2)) == first  # a second worker: the same job
        assert schedule_sweep(now.replace(second=1 + SWEEP_SECONDS)) != first  # the run schedules the next
        registry = components.get().queue.scheduled_job_registry
        assert first in registry.get_job_ids()
        registry.remove(first, delete_job=True)
