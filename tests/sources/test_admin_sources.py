"""The admin's sources pages (issue 40 item 1): admins only on every route, CSRF on every form, checked input,
escaped output; a source's page lists its documents and runs, "sync now" queues a sync and follows it."""
import re

import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Source
from irisrag.services.admin import admin as admin_service
from irisrag.services.sources import sources
from irisrag.services.sources.sources import SourceInput
from irisrag.services.sources.sync import run_sync
from tests.conftest import csrf_token, login

HX = {"HX-Request": "true"}


@pytest.fixture
def admin(sync_app):
    client = sync_app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    return client


def a_source(app, url):
    with app.app_context(), db.connection_context():
        return sources.create_source("Handbuch", SourceInput("site", url))


def test_only_admins_reach_any_source_route(sync_app, site):
    source = a_source(sync_app, site.url("/docs/"))
    with sync_app.app_context(), db.connection_context():
        admin_service.create_user("reader", "password123")
    reader = sync_app.test_client()
    assert login(reader, "reader", "password123").status_code == 302
    anonymous = sync_app.test_client()
    token = csrf_token(reader, "/")
    for client in (reader, anonymous):
        for path in ("/admin/sources", f"/admin/sources/{source.id}"):
            assert client.get(path).status_code == 302 and "login" in client.get(path).location
        assert client.get(f"/admin/sources/{source.id}/runs", headers=HX).status_code == 401
        for path in ("/admin/sources", f"/admin/sources/{source.id}/edit", f"/admin/sources/{source.id}/delete",
                     f"/admin/sources/{source.id}/sync"):
            resp = client.post(path, data={"csrf_token": token, "kind": "url", "start_url": site.url("/x"), "area": 1})
            assert resp.status_code in (302, 401, 403), path
    with sync_app.app_context(), db.connection_context():
        assert Source.select().count() == 1 and components.get().queue.count == 0
    result = sync_app.test_cli_runner().invoke(args=["rag", "source", "list"])
    assert site.url("/docs/") in result.output  # the CLI is the operator's (shell access), as every rag command


def test_forms_need_the_csrf_token(admin, sync_app, site):
    source = a_source(sync_app, site.url("/docs/"))
    for path in ("/admin/sources", f"/admin/sources/{source.id}/edit", f"/admin/sources/{source.id}/sync",
                 f"/admin/sources/{source.id}/delete"):
        assert admin.post(path, data={"kind": "url", "start_url": site.url("/a"), "area": 1}).status_code == 400
    with sync_app.app_context(), db.connection_context():
        assert Source.select().count() == 1 and components.get().queue.count == 0


def test_an_admin_creates_syncs_edits_and_deletes_a_source(admin, sync_app, site):
    token = csrf_token(admin, "/admin/sources")
    resp = admin.post("/admin/sources", data={"csrf_token": token, "area": 1, "kind": "site",
                                              "start_url": site.url("/docs/"), "depth": "2", "page_limit": "100",
                                              "interval": "daily"})
    assert resp.status_code == 302
    source_id = int(resp.location.rsplit("/", 1)[1])
    with sync_app.app_context(), db.connection_context():
        assert Source.get_by_id(source_id).url_prefix == site.url("/docs/")
        run_sync(source_id)
    page = admin.get(f"/admin/sources/{source_id}").get_data(as_text=True)
    assert page.count('id="source-doc-') == site.expected_pages and 'id="run-1" data-state="done"' in page
    documents_tab = admin.get("/admin?tab=documents").get_data(as_text=True)
    assert f'href="/admin/sources/{source_id}"' in documents_tab  # each document names its source

    resp = admin.post(f"/admin/sources/{source_id}/sync", data={"csrf_token": token}, headers=HX)
    body = resp.get_data(as_text=True)
    assert resp.status_code == 200 and 'data-live="1"' in body and "after=1" in body  # follows the queued run
    with sync_app.app_context():
        assert components.get().queue.count == 1
    runs = admin.get(f"/admin/sources/{source_id}/runs?after=1&wait=3", headers=HX).get_data(as_text=True)
    assert 'data-live="1"' in runs and 'id="sync-queued"' in runs

    resp = admin.post(f"/admin/sources/{source_id}/edit", data={"csrf_token": token, "start_url": site.url("/docs/"),
                                                           "url_prefix": site.url("/other/"), "interval": "daily"},
                      headers=HX)
    assert resp.status_code == 400 and 'id="url_prefix-error"' in resp.get_data(as_text=True)
    resp = admin.post(f"/admin/sources/{source_id}/delete", data={"csrf_token": token}, headers=HX)
    assert resp.status_code == 200 and "its documents stay" in resp.get_data(as_text=True)


