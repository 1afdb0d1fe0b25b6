"""Attack suite, SSRF and path traversal, end to end through the admin console and the JSON API.

The address rules themselves (loopback, private, link-local, metadata, decimal/octal/hex and
IPv6 forms, DNS names resolving there, redirects, DNS rebinding) are tested against
``fetch_url`` in tests/ingest/test_fetch.py, and path rules against ``stage`` in
tests/ingest/test_stage.py; `..` and unknown absolute paths through the admin form in
tests/web/test_admin_documents.py, and through the CLI in tests/test_cli_imports.py.

Added here: the same refusals as an admin or an API client meets them. A URL import is
accepted (queued), the import job refuses to connect, and the document ends ``failed`` with
the reason, visible in the admin tab and through the API; nothing is ever fetched from the
internal address, and the refusal is not retried. Path imports through a symlink leading out
of the volume are refused by the admin form.
"""
from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

import pytest
import urllib3.util.connection

from irisrag.errors import BlockedAddress
from irisrag.extensions import db
from irisrag.jobs import documents as document_jobs
from irisrag.models import Area, Document
from irisrag.services import admin as admin_service
from irisrag.services import api_keys
from tests.conftest import login, make_app, post
from tests.support.http_stub import HttpStub, Reply

HX = {"HX-Request": "true"}
REAL_GETADDRINFO = socket.getaddrinfo
ATTACKS = [
    "http://127.0.0.1:{port}/admin", "http://localhost:{port}/", "http://2130706433:{port}/",
    "http://0x7f000001:{port}/", "http://0177.0.0.1:{port}/", "http://127.1:{port}/", "http://[::1]:{port}/",
    "http://[::ffff:127.0.0.1]:{port}/", "http://10.0.0.5/", "http://192.168.178.1/", "http://172.16.0.1/",
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/", "http://[fd00:ec2::254]/",
    "http://metadata.google.internal/computeMetadata/v1/", "http://[fe80::1]/", "http://0.0.0.0:{port}/",
    "http://intranet.example:{port}/", "http://user@127.0.0.1:{port}/",
]


@pytest.fixture(autouse=True)
def no_connections(monkeypatch):
    """Record every outgoing connection; names resolve to internal addresses as an attacker's DNS would."""
    attempts: list[str] = []
    original = urllib3.util.connection.create_connection

    def guarded(address, *args, **kwargs):
        attempts.append(address[0])
        if not ipaddress.ip_address(address[0].strip("[]")).is_loopback:
            raise AssertionError(f"tried to connect to {address[0]}")
        return original(address, *args, **kwargs)

    def getaddrinfo(host, port, *args, **kwargs):
        internal = {"intranet.example": "10.1.2.3", "metadata.google.internal": "169.254.169.254"}
        if host in internal:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (internal[host], port or 80))]
        return REAL_GETADDRINFO(host, port, *args, **kwargs)

    monkeypatch.setattr(urllib3.util.connection, "create_connection", guarded)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return attempts


@pytest.fixture
def internal():
    """A service on loopback that must never be reached."""
    with HttpStub() as server:
        server.add("GET", "/admin", Reply(body="internal secrets"))
        server.add("GET", "/", Reply(body="internal secrets"))
        yield server


@pytest.fixture
def admin(app):
    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Handbook")
        admin_service.create_user("root", "rootpassword", is_admin=True)
        group = admin_service.create_named(admin_service.Group, "ops")
        admin_service.link_user("root", "ops")
        admin_service.link_area("Handbook", "ops")
        key = api_keys.create_key("root").plain
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    return client, area.id, key, group


def run_fetch(app, document_id: int) -> Document:
    with app.app_context(), db.connection_context():
        with pytest.raises(BlockedAddress):
            document_jobs.fetch_document(document_id)
        return Document.get_by_id(document_id)


def test_ssrf_url_imports_through_the_admin_console_are_refused_by_the_job(app, admin, internal, no_connections):
    client, area, _key, _group = admin
    urls = [u.format(port=internal.port) for u in ATTACKS]
    resp = post(client, "/admin/documents/urls", {"area": str(area), "urls": "\n".join(urls)})
    assert resp.status_code == 200 and f"{len(urls)} imports queued." in resp.get_data(as_text=True)
    with app.app_context(), db.connection_context():
        docs = list(Document.select().order_by(Document.id))
    assert [d.source_url for d in docs] == urls
    for doc in docs:
        row = run_fetch(app, doc.id)
        assert row.status == "failed", row.source_url
        assert "not allowed" in row.error or "Only http" in row.error, (row.source_url, row.error)
        html = client.get(f"/admin/documents/{doc.id}/row", headers=HX).get_data(as_text=True)
        assert "not allowed" in html and "Retry" in html
    assert internal.requests == [] and no_connections == []  # nothing was ever contacted
    assert not list(Path(app.config["UPLOAD_ROOT"]).glob("url/*"))  # nothing was staged


