"""Attack suite, CSRF: every state-changing route outside /api/v1 refuses a request without a valid token.

The routes are discovered from ``app.url_map``, so a new POST/PUT/PATCH/DELETE route is covered
the day it is added. Each is sent by a client logged in to *both* worlds (so a refusal is the
token's doing, not a missing login), as a plain form and as htmx would send it, with no
token, a token of another session, and a garbled one. The JSON API is exempt because only an
``X-API-Key`` authenticates there (a cookie alone is 401: tests/web/test_api.py).

Already covered: a login POST and an admin POST without a token (tests/web/test_auth.py), feedback
without a token (tests/web/test_history.py).
"""
from __future__ import annotations

import re

import pytest

from irisrag.extensions import db
from irisrag.models import Area, Group, User
from irisrag.web.errors import CSRF_REFUSED
from tests.conftest import csrf_token, login
from tests.services import PASSWORD, seed_library

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


def url_for_rule(rule) -> str:
    return re.sub(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>", lambda m: "1" if m.group(1) in ("int", "id") else "x", rule.rule)


def unsafe_routes(app) -> list[tuple[str, str, str]]:
    found = []
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1"):
            continue
        for method in sorted(rule.methods & UNSAFE):
            found.append((rule.endpoint, method, url_for_rule(rule)))
    return sorted(found)


@pytest.fixture
def both_worlds(app):
    seed_library(app)
    from irisrag.services.admin import admin as admin_service

    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    assert login(client, "alice", PASSWORD).status_code == 302
    return client


def snapshot(app) -> tuple:
    with app.app_context(), db.connection_context():
        return (User.select().count(), Group.select().count(), Area.select().count(),
                [(u.username, u.is_active, u.password_hash) for u in User.select().order_by(User.id)])


def test_csrf_discovery_finds_the_known_state_changing_routes(app):
    endpoints = {endpoint for endpoint, _, _ in unsafe_routes(app)}
    for known in ("auth.login", "auth.admin_login", "dashboard.ask", "dashboard.give_feedback", "admin.create_user",
                  "admin.change_link", "admin.upload_documents", "admin.delete_document", "admin.create_api_key",
                  "admin.requeue_failed_job", "auth.set_language"):
        assert known in endpoints, known
    assert len(endpoints) >= 25


def test_csrf_every_state_changing_route_refuses_a_missing_or_wrong_token(app, both_worlds):
    client = both_worlds
    other = app.test_client()
    foreign = csrf_token(other, "/login")  # a valid token, of another session
    own = csrf_token(client, "/")
    before = snapshot(app)
    data = {"name": "Sneaky", "username": "mallory", "password": "longenough1", "question": "Was?", "areas": ["1"],
            "rating": "down", "user": "1", "group": "1", "area": "1", "active": "0", "urls": "https://example.org/x"}
    for endpoint, method, url in unsafe_routes(app):
        for token in (None, foreign, own[:-4] + "AAAA", ""):
            for htmx in (False, True):
                headers = {"HX-Request": "true"} if htmx else {}
                form = dict(data)
                if token is not None:
                    (headers.__setitem__("X-CSRFToken", token) if htmx else form.__setitem__("csrf_token", token))
                resp = client.open(url, method=method, data=form, headers=headers)
                assert resp.status_code == 400, (endpoint, method, url, token, htmx, resp.status_code)
                assert CSRF_REFUSED in resp.get_data(as_text=True), (endpoint, url)
    assert snapshot(app) == before  # nothing was created, changed or deleted
    assert client.get("/").status_code == 200 and client.get("/admin").status_code == 200  # still logged in


def test_csrf_the_token_is_accepted_where_it_belongs(app, both_worlds):
    """The control: the same routes work with the page's own token (so the 400s above are the token's)."""
    client = both_worlds
    token = csrf_token(client, "/admin")
    resp = client.post("/admin/groups", data={"name": "Legit", "csrf_token": token})
    assert resp.status_code == 302
    resp = client.post("/admin/groups", data={"name": "Legit2"}, headers={"X-CSRFToken": token, "HX-Request": "true"})
    assert resp.status_code == 200
    with app.app_context(), db.connection_context():
        assert Group.select().where(Group.name.in_(["Legit", "Legit2"])).count() == 2


def test_csrf_api_routes_need_a_key_instead_and_a_cookie_never_suffices(app, both_worlds):
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1") or not rule.methods & UNSAFE or rule.endpoint == "api.unknown":
            continue
        resp = both_worlds.open(url_for_rule(rule), method=sorted(rule.methods & UNSAFE)[0], json={"question": "x"})
        assert resp.status_code == 401, rule.rule  # the logged-in browser's cookies do not authenticate


def test_csrf_pages_carry_the_token_for_htmx(app, both_worlds):
    for path in ("/", "/c", "/admin", "/admin/system", "/admin/feedback"):
        html = both_worlds.get(path).get_data(as_text=True)
        assert re.search(r'<body hx-headers=\'\{"X-CSRFToken": "[^"]+"\}\'>', html), path
