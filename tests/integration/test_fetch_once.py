"""A slow fetch in a real worker: alive is never "its worker stopped", and a document is fetched once at a time."""
from __future__ import annotations

import time

import pytest

from irisrag.errors import Conflict
from irisrag.extensions import db
from irisrag.i18n import english_stored
from irisrag.jobs import documents as document_jobs
from irisrag.jobs.import_checks import fail_stopped_imports
from irisrag.jobs.queue import enqueue
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.conftest import make_app
from tests.integration.test_import_jobs import wait_final
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.trickle import TrickleServer

pytestmark = pytest.mark.integration


def test_slow_fetch_is_not_judged_dead_and_never_runs_twice(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"], IMPORT_STALE_SECONDS=2)
    with TrickleServer("body") as server:
        with app.app_context(), db.connection_context():
            admin_service.create_named(Area, "Handbook")
            doc = documents.import_url("Handbook", server.url + "/slow.txt")
        workers = [start_worker(app, tmp_path, f"w{i}.log", IRISRAG_URL_TOTAL_TIMEOUT="9") for i in range(2)]
        try:
            deadline = time.monotonic() + 60
            while server.connections == 0 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert server.connections == 1
            time.sleep(4)  # twice the stale limit without a byte of progress worth reporting
            with app.app_context(), db.connection_context():
                assert fail_stopped_imports() == 0
                assert Document.get_by_id(doc.id).status == "fetching"
                with pytest.raises(Conflict):  # Retry / Rebuild while it runs
                    documents.rebuild(doc.id)
                # A second job for the same document (as RQ's automatic retry would start) on the idle worker:
                enqueue(document_jobs.fetch_document, doc.id, False, job_id=f"{app.config['QUEUE_NAME']}-dup")
            time.sleep(2)
            assert server.connections == 1  # the second job did not fetch
            row = wait_final(app, doc.id, 60)
        finally:
            for worker in workers:
                stop_worker(worker)
    assert row.status == "failed" and "took longer than 9 seconds" in english_stored(row.error)
    assert server.connections == 1
