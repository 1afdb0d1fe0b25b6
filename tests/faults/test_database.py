"""Faults: the database locked (SQLite busy) or gone (a PostgreSQL restart or outage).

A request that cannot reach the database answers 503 with a "try again" page (JSON for the
API) and a Retry-After header, never a crash; nothing is half-written; the next request works
once the database is back. Reads go on under a SQLite write lock (WAL mode), asking still
answers (the history row is dropped, not the answer), and liveness does not depend on the
database at all.
"""
from __future__ import annotations

import sqlite3
import uuid
from urllib.parse import quote

import pytest

from irisrag import extensions
from irisrag.extensions import bind_database, db
from irisrag.jobs import documents as document_jobs
from irisrag.models import Document, Group, QuestionLog
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from irisrag.services.documents import documents as document_service
from tests.conftest import PG_BASE, csrf_token, free_port, login, make_app, post
from tests.services import PASSWORD, QUESTION, seed_library

HX = {"HX-Request": "true"}
BUSY = "The database is busy or not reachable at the moment."


@pytest.fixture
def locked_app(tmp_path, redis_url, monkeypatch):
    """A SQLite app whose busy_timeout is short, so a held lock outlasts it quickly."""
    monkeypatch.setitem(extensions.SQLITE_PRAGMAS, "busy_timeout", 300)
    path = tmp_path / "irisrag.db"
    app = make_app(tmp_path, f"sqlite:///{path}", redis_url)
    library = seed_library(app)
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
        admin_service.link_user("root", "team-a")
        key = api_keys.create_key("root").plain
    return app, library, path, key


class WriteLock:
    """Another process's connection holding the write lock (BEGIN EXCLUSIVE) until released."""

    def __init__(self, path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, timeout=5)

    def __enter__(self):
        self.conn.execute("BEGIN EXCLUSIVE")
        return self

    def __exit__(self, *exc) -> None:
        self.conn.execute("ROLLBACK")
        self.conn.close()


def test_sqlite_locked_past_busy_timeout_fails_cleanly_and_works_once_released(locked_app):
    app, library, path, key = locked_app
    admin, user = app.test_client(), app.test_client()
    assert login(admin, "root", "rootpassword", admin=True).status_code == 302
    token = csrf_token(admin, "/admin")
    fresh = app.test_client()
    login_token = csrf_token(fresh, "/login")
    with WriteLock(path):
        assert admin.get("/admin/tab/groups", headers=HX).status_code == 200  # reading goes on (WAL)
        resp = admin.post("/admin/groups", data={"name": "Gesperrt"}, headers={"X-CSRFToken": token, **HX})
        assert resp.status_code == 503 and BUSY in resp.get_data(as_text=True)
        assert resp.headers["Retry-After"] == "5" and "<html" not in resp.get_data(as_text=True)  # an htmx fragment
        page = admin.post("/admin/groups", data={"name": "Gesperrt", "csrf_token": token})
        assert page.status_code == 503 and "<html" in page.get_data(as_text=True)  # a whole page without htmx
        resp = fresh.post("/login", data={"username": "alice", "password": PASSWORD, "csrf_token": login_token})
        assert resp.status_code == 503 and fresh.get("/").status_code == 302  # not half logged in
        resp = app.test_client().post("/api/v1/documents", json={"area": "Alpha", "url": "https://example.org/x"},
                                      headers={"X-API-Key": key})
        assert resp.status_code == 503 and resp.get_json()["error"]["code"] == "database_unavailable"
    # released: the same requests work, and nothing of the refused ones was written
    with app.app_context(), db.connection_context():
        assert not Group.select().where(Group.name == "Gesperrt").exists()
        assert not Document.select().where(Document.source_url == "https://example.org/x").exists()
    resp = admin.post("/admin/groups", data={"name": "Gesperrt"}, headers={"X-CSRFToken": token, **HX})
    assert resp.status_code == 200 and "Group created." in resp.get_data(as_text=True)
    assert login(user, "alice", PASSWORD).status_code == 302
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_sqlite_locked_asking_still_answers_without_the_history_row(locked_app):
    app, library, path, _key = locked_app
    user = app.test_client()
    assert login(user, "alice", PASSWORD).status_code == 302
    token = csrf_token(user, "/")
    with WriteLock(path):
        resp = user.post("/ask", data={"question": QUESTION, "areas": [str(library.alpha)], "show_sources": "on",
                                       "csrf_token": token}, headers=HX)
        assert resp.status_code == 200 and "otel-guide.md" in resp.get_data(as_text=True)
    with app.app_context(), db.connection_context():
        assert QuestionLog.select().count() == 0  # the history row was given up, not the answer


