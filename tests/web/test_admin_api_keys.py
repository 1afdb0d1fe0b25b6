"""Admin API keys in the Users tab: create (shown once), list, revoke with confirmation."""
from __future__ import annotations

import re

from irisrag.extensions import db
from irisrag.models import ApiKey
from irisrag.services.admin import api_keys
from tests.conftest import post
from tests.services import seed_library

KEY_RE = re.compile(r'id="new-api-key-value" value="(irk_[0-9]+_[A-Za-z0-9_-]+)"')


def _body(resp) -> str:
    return resp.get_data(as_text=True)


def test_admin_api_keys_create_shows_the_key_once_and_it_works(admin_client, app):
    library = seed_library(app)
    html = _body(admin_client.get("/admin/tab/users", headers={"HX-Request": "true"}))
    assert "API keys" in html and "No API keys yet." in html and 'id="new-api-key-form"' in html
    resp = post(admin_client, "/admin/api-keys", {"user": library.users["carol"], "name": "bot",
                                                   "areas": [str(library.alpha)]})
    assert resp.status_code == 200 and "API key created." in _body(resp)
    key = KEY_RE.search(_body(resp)).group(1)
    assert resp.headers["Cache-Control"] == "no-store"
    areas = app.test_client().get("/api/v1/areas", headers={"X-API-Key": key}).get_json()["areas"]
    assert [a["name"] for a in areas] == ["Alpha"]
    listed = _body(admin_client.get("/admin/tab/users", headers={"HX-Request": "true"}))
    assert key not in listed and 'id="new-api-key-value"' not in listed  # shown only once
    with app.app_context(), db.connection_context():
        row = ApiKey.get()
    assert f"<code>{row.prefix}…</code>" in listed and "bot" in listed
    assert "never" not in listed  # it was used above


def test_admin_api_keys_refuses_areas_beyond_the_user(admin_client, app):
    library = seed_library(app)
    resp = post(admin_client, "/admin/api-keys", {"user": library.users["alice"], "areas": [str(library.beta)]})
    assert resp.status_code == 400 and 'id="api-key-error"' in _body(resp) and "may not query" in _body(resp)
    resp = post(admin_client, "/admin/api-keys", {})
    assert resp.status_code == 400 and "Please choose a user." in _body(resp)
    with app.app_context(), db.connection_context():
        assert ApiKey.select().count() == 0


def test_admin_api_keys_revoke_with_confirmation(admin_client, app):
    seed_library(app)
    with app.app_context(), db.connection_context():
        created = api_keys.create_key("alice")
    html = _body(admin_client.get("/admin/tab/users", headers={"HX-Request": "true"}))
    assert f'hx-post="/admin/api-keys/{created.key.id}/revoke"' in html and "hx-confirm=" in html
    resp = post(admin_client, f"/admin/api-keys/{created.key.id}/revoke")
    assert resp.status_code == 200 and "API key revoked." in _body(resp)
    assert re.search(r"revoked \w{3} \d{1,2}, 20\d\d, \d{1,2}:\d\d", _body(resp))  # when, in the user's language
    assert f"/admin/api-keys/{created.key.id}/revoke" not in _body(resp)
    assert app.test_client().get("/api/v1/areas", headers={"X-API-Key": created.plain}).status_code == 401
    resp = post(admin_client, "/admin/api-keys/999/revoke")
    assert resp.status_code == 404


def test_admin_api_keys_need_an_admin(client, app):
    seed_library(app)
    assert client.post("/admin/api-keys", data={"user": 1}).status_code in (302, 400)
    with app.app_context(), db.connection_context():
        assert ApiKey.select().count() == 0
