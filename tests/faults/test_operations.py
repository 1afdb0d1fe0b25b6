"""Operations: the admin system page, /readyz deep checks, request and job-stage log lines.

``/healthz`` and the basic ``/readyz`` checks are covered in tests/web/test_ops.py.
"""
from __future__ import annotations

import logging
import re
import time
from pathlib import Path

import pytest

from irisrag.extensions import db
from irisrag.jobs import documents as document_jobs
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.conftest import free_port, login, make_app, post
from tests.integration.test_worker import start_worker, stop_worker
from tests.services import QUESTION, seed_library
from tests.support.http_stub import Reply, closed_port
from tests.support.imports import wait_status

HX = {"HX-Request": "true"}


def body(resp) -> str:
    return resp.get_data(as_text=True)


def admin_for(app):
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    return client



# --- the system page --------------------------------------------------------------------

def test_system_page_needs_an_admin(app, make_user, client):
    make_user("alice", "alicepassword")
    assert client.get("/admin/system").headers["Location"].startswith("/admin/login")
    login(client, "alice", "alicepassword")
    assert client.get("/admin/system").status_code == 302
    assert client.get("/admin/system", headers=HX).status_code == 401


def test_system_page_shows_index_disks_and_an_idle_queue(app):
    seed_library(app)
    client = admin_for(app)
    html = body(client.get("/admin/system"))
    assert re.search(r'id="tab-system"[^>]*aria-current="page"', html)
    assert re.search(r'id="queue-length">0<', html) and re.search(r'id="worker-count">0<', html)
    assert 'id="no-workers"' in html and 'id="no-failed-jobs"' in html
    assert "chunks_fake_64" in html and "(in use)" in html
    row = re.search(r"<td><code>chunks_fake_64</code>.*?</tr>", html, re.S).group(0)
    assert "<td>3</td>" in row  # three chunks in the seeded library
    for part in ("staging", "lancedb") + (("database",) if app.config["DATABASE_URL"].startswith("sqlite") else ()):
        assert f'id="disk-{part}"' in html
    fragment = body(client.get("/admin/system", headers=HX))
    assert "<html" not in fragment and 'id="system-queue"' in fragment
    assert 'href="/admin/system"' in body(client.get("/admin/tab/users", headers=HX))  # linked from the tabs


