"""Faults: Redis unavailable, going away mid-session, or losing its jobs.

Already covered: an upload with Redis down says so and is not left queued
(tests/web/test_admin_documents.py, tests/integration/test_import_jobs.py), the API's 503
(tests/web/test_api.py), the CLI pointing to --sync (tests/test_cli_imports.py), /readyz
(tests/web/test_ops.py).

Added here: everything that does not need the queue keeps working (asking on the web, the
API and the CLI, history, feedback, every admin page); every kind of import (upload, path,
URL, rebuild, rebuild all, retry) explains that the queue is down and leaves nothing queued;
a Redis that stops and comes back while the app runs; and documents whose jobs Redis lost
(emptied or restarted without persistence) are failed instead of "queued" for ever.
"""
from __future__ import annotations

import subprocess
import time
from io import BytesIO

import pytest
from redis import Redis
from redis.exceptions import RedisError

from irisrag import components
from irisrag.extensions import db
from irisrag.jobs.import_checks import fail_stopped_imports
from irisrag.localredis import bundled_command
from irisrag.models import Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from irisrag.services.documents import documents as document_service
from tests.conftest import csrf_token, free_port, login, make_app, post
from tests.services import PASSWORD, QUESTION, seed_library

HX = {"HX-Request": "true"}
QUEUE_DOWN = "job queue (Redis) is not reachable"


def clients(app):
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
        key = api_keys.create_key("alice").plain
    user, admin = app.test_client(), app.test_client()
    assert login(user, "alice", PASSWORD).status_code == 302
    assert login(admin, "root", "rootpassword", admin=True).status_code == 302
    return user, admin, key


def ask(client, library) -> tuple[int, str, float]:
    started = time.monotonic()
    resp = client.post("/ask", data={"question": QUESTION, "areas": [str(library.alpha)], "show_sources": "on",
                                     "csrf_token": csrf_token(client, "/")}, headers=HX)
    return resp.status_code, resp.get_data(as_text=True), time.monotonic() - started


def statuses(app) -> dict[str, str]:
    with app.app_context(), db.connection_context():
        return {d.name: d.status for d in Document.select()}


@pytest.fixture
def down(tmp_path, database_url, redis_url):
    volume = tmp_path / "volume"
    volume.mkdir()
    (volume / "neu.md").write_text("OpenTelemetry neu")
    app = make_app(tmp_path, database_url, redis_url, REDIS_URL=f"redis://127.0.0.1:{free_port()}/0",
                   SRC_VOLUME_PATH=str(volume))
    return app, seed_library(app)


def test_redis_down_asking_and_every_page_keep_working(down):
    app, library = down
    user, admin, key = clients(app)
    status, body, seconds = ask(user, library)
    assert status == 200 and "otel-guide.md" in body and seconds < 2  # asking never waits for the queue
    qid = int(body.split('id="feedback-', 1)[1].split('"', 1)[0])
    resp = user.post(f"/feedback/{qid}", data={"rating": "up", "csrf_token": csrf_token(user, "/")}, headers=HX)
    assert resp.status_code == 200
    assert QUESTION in user.get("/c").get_data(as_text=True)
    for path in ("/admin", "/admin/tab/users", "/admin/tab/documents", "/admin/feedback", "/admin/system",
                 "/admin/documents/coverage"):
        resp = admin.get(path, headers=HX if "coverage" in path else {})
        assert resp.status_code == 200, path
    assert QUEUE_DOWN in admin.get("/admin/system").get_data(as_text=True)
    api = app.test_client()
    for path, body in (("/api/v1/answer", {"question": QUESTION}), ("/api/v1/retrieve", {"question": QUESTION})):
        resp = api.post(path, json=body, headers={"X-API-Key": key})
        assert resp.status_code == 200 and "otel" in resp.get_data(as_text=True), path
    assert api.get("/api/v1/documents", headers={"X-API-Key": key}).status_code == 200
    cli = app.test_cli_runner().invoke(args=["rag", "ask", QUESTION, "--user", "alice"])
    assert cli.exit_code == 0 and "otel-guide.md" in cli.output


