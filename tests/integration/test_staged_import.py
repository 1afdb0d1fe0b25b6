"""A long document re-imported through a real worker in several LanceDB batches (IMPORT_WRITE_ROWS).

While the worker stages batch after batch, this process reads the store like the web process
does: it must find the old chunks, all of them and only them, until the import is done; then
all the new ones. A worker killed between batches leaves the old chunks, and the next import
leaves no staged rows behind.
"""
import signal
import time
from pathlib import Path

import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.jobs.import_checks import fail_stopped_imports
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.conftest import make_app
from tests.integration.test_import_jobs import store_rows, wait_final
from tests.integration.test_worker import start_worker, stop_worker

pytestmark = pytest.mark.integration
WRITE_ROWS = 4
OLD = "\n\n".join(f"Alter Abschnitt {i} über die Paketverwaltung mit apt. " * 3 for i in range(3))
NEW = "\n\n".join(f"Neuer Abschnitt {i} über die Paketverwaltung mit dpkg. " * 3 for i in range(200))


def _app(tmp_path, database_url, redis_url):
    # IMPORT_STALE_SECONDS stays at its default: the worker's sweep would fail a live import that pauses
    # a second; a killed worker is seen from RQ's state (its command channel has no listener).
    return make_app(tmp_path, database_url, redis_url, EMBEDDING_BATCH_SIZE=2, FAKE_EMBED_DELAY=0.1)


def _worker(app, tmp_path):
    return start_worker(app, tmp_path, IRISRAG_IMPORT_WRITE_ROWS=str(WRITE_ROWS))


def _imported_old(app, tmp_path) -> tuple[Document, set[str], Path]:
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        doc = documents.import_upload("Handbook", "handbuch.md", OLD.encode())
    proc = _worker(app, tmp_path)
    try:
        doc = wait_final(app, doc.id)
    finally:
        stop_worker(proc)
    old = {h.text for h in store_rows(app, doc.id)}
    assert doc.status == "done" and old and all(t.startswith("Alter") for t in old)
    return doc, old, Path(doc.directory) / doc.name


def _reimporting(app, tmp_path):
    """Import OLD, replace the staged file with NEW, queue a rebuild and start a worker on it."""
    doc, old, staged_file = _imported_old(app, tmp_path)
    staged_file.write_text(NEW)
    with app.app_context(), db.connection_context():
        documents.rebuild(doc.id)
    return doc, old, _worker(app, tmp_path)


def _row(app, document_id: int) -> Document:
    with app.app_context(), db.connection_context():
        return Document.get_by_id(document_id)


def _hidden_rows(app) -> int:
    with app.app_context():
        return components.get().store.table().count_rows("area_id < 0")


def test_readers_find_only_the_old_chunks_while_the_worker_stages_batches(tmp_path, database_url, redis_url):
    app = _app(tmp_path, database_url, redis_url)
    doc, old, proc = _reimporting(app, tmp_path)
    readings = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            row = _row(app, doc.id)
            if row.status != "embedding":
                if row.status in ("done", "failed"):
                    break
                time.sleep(0.05)  # still queued: poll, don't spin
                continue
            texts = {h.text for h in store_rows(app, doc.id)}
            readings.append((row.progress_done, texts))
            time.sleep(0.05)
        done = wait_final(app, doc.id)
    finally:
        stop_worker(proc)
    assert done.status == "done", done.error_detail
    new = store_rows(app, doc.id)
    seen = ["old" if texts == old else "new" if texts == {h.text for h in new} else "mix" for _, texts in readings]
    # The row says "embedding" until the job ends, also after the switch: old ..., then new ..., nothing else.
    assert seen == sorted(seen, key=["old", "new"].index), seen
    staged_batches = [progress for (progress, _), kind in zip(readings, seen, strict=True) if kind == "old"
                      and progress >= 2 * WRITE_ROWS]
    assert staged_batches, list(zip(seen, [p for p, _ in readings], strict=True))  # read with at least two batches staged
    assert len(new) == done.chunk_count > 4 * WRITE_ROWS and not any("Alter" in h.text for h in new)
    assert [h.chunk_index for h in new] == list(range(done.chunk_count)) and _hidden_rows(app) == 0


def test_a_worker_killed_between_batches_keeps_the_old_chunks_and_a_retry_cleans_up(tmp_path, database_url,
                                                                                     redis_url):
    app = _app(tmp_path, database_url, redis_url)
    doc, old, proc = _reimporting(app, tmp_path)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _row(app, doc.id).progress_done < 3 * WRITE_ROWS:
            time.sleep(0.05)
        assert _row(app, doc.id).status == "embedding"
    finally:
        stop_worker(proc, signal.SIGKILL)
    assert {h.text for h in store_rows(app, doc.id)} == old and _hidden_rows(app) >= 2 * WRITE_ROWS
    time.sleep(1.2)
    with app.app_context(), db.connection_context():
        assert fail_stopped_imports() == 1
        documents.rebuild(doc.id)
    proc = _worker(app, tmp_path)
    try:
        done = wait_final(app, doc.id)
    finally:
        stop_worker(proc)
    assert done.status == "done", done.error_detail
    assert len(store_rows(app, doc.id)) == done.chunk_count and _hidden_rows(app) == 0