def test_sqlite_locked_import_job_fails_without_touching_the_index_and_reruns(locked_app):
    app, _library, path, _key = locked_app
    with app.app_context(), db.connection_context():
        doc = document_service.import_upload("Alpha", "gesperrt.md", b"OpenTelemetry wird konfiguriert.")
        with WriteLock(path), pytest.raises(Exception) as caught:
            document_jobs.import_document(doc.id)
        assert "locked" in str(caught.value)
        from irisrag import components

        assert components.get().store.chunks_of(doc.id) == []  # nothing indexed for a row that says otherwise
        assert Document.get_by_id(doc.id).status == "queued"  # the row was not half-updated
        document_jobs.import_document(doc.id)  # the worker's retry once the lock is gone
        row = Document.get_by_id(doc.id)
        assert row.status == "done" and len(components.get().store.chunks_of(doc.id)) == row.chunk_count


# --- PostgreSQL ---------------------------------------------------------------------------

@pytest.fixture
def pg_app(tmp_path, redis_url):
    from tests.conftest import _drop_schema, _postgres_url

    base, schema = _postgres_url()
    name = "irisrag-fault-" + uuid.uuid4().hex[:8]
    url = base.replace("options=", "options=" + quote(f"-capplication_name={name} "), 1)
    app = make_app(tmp_path, url, redis_url)
    library = seed_library(app)
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
    yield app, library, url
    if not db.is_closed():
        db.close()
    _drop_schema(schema)


def _kill_backend(pid: int) -> None:
    import psycopg2

    conn = psycopg2.connect(PG_BASE)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("SELECT pg_terminate_backend(%s)", (pid,))
    conn.close()


def test_postgres_connection_lost_mid_request_is_a_clean_503_then_works(pg_app, monkeypatch):
    app, _library, _url = pg_app
    admin = app.test_client()
    assert login(admin, "root", "rootpassword", admin=True).status_code == 302
    original = admin_service.create_named

    def restart_then_create(*args, **kwargs):  # the server restarts between two queries of one request
        _kill_backend(db.connection().get_backend_pid())
        return original(*args, **kwargs)

    monkeypatch.setattr(admin_service, "create_named", restart_then_create)
    resp = post(admin, "/admin/groups", {"name": "Neustart"})
    assert resp.status_code == 503 and BUSY in resp.get_data(as_text=True)
    monkeypatch.setattr(admin_service, "create_named", original)
    resp = post(admin, "/admin/groups", {"name": "Neustart"})  # the next request has a new connection
    assert resp.status_code == 200 and "Group created." in resp.get_data(as_text=True)
    with app.app_context(), db.connection_context():
        assert Group.select().where(Group.name == "Neustart").count() == 1


def test_postgres_outage_pages_503_liveness_200_readiness_names_the_database(pg_app):
    app, _library, url = pg_app
    client = app.test_client()
    bind_database(f"postgresql://postgres@127.0.0.1:{free_port()}/test")  # the server is gone
    try:
        resp = client.get("/login")
        assert resp.status_code == 503 and BUSY in resp.get_data(as_text=True)
        resp = client.get("/api/v1/areas", headers={"X-API-Key": "irk_1_x"})
        assert resp.status_code == 503 and resp.get_json()["error"]["code"] == "database_unavailable"
        assert client.get("/healthz").status_code == 200  # the process lives: do not restart it for this
        ready = client.get("/readyz")
        assert ready.status_code == 503
        failed = {c["name"] for c in ready.get_json()["checks"] if not c["ok"]}
        assert failed == {"database"}
    finally:
        bind_database(url)
    assert client.get("/login").status_code == 200  # back
