"""A URL import refused at submission answers alike at every edge: admin form (htmx or not), API, CLI.

A URL that cannot be fetched as written (no host, a bad port, a broken IPv6 literal, another
scheme) is bad input: 400 with the field ``url``. An address the SSRF guard refuses is 403
(``blocked_address``). The CLI exits 1 with the same message. Nothing is registered.
"""
from __future__ import annotations

import pytest

from irisrag.extensions import db
from irisrag.models import Area, Document, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from tests.conftest import csrf_token

INVALID = {  # url -> the English message every edge shows
    "http://example.org:99999/": "The URL is not valid",
    "http://[::1/": "The URL is not valid",
    "http://": "The URL has no host name",
    "https:///path-only": "The URL has no host name",
    "ftp://example.org/file.pdf": "Please enter a web address starting with http:// or https://.",
}
BLOCKED = {"http://127.0.0.1:9/": "not allowed for URL import", "http://10.0.0.5/": "not allowed for URL import"}


@pytest.fixture
def setup(app, admin_client):
    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Handbook")
        admin_service.create_named(Group, "ops")
        admin_service.link_area("Handbook", "ops")
        admin_service.link_user("root", "ops")
        key = api_keys.create_key("root").plain
    return admin_client, area.id, key


def _form(client, area: int, url: str, *, htmx: bool):
    headers = {"X-CSRFToken": csrf_token(client, "/admin")}
    if htmx:
        headers["HX-Request"] = "true"
    return client.post("/admin/documents/urls", data={"area": str(area), "urls": url}, headers=headers)


@pytest.mark.parametrize(("url", "status"), [(u, 400) for u in INVALID] + [(u, 403) for u in BLOCKED])
def test_url_refusal_has_one_status_in_the_form_with_and_without_htmx_and_in_the_api(setup, app, url, status):
    client, area, key = setup
    message = {**INVALID, **BLOCKED}[url]
    for htmx in (True, False):
        response = _form(client, area, url, htmx=htmx)
        assert (response.status_code, htmx) == (status, htmx)
        assert message in response.get_data(as_text=True)
    response = app.test_client().post("/api/v1/documents", json={"area": area, "url": url},
                                      headers={"X-API-Key": key})
    assert response.status_code == status, response.get_json()
    error = response.get_json()["error"]
    assert message in error["message"]
    assert (error["code"], error.get("field")) == (("invalid", "url") if status == 400 else ("blocked_address", None))
    form = app.test_client().post("/api/v1/documents", data={"area": str(area), "url": url},
                                  headers={"X-API-Key": key}, content_type="multipart/form-data")
    assert form.status_code == status
    with app.app_context(), db.connection_context():
        assert Document.select().count() == 0


def test_url_refusal_in_the_cli_exits_1_with_the_same_messages(setup, app):
    result = app.test_cli_runner().invoke(args=["rag", "import-url", *INVALID, *BLOCKED, "--area", "Handbook"])
    assert result.exit_code == 1
    for message in {**INVALID, **BLOCKED}.values():
        assert message in result.output
    with app.app_context(), db.connection_context():
        assert Document.select().count() == 0


def test_url_refusal_next_to_a_queued_url_keeps_the_form_at_200(setup, app):
    client, area, _key = setup
    response = _form(client, area, "http://example.org:99999/\nhttps://docs.example.org/page", htmx=True)
    assert response.status_code == 200  # one queued: the request succeeded, the line says what was refused
    assert "The URL is not valid" in response.get_data(as_text=True)