@pytest.mark.parametrize("start", ["http://169.254.169.254/latest/", "http://10.0.0.1/intranet/", "file:///etc/passwd"])
def test_a_source_at_a_refused_address_is_not_stored(admin, sync_app, start):
    token = csrf_token(admin, "/admin/sources")
    resp = admin.post("/admin/sources", data={"csrf_token": token, "area": 1, "kind": "site", "start_url": start},
                      headers=HX)
    assert resp.status_code in (400, 403) and 'role="alert"' in resp.get_data(as_text=True)
    with sync_app.app_context(), db.connection_context():
        assert Source.select().count() == 0


def test_what_a_source_shows_is_escaped(admin, sync_app, site):
    source = a_source(sync_app, site.url('/docs/?q="><script>alert(1)</script>'))
    page = admin.get(f"/admin/sources/{source.id}").get_data(as_text=True)
    assert "<script>alert(1)" not in page and re.search(r"&lt;script&gt;alert\(1\)", page)


def test_the_api_lists_and_syncs_sources_for_admin_keys_of_their_areas_only(sync_app, site):
    from irisrag.models import Area, Group
    from irisrag.services.admin import api_keys

    source = a_source(sync_app, site.url("/docs/"))
    with sync_app.app_context(), db.connection_context():
        other = admin_service.create_named(Area, "Andere")
        hidden = sources.create_source(other.id, SourceInput("url", site.url("/docs/page-1.html")))
        admin_service.create_named(Group, "g")
        admin_service.link_area("Handbuch", "g")
        admin_service.create_user("reader", "password123")
        for name in ("reader", "root"):
            admin_service.link_user(name, "g")
        reader_key, admin_key = api_keys.create_key("reader").plain, api_keys.create_key("root").plain
    client = sync_app.test_client()
    assert client.get("/api/v1/sources", headers={"X-API-Key": reader_key}).status_code == 403
    assert client.post(f"/api/v1/sources/{source.id}/sync", headers={"X-API-Key": reader_key}).status_code == 403
    assert client.get("/api/v1/sources").status_code == 401
    listed = client.get("/api/v1/sources", headers={"X-API-Key": admin_key}).get_json()["sources"]
    assert [s["id"] for s in listed] == [source.id]  # the area the key reaches only
    assert client.get(f"/api/v1/sources/{hidden.id}", headers={"X-API-Key": admin_key}).status_code == 404
    assert client.post(f"/api/v1/sources/{hidden.id}/sync", headers={"X-API-Key": admin_key}).status_code == 404
    with sync_app.app_context():
        assert components.get().queue.count == 0
    resp = client.post(f"/api/v1/sources/{source.id}/sync", headers={"X-API-Key": admin_key})
    assert resp.status_code == 202 and resp.get_json()["job"]
    with sync_app.app_context(), db.connection_context():
        assert components.get().queue.count == 1
        run_sync(source.id)
    shown = client.get(f"/api/v1/sources/{source.id}", headers={"X-API-Key": admin_key}).get_json()
    assert shown["runs"][0]["counts"]["new"] == site.expected_pages and shown["runs"][0]["state"] == "done"
