"""Controlling running imports through a real Redis and real worker processes: cancel, delete, dead jobs."""
import os
import signal
import time
from pathlib import Path

import pytest
from rq.job import Job

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from irisrag.services.documents import documents
from tests.conftest import csrf_token, login, make_app
from tests.integration.test_import_jobs import store_rows, wait_final
from tests.integration.test_worker import _children, start_worker, stop_worker
from tests.support.imports import wait_status

pytestmark = pytest.mark.integration
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OLD = b"# Handbuch\n\nDie alte Fassung des Handbuchs beschreibt die Paketverwaltung."
LONG = (((FIXTURES / "excerpt-de.txt").read_text() + "\n\n") * 3).encode()


@pytest.fixture
def slow_app(tmp_path, database_url, redis_url):
    """Embedding takes 0.2 s a chunk, one chunk a batch: a long file runs for a while."""
    app = make_app(tmp_path, database_url, redis_url, EMBEDDING_BATCH_SIZE=1, FAKE_EMBED_DELAY=0.2)
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        admin_service.create_user("root", "rootpassword", is_admin=True)
    return app


def upload(app, data: bytes, name: str = "handbuch.txt") -> Document:
    with app.app_context(), db.connection_context():
        return documents.import_upload("Handbook", name, data)


def row(app, document_id: int) -> Document | None:
    with app.app_context(), db.connection_context():
        return Document.get_or_none(Document.id == document_id)


def job_of(app, document_id: int) -> Job:
    from irisrag.jobs.pointers import pointed_job

    with app.app_context():
        return pointed_job(document_id)


def embedding(app, document_id: int, seconds: float = 120) -> Document:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        doc = row(app, document_id)
        if doc.status == "embedding" and doc.progress_done >= 2:
            return doc
        time.sleep(0.05)
    raise AssertionError(f"document {document_id} never got to embedding: {doc.status}")


def test_cancel_a_running_import_from_the_admin_page_stops_the_job_and_keeps_the_old_chunks(slow_app, tmp_path):
    app = slow_app
    worker = start_worker(app, tmp_path)
    try:
        doc = wait_final(app, upload(app, OLD).id)
        before = store_rows(app, doc.id)
        assert doc.status == "done" and before
        upload(app, LONG)
        running = embedding(app, doc.id)
        assert running.progress_done < running.progress_total
        admin = app.test_client()
        assert login(admin, "root", "rootpassword", admin=True).status_code == 302
        began = time.monotonic()
        resp = admin.post(f"/admin/documents/{doc.id}/cancel",
                          headers={"HX-Request": "true", "X-CSRFToken": csrf_token(admin, "/admin")})
        assert resp.status_code == 200 and "cancelled; its old chunks stay" in resp.get_data(as_text=True)
        job = job_of(app, doc.id)
        while job.get_status(refresh=True) not in ("stopped", "finished", "failed") and time.monotonic() - began < 30:
            time.sleep(0.1)
        # seconds (about 1-3 s measured here); the bound leaves room for a loaded CI machine
        assert job.get_status(refresh=True) == "stopped" and time.monotonic() - began < 30
        time.sleep(1.0)  # a job still alive would write its next batch's progress now
        after = row(app, doc.id)
        assert after.status == "cancelled" and after.chunk_count == doc.chunk_count
        assert store_rows(app, doc.id) == before  # the old chunks stay, nothing half-written
        assert after.sha256 == doc.sha256
        # the lock of the killed horse is freed: a rebuild runs at once
        with app.app_context(), db.connection_context():
            documents.rebuild(doc.id)
        assert wait_final(app, doc.id, 120).status == "done"
    finally:
        stop_worker(worker)


def test_cancel_a_queued_import_by_cli_and_api(slow_app):
    app = slow_app
    doc = upload(app, OLD)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "cancel", str(doc.id)])
    assert result.exit_code == 0 and "Cancelled the import" in result.output
    with app.app_context():
        assert components.get().queue.count == 0  # the waiting job was taken off the queue
    assert row(app, doc.id).status == "cancelled"
    result = runner.invoke(args=["rag", "cancel", str(doc.id)])
    assert result.exit_code == 1 and "nothing to cancel" in result.output

    other = upload(app, OLD, "zwei.txt")
    with app.app_context(), db.connection_context():
        admin_service.create_user("reader", "password123")
        admin_service.create_named(__import__("irisrag.models", fromlist=["Group"]).Group, "g")
        admin_service.link_area("Handbook", "g")
        admin_service.link_user("reader", "g")
        admin_service.link_user("root", "g")
        reader_key, admin_key = api_keys.create_key("reader").plain, api_keys.create_key("root").plain
    client = app.test_client()
    resp = client.post(f"/api/v1/documents/{other.id}/cancel", headers={"X-API-Key": reader_key})
    assert resp.status_code == 403 and row(app, other.id).status == "queued"
    resp = client.post(f"/api/v1/documents/{other.id}/cancel", headers={"X-API-Key": admin_key})
    assert resp.status_code == 200 and resp.get_json()["status"] == "cancelled"
    resp = client.post(f"/api/v1/documents/{other.id}/cancel", headers={"X-API-Key": admin_key})
    assert resp.status_code == 409 and resp.get_json()["error"]["code"] == "conflict"
    resp = client.post(f"/api/v1/documents/{other.id + 99}/cancel", headers={"X-API-Key": admin_key})
    assert resp.status_code == 404
    with app.app_context():
        assert components.get().queue.count == 0
        components.get().queue.empty()


def test_delete_of_a_running_import_cancels_it_first(slow_app, tmp_path):
    app = slow_app
    worker = start_worker(app, tmp_path)
    try:
        doc = upload(app, LONG)
        embedding(app, doc.id)
        result = app.test_cli_runner().invoke(args=["rag", "delete-document", str(doc.id)])
        assert result.exit_code == 0, result.output
        assert job_of(app, doc.id) is None or job_of(app, doc.id).get_status(refresh=True) != "started"
        time.sleep(1.0)
        assert row(app, doc.id) is None and store_rows(app, doc.id) == []
    finally:
        stop_worker(worker)


def test_a_killed_work_horse_is_seen_from_rqs_state_within_seconds(slow_app, tmp_path):
    app = slow_app  # IMPORT_STALE_SECONDS stays at its default (600 s): the progress timeout plays no part
    worker = start_worker(app, tmp_path)
    try:
        first = wait_final(app, upload(app, OLD, "eins.txt").id)
        assert first.status == "done"
        idle = set(_children(worker.pid))  # the scheduler, if any; the first job's horse has ended
        doc = upload(app, LONG)
        embedding(app, doc.id)
        horses = set(_children(worker.pid)) - idle
        assert len(horses) == 1, (horses, idle)
        os.kill(horses.pop(), signal.SIGKILL)
        began = time.monotonic()
        failed = wait_status(app, doc.id, "failed", 30)  # by the worker's own sweep: no page needs to look
        assert failed.status == "failed", (failed.status, failed.error)
        assert "its job ended without finishing" in failed.error and time.monotonic() - began < 30
        with app.app_context(), db.connection_context():
            documents.rebuild(doc.id)  # Retry is accepted at once (no 409 for ten minutes)
        app.config["FAKE_EMBED_DELAY"] = 0.0
        assert wait_final(app, doc.id, 180).status == "done"
    finally:
        stop_worker(worker)
