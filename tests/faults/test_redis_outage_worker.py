"""Redis goes away while a real worker runs a job: the worker waits and reconnects, the document says why."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from redis import Redis
from redis.exceptions import RedisError

from irisrag.extensions import db
from irisrag.localredis import bundled_command
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.conftest import free_port, make_app
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.imports import wait_final, wait_status

pytestmark = pytest.mark.integration
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def start_redis(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(bundled_command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            Redis(port=port, socket_connect_timeout=1).ping()
            return proc
        except RedisError:
            time.sleep(0.05)
    raise AssertionError("the bundled Redis did not start")



def test_worker_survives_a_redis_outage_mid_job_and_the_document_names_the_cause(tmp_path, database_url):
    port = free_port()
    redis = start_redis(port)
    app = make_app(tmp_path, database_url, f"redis://127.0.0.1:{port}/0", EMBEDDING_BATCH_SIZE=1,
                   FAKE_EMBED_DELAY=0.2)
    text = ((FIXTURES / "excerpt-de.txt").read_text() + "\n\n") * 3
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        doc = documents.import_upload("Handbook", "long.txt", text.encode())
    worker = start_worker(app, tmp_path)
    try:
        wait_status(app, doc.id, "embedding")
        redis.terminate()
        redis.wait(10)
        row = wait_status(app, doc.id, "failed", 60)
        assert "job queue (Redis) could not be reached" in row.error and "Retry" in row.error
        time.sleep(3)
        assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]  # waiting, not gone
        redis = start_redis(port)
        with app.app_context(), db.connection_context():
            documents.queue_import(Document.get_by_id(doc.id))  # Retry
        row = wait_final(app, doc.id, 120)
        assert row.status == "done", (row.error, (tmp_path / "worker.log").read_text()[-3000:])
        assert worker.poll() is None
    finally:
        stop_worker(worker)
        redis.terminate()
        redis.wait(10)