def test_redis_down_every_import_says_so_and_nothing_stays_queued(down):
    app, library = down
    _, admin, _key = clients(app)
    area = str(library.alpha)
    requests = {
        "upload": lambda: post(admin, "/admin/documents/upload", {"area": area, "files": [(BytesIO(b"Text"), "u.md")]}),
        "path": lambda: post(admin, "/admin/documents/path", {"area": area, "path": "neu.md"}),
        "url": lambda: post(admin, "/admin/documents/urls", {"area": area, "urls": "https://example.org/seite"}),
        "rebuild": lambda: post(admin, f"/admin/documents/{library.alpha_doc}/rebuild"),
        "rebuild all": lambda: post(admin, "/admin/documents/rebuild"),
        "retry": lambda: post(admin, f"/admin/documents/{library.alpha_doc}/rebuild"),
    }
    for name, send in requests.items():
        resp = send()
        html = resp.get_data(as_text=True)
        assert resp.status_code == 200 and QUEUE_DOWN in html, name  # 200: htmx shows the message
        assert "queued" not in statuses(app).values(), (name, statuses(app))
    with app.app_context(), db.connection_context():
        row = Document.get(Document.name == "u.md")
    assert row.status == "failed" and "Redis" in row.error and "redis://127.0.0.1" in row.error_detail
    user = app.test_client()
    assert login(user, "alice", PASSWORD).status_code == 302
    status, body, _ = ask(user, library)  # a document whose rebuild could not start still answers
    assert status == 200 and "otel-guide.md" in body


@pytest.mark.integration
def test_redis_going_away_and_coming_back_while_the_app_runs(tmp_path, database_url):
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"

    def start():
        proc = subprocess.Popen(bundled_command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                Redis.from_url(url, socket_connect_timeout=0.2).ping()
                return proc
            except RedisError:
                time.sleep(0.05)
        raise AssertionError("Redis did not start")

    redis = start()
    try:
        app = make_app(tmp_path, database_url, url)
        library = seed_library(app)
        user, admin, _key = clients(app)
        upload = lambda name: post(admin, "/admin/documents/upload",  # noqa: E731
                                   {"area": str(library.alpha), "files": [(BytesIO(b"Text"), name)]})
        assert "1 import queued." in upload("vorher.md").get_data(as_text=True)
        redis.terminate()
        redis.wait(10)
        status, body, _ = ask(user, library)
        assert status == 200 and "otel-guide.md" in body
        html = upload("waehrend.md").get_data(as_text=True)
        assert QUEUE_DOWN in html and statuses(app)["waehrend.md"] == "failed"
        assert 'id="queue-down"' in admin.get("/admin/system").get_data(as_text=True)
        redis = start()  # back, empty: it kept nothing on disk
        assert "1 import queued." in upload("nachher.md").get_data(as_text=True)
        with app.app_context():
            assert components.get().queue.count == 1
    finally:
        redis.terminate()
        redis.wait(10)


def test_redis_lost_jobs_are_failed_instead_of_queued_for_ever(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, IMPORT_STALE_SECONDS=1)
    seed_library(app)
    _user, admin, _key = clients(app)
    with app.app_context(), db.connection_context():
        lost = document_service.import_upload("Alpha", "verloren.md", b"OpenTelemetry Text")
        kept = document_service.import_upload("Alpha", "wartet.md", b"OpenTelemetry Text")
        queue = components.get().queue
        job = next(j for j in queue.jobs if j.args[0] == lost.id)
        job.delete()  # as if Redis had been emptied or restarted without its data
        for key in queue.connection.scan_iter(f"irisrag:{queue.name}:doc-job:{lost.id}"):
            queue.connection.delete(key)
    time.sleep(1.2)
    with app.app_context(), db.connection_context():
        assert fail_stopped_imports() == 1  # the worker's sweep
    html = admin.get("/admin/tab/documents", headers=HX).get_data(as_text=True)
    assert "lost from the queue" in html
    assert statuses(app) == {**statuses(app), "verloren.md": "failed", "wartet.md": "queued"}
    resp = post(admin, f"/admin/documents/{lost.id}/rebuild")  # retry puts it back with a new job
    assert resp.status_code == 200 and statuses(app)["verloren.md"] == "queued"
    assert kept.id != lost.id
