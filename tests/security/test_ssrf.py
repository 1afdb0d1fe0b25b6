"""Attack suite, SSRF and path traversal, end to end through the admin console and the JSON API.

The address rules themselves (loopback, private, link-local, metadata, decimal/octal/hex and
IPv6 forms, DNS names resolving there, redirects, DNS rebinding) are tested against
``fetch_url`` in tests/ingest/test_fetch.py, and path rules against ``stage`` in
tests/ingest/test_stage.py; `..` and unknown absolute paths through the admin form in
tests/web/test_admin_documents.py, and through the CLI in tests/test_cli_imports.py.

Added here: the same refusals as an admin, an API client or an operator (CLI) meets them. A
URL to an internal address is refused when it is submitted, with the reason (translated in
the admin console); a document that gets past that check (DNS changed since) is refused again
by the import job, which records the reason; nothing is ever fetched from the internal
address, and the refusal is not retried. Path imports through a symlink leading out
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
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from tests.conftest import csrf_token, login, make_app, post
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


def register_url(area_name: str, url: str) -> Document:
    """Register and queue a URL document past the submit-time check (as if DNS changed since)."""
    from irisrag.ingest.stage import staging_dir, url_file_name
    from irisrag.services.documents import documents, registration

    area = documents.area_of(area_name)
    directory = staging_dir(registration.upload_root(), "url", area.id)
    doc, _ = registration.register(area, directory, url_file_name(url, "html"), "html", source_url=url)
    return documents.queue_import(doc)


def test_ssrf_url_imports_through_the_admin_console_are_refused_at_once(app, admin, internal, no_connections):
    """The form refuses every internal target in its response, with the reason; nothing is queued."""
    client, area, _key, _group = admin
    urls = [u.format(port=internal.port) for u in ATTACKS]
    resp = post(client, "/admin/documents/urls", {"area": str(area), "urls": "\n".join(urls)})
    html = resp.get_data(as_text=True)
    assert f"{len(urls)} items were refused." in html and "imports queued" not in html
    assert html.count("is not allowed for URL import") == len(urls)
    assert "loopback" in html and "cloud metadata service" in html and "private network" in html
    client.post("/language/de", data={"csrf_token": csrf_token(client, "/admin")})
    resp = post(client, "/admin/documents/urls", {"area": str(area), "urls": f"http://127.0.0.1:{internal.port}/"})
    assert "ist für den URL-Import nicht erlaubt: Loopback (dieser Rechner)" in resp.get_data(as_text=True)
    with app.app_context(), db.connection_context():
        assert Document.select().count() == 0
    assert internal.requests == [] and no_connections == []


def test_ssrf_the_job_keeps_its_own_check(app, admin, internal, no_connections):
    """A document that got past submission (DNS changed since) is still refused by the worker."""
    client, area, _key, _group = admin
    urls = [u.format(port=internal.port) for u in ATTACKS]
    with app.app_context(), db.connection_context():
        ids = [register_url("Handbook", url).id for url in urls]
    for document_id, url in zip(ids, urls, strict=True):
        row = run_fetch(app, document_id)
        assert row.status == "failed", url
        assert "not allowed" in row.error or "Only http" in row.error, (url, row.error)
        html = client.get(f"/admin/documents/{document_id}/row", headers=HX).get_data(as_text=True)
        assert "not allowed" in html and "Retry" in html
    assert internal.requests == [] and no_connections == []  # nothing was ever contacted
    assert not list(Path(app.config["UPLOAD_ROOT"]).glob("url/*"))  # nothing was staged


def test_ssrf_url_import_through_the_cli_is_refused_at_once(app, admin, internal, no_connections):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "import-url", f"http://127.0.0.1:{internal.port}/", "http://10.0.0.5/",
                                 "--area", "Handbook"])
    assert result.exit_code == 1
    assert "loopback" in result.output and "private network" in result.output
    with app.app_context(), db.connection_context():
        assert Document.select().count() == 0
    assert internal.requests == [] and no_connections == []


def test_ssrf_redirect_to_an_internal_address_is_refused(tmp_path, database_url, redis_url, no_connections):
    """A page on an allowed host redirects to the metadata service and to another internal host."""
    with HttpStub() as public, HttpStub(host="127.0.0.2") as hidden:
        hidden.add("GET", "/", Reply(body="internal secrets"))
        public.add("GET", "/a", Reply(status=302, headers={"Location": "http://169.254.169.254/latest/meta-data/"}))
        public.add("GET", "/b", Reply(status=301, headers={"Location": f"http://127.0.0.2:{hidden.port}/"}))
        app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"])
        with app.app_context(), db.connection_context():
            admin_service.create_named(Area, "Handbook")
            from irisrag.services.documents import documents

            ids = [documents.import_url("Handbook", f"{public.url}{path}").id for path in ("/a", "/b")]
        for document_id in ids:
            row = run_fetch(app, document_id)
            assert row.status == "failed" and "not allowed" in row.error and "fetching" in row.error_detail
        assert hidden.requests == [] and [r.path for r in public.requests] == ["/a", "/b"]
        assert set(no_connections) == {"127.0.0.1"}


def test_ssrf_url_import_through_the_api_is_refused_at_once(app, admin, internal, no_connections):
    _client, area, key, _group = admin
    api = app.test_client()
    for url in ("http://169.254.169.254/latest/meta-data/", f"http://[::1]:{internal.port}/",
                f"http://intranet.example:{internal.port}/"):
        resp = api.post("/api/v1/documents", json={"area": area, "url": url}, headers={"X-API-Key": key})
        assert resp.status_code == 403, resp.get_json()
        error = resp.get_json()["error"]
        assert error["code"] == "blocked_address" and "not allowed" in error["message"]
    with app.app_context(), db.connection_context():
        assert Document.select().count() == 0
    assert internal.requests == [] and no_connections == []


def test_ssrf_refused_fetch_is_not_retried_by_the_queue(app, admin, no_connections):
    """Fetch jobs are retried on network errors only: a refusal fails for good (no hammering)."""
    from rq import SimpleWorker

    from irisrag import components

    with app.app_context(), db.connection_context():
        doc = register_url("Handbook", "http://169.254.169.254/latest/meta-data/")
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