def test_ssrf_redirect_to_an_internal_address_is_refused(tmp_path, database_url, redis_url, no_connections):
    """A page on an allowed host redirects to the metadata service and to another internal host."""
    with HttpStub() as public, HttpStub(host="127.0.0.2") as hidden:
        hidden.add("GET", "/", Reply(body="internal secrets"))
        public.add("GET", "/a", Reply(status=302, headers={"Location": "http://169.254.169.254/latest/meta-data/"}))
        public.add("GET", "/b", Reply(status=301, headers={"Location": f"http://127.0.0.2:{hidden.port}/"}))
        app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"])
        with app.app_context(), db.connection_context():
            admin_service.create_named(Area, "Handbook")
            from irisrag.services import documents

            ids = [documents.import_url("Handbook", f"{public.url}{path}").id for path in ("/a", "/b")]
        for document_id in ids:
            row = run_fetch(app, document_id)
            assert row.status == "failed" and "not allowed" in row.error and "fetching" in row.error_detail
        assert hidden.requests == [] and [r.path for r in public.requests] == ["/a", "/b"]
        assert set(no_connections) == {"127.0.0.1"}


def test_ssrf_url_import_through_the_api_is_refused_and_reported(app, admin, internal, no_connections):
    _client, area, key, _group = admin
    api = app.test_client()
    for url in ("http://169.254.169.254/latest/meta-data/", f"http://[::1]:{internal.port}/",
                f"http://intranet.example:{internal.port}/"):
        resp = api.post("/api/v1/documents", json={"area": area, "url": url}, headers={"X-API-Key": key})
        assert resp.status_code == 202, resp.get_json()
        document_id = resp.get_json()["id"]
        run_fetch(app, document_id)
        status = api.get(f"/api/v1/documents/{document_id}", headers={"X-API-Key": key}).get_json()
        assert status["status"] == "failed" and "not allowed" in status["error"]
        assert "error_detail" in status  # an admin's key sees the technical detail
    assert internal.requests == [] and no_connections == []


def test_ssrf_refused_fetch_is_not_retried_by_the_queue(app, admin, no_connections):
    """Fetch jobs are retried on network errors only: a refusal fails for good (no hammering)."""
    from rq import SimpleWorker

    from irisrag import components
    from irisrag.services import documents

    with app.app_context(), db.connection_context():
        doc = documents.import_url("Handbook", "http://169.254.169.254/latest/meta-data/")
        queue = components.get().queue
        [job_id] = queue.job_ids
        SimpleWorker([queue], connection=queue.connection).work(burst=True)  # runs the job in this process
        assert queue.failed_job_registry.get_job_ids() == [job_id]
        assert queue.scheduled_job_registry.count == 0 and queue.count == 0  # no retry waiting
        assert Document.get_by_id(doc.id).status == "failed"
    assert no_connections == []


def test_path_traversal_through_symlinks_out_of_the_volume_is_refused(tmp_path, database_url, redis_url):
    volume = tmp_path / "volume"
    (volume / "docs").mkdir(parents=True)
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("Geheim: root password")
    (volume / "link.md").symlink_to(secret)
    (volume / "docs" / "up").symlink_to(tmp_path / "outside", target_is_directory=True)
    (volume / "ok.md").write_text("Inhalt")
    app = make_app(tmp_path, database_url, redis_url, SRC_VOLUME_PATH=str(volume))
    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Handbook")
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    for path in ("link.md", "docs/up/secret.md", "/somewhere/link.md", str(secret), "docs/../../outside/secret.md",
                 "docs/..\\..\\outside\\secret.md", "./../outside/secret.md", "%2e%2e/outside/secret.md"):
        resp = post(client, "/admin/documents/path", {"area": str(area.id), "path": path})
        html = resp.get_data(as_text=True)
        assert resp.status_code in (400, 403, 404), (path, resp.status_code)
        assert "1 item was refused." in html and "Geheim" not in html, path
    assert post(client, "/admin/documents/path", {"area": str(area.id), "path": "ok.md"}).status_code == 200
    with app.app_context(), db.connection_context():
        assert [d.name for d in Document.select()] == ["ok.md"]