def test_system_page_with_redis_down_still_shows_the_index(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    seed_library(app)
    resp = admin_for(app).get("/admin/system")
    html = body(resp)
    assert resp.status_code == 200 and 'id="queue-down"' in html and "Connection" in html
    assert "chunks_fake_64" in html


@pytest.mark.integration
def test_system_page_lists_workers_and_failed_jobs_and_requeues_one(app, tmp_path):
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        doc = documents.import_upload("Handbook", "leer.md", b"   ")  # no text: the job fails
    client = admin_for(app)
    worker = start_worker(app, tmp_path)
    try:
        wait_status(app, doc.id, ("failed",))
        deadline = time.monotonic() + 20
        while 'id="failed-jobs"' not in (html := body(client.get("/admin/system"))) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert re.search(r'id="worker-count">1<', html) and 'id="workers"' in html
        assert re.search(r'id="failed-count">1<', html)
        failed = re.search(r'<tr id="failed-1">.*?</tr>', html, re.S).group(0)
        assert "import_document" in failed and "leer.md" in failed and "ExtractionError" in failed
        job_id = re.search(r"/admin/system/failed/([^/]+)/requeue", failed).group(1)
        _staged(app, doc.id).write_text("Jetzt steht hier OpenTelemetry-Text.")  # the cause is fixed, then requeued
        resp = post(client, f"/admin/system/failed/{job_id}/requeue", page="/admin/system")
        assert resp.status_code == 200 and "Requeued: import_document (document" in body(resp)
        done = wait_status(app, doc.id, ("done",))
        assert done.chunk_count == 1
        again = post(client, f"/admin/system/failed/{job_id}/requeue", page="/admin/system")
        assert again.status_code == 404 and "no such failed job" in body(again)
    finally:
        stop_worker(worker)


def _staged(app, document_id: int) -> Path:
    with app.app_context(), db.connection_context():
        doc = Document.get_by_id(document_id)
    return Path(doc.directory) / doc.name


# --- readiness deep checks ------------------------------------------------------------------

def test_readyz_deep_checks_a_configured_llm_without_generating(tmp_path, database_url, redis_url, http_stub):
    http_stub.add("GET", "/api/tags", Reply(json={"models": [{"name": "llama3:latest"}]}))
    app = make_app(tmp_path, database_url, redis_url, LLM="ollama", OLLAMA_URL=http_stub.url)
    resp = app.test_client().get("/readyz?deep=1")
    assert resp.status_code == 200, resp.json
    llm = next(c for c in resp.json["checks"] if c["name"] == "llm")
    assert llm["ok"] and llm["required"] is False and llm["state"] == "up"
    assert [r.path for r in http_stub.requests] == ["/api/tags"]  # a model list, never a chat
    assert "llm" not in {c["name"] for c in app.test_client().get("/readyz").json["checks"]}  # deep only


def test_readyz_unreachable_llm_is_reported_but_leaves_the_app_ready(tmp_path, database_url, redis_url):
    url = f"http://127.0.0.1:{closed_port()}"
    app = make_app(tmp_path, database_url, redis_url, LLM="openai", OPENAI_BASE_URL=url + "/v1")
    resp = app.test_client().get("/readyz?deep=1")
    assert resp.status_code == 200 and resp.json["status"] == "ready"  # answers fall back to passages
    llm = next(c for c in resp.json["checks"] if c["name"] == "llm")
    assert llm["ok"] is False and "ConnectionError" in llm["detail"] and url not in llm["detail"]


def test_readyz_deep_embedder_down_is_503(tmp_path, database_url, redis_url):
    url = f"http://127.0.0.1:{closed_port()}"
    app = make_app(tmp_path, database_url, redis_url, EMBEDDER="ollama", OLLAMA_URL=url, OLLAMA_TIMEOUT=1.0)
    resp = app.test_client().get("/readyz?deep=1")
    assert resp.status_code == 503
    embedder = next(c for c in resp.json["checks"] if c["name"] == "embedder")
    assert embedder["ok"] is False and embedder["required"] is True


# --- structured logs -------------------------------------------------------------------------

REQUEST_LINE = re.compile(r"^request id=(\S+) method=(\S+) path=(\S+) status=(\d+) ms=([\d.]+) (.+)$")


def request_lines(caplog) -> list[re.Match]:
    return [m for r in caplog.records if r.name == "irisrag.request" and (m := REQUEST_LINE.match(r.getMessage()))]


def test_logs_one_line_per_request_without_the_question(app, caplog):
    library = seed_library(app)
    from tests.web.test_dashboard import logged_in

    client = logged_in(app)
    caplog.set_level(logging.INFO, logger="irisrag.request")
    caplog.clear()
    from tests.conftest import csrf_token

    token = csrf_token(client, "/?q=" + "geheim")
    resp = client.post("/ask?secret=1", data={"question": QUESTION, "areas": [str(library.alpha)],
                                             "csrf_token": token}, headers={**HX, "X-Request-ID": "abc-123"})
    assert resp.headers["X-Request-ID"] == "abc-123"
    lines = request_lines(caplog)
    assert [(m.group(2), m.group(3), m.group(4)) for m in lines] == [("GET", "/", "200"), ("POST", "/ask", "200")]
    assert lines[1].group(1) == "abc-123" and lines[1].group(6) == f"user={library.users['alice']}"
    assert float(lines[1].group(5)) > 0
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "OpenTelemetry" not in text and "geheim" not in text and "secret" not in text
    caplog.clear()
    bad = app.test_client().get("/x%0Aforged=1", headers={"X-Request-ID": "no spaces allowed"})
    [line] = request_lines(caplog)
    assert bad.status_code == 404 and "%0A" in line.group(3) and line.group(1) != "no spaces allowed"


def test_logs_one_line_per_job_stage_with_ids_and_timings(app, caplog):
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        doc = documents.import_upload("Handbook", "log.md", b"OpenTelemetry wird konfiguriert.")
        caplog.set_level(logging.INFO, logger="irisrag.jobs.documents")
        document_jobs.import_document(doc.id)
    messages = [r.getMessage() for r in caplog.records if r.name == "irisrag.jobs.documents"]
    stages = [re.search(r"stage=(\w+)", m).group(1) for m in messages if m.startswith("job_stage")]
    assert stages == ["extracting", "chunking", "embedding"]
    assert messages[0].startswith(f"job_start document_id={doc.id} job=- task=import")
    assert re.match(rf"job_done document_id={doc.id} job=- status=done chunks=1 ms=\d+", messages[-1])
    assert all(re.search(r"previous_ms=\d+", m) for m in messages if m.startswith("job_stage"))
