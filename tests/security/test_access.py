"""Attack suite, access: a user or key without an area gets nothing of it, by any way in.

Already covered elsewhere (not repeated here): crafted dashboard selections and the area list
(tests/web/test_dashboard.py), keys limited to areas, a key losing a group and a deactivated
user's key (tests/web/test_api.py, tests/services/test_api_keys.py), foreign areas in the CLI
(tests/test_cli_ask.py), permissions recomputed per call and fail-closed retrieval
(tests/services/test_questions.py), other users' history and hidden citations
(tests/web/test_history.py), anonymous and user-world access to admin routes
(tests/web/test_auth.py, tests/web/test_admin_documents.py).

Added here: every content path at once, checked first to show area Beta (so the checks can
see a leak) and then again after access is withdrawn *mid-session* by an admin (user removed
from the group, or the area removed from the group) and after deactivation; the history's
stored answers; and route discovery tests, so every content route (the retrieval inspector
included, and any added later) is refused to anonymous visitors and admin tools to users.
"""
from __future__ import annotations

import json
import re

import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.llm.clients import FakeLLM
from irisrag.models import Group, User
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from tests.conftest import csrf_token, login, post
from tests.services import BETA_SECRET, PASSWORD, QUESTION, seed_library

MARKERS = (BETA_SECRET, "beta-secret.md", "/srv/beta", "beta.yaml")
HX = {"HX-Request": "true"}


@pytest.fixture
def library(app):
    lib = seed_library(app)
    with app.app_context():  # answers cite [1], so citations are on the page too
        components.get().__dict__["llm"] = FakeLLM("Die Konfiguration steht in der Datei [1] und [2].")
    return lib


def leaks(text: str) -> list[str]:
    return [m for m in MARKERS if m in text]


def admin_client(app):
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    return client


def web_views(client, library) -> dict[str, str]:
    """Every page and fragment of the user world that shows content."""
    views = {"dashboard page": client.get("/"), "dashboard fragment": client.get("/", headers=HX)}
    token = csrf_token(client, "/" if views["dashboard page"].status_code == 200 else "/login")
    for htmx in (True, False):
        for areas in ([library.alpha, library.beta], [library.beta], []):
            data = {"question": QUESTION, "areas": [str(a) for a in areas], "show_sources": "on", "csrf_token": token}
            views[f"ask htmx={htmx} areas={areas}"] = client.post("/ask", data=data, headers=HX if htmx else {},
                                                                  follow_redirects=not htmx)  # PRG to /c/<id>
    views["conversation list"] = client.get("/c", follow_redirects=True)
    texts = {name: resp.get_data(as_text=True) for name, resp in views.items()}
    texts["history page"] = conversation_pages(client)
    texts["history fragment"] = conversation_pages(client, HX)
    return texts


def conversation_pages(client, headers=None) -> str:
    """Every conversation of the user's list, as pages (or htmx fragments), joined: what the history showed."""
    listing = client.get("/c").get_data(as_text=True)
    urls = sorted(set(re.findall(r'href="(/c/\d+)"', listing)))
    return "\n".join(client.get(url, headers=headers or {}).get_data(as_text=True) for url in urls)


def api_views(client, key: str, library) -> dict[str, str]:
    """Every API endpoint that returns content (retrieve, answer, documents), with and without areas."""
    headers = {"X-API-Key": key}
    views = {}
    for areas in (None, [library.alpha, library.beta], ["Beta"]):
        body = {"question": QUESTION} if areas is None else {"question": QUESTION, "areas": areas}
        views[f"retrieve {areas}"] = client.post("/api/v1/retrieve", json=body, headers=headers)
        views[f"answer {areas}"] = client.post("/api/v1/answer", json=body, headers=headers)
    views["documents"] = client.get("/api/v1/documents", headers=headers)
    views["documents area"] = client.get(f"/api/v1/documents?area={library.beta}", headers=headers)
    views["document"] = client.get(f"/api/v1/documents/{library.beta_doc}", headers=headers)
    views["areas"] = client.get("/api/v1/areas", headers=headers)
    return {name: f"{resp.status_code} {resp.get_data(as_text=True)}" for name, resp in views.items()}


def cli_views(app, user: str) -> dict[str, str]:
    runner = app.test_cli_runner()
    return {f"cli {args}": runner.invoke(args=["rag", "ask", QUESTION, "--user", user, *args]).output
            for args in ((), ("--json",), ("--area", "Beta"), ("--area", "Alpha", "--area", "Beta"))}


def everything(app, client, key: str, library) -> dict[str, str]:
    return {**web_views(client, library), **api_views(app.test_client(), key, library), **cli_views(app, "carol")}


def carol(app):
    client = app.test_client()
    assert login(client, "carol", PASSWORD).status_code == 302
    with app.app_context(), db.connection_context():
        key = api_keys.create_key("carol").plain
    return client, key


def assert_no_leak(views: dict[str, str]) -> None:
    leaked = {name: leaks(text) for name, text in views.items() if leaks(text)}
    assert not leaked, leaked


def test_access_the_checks_see_area_beta_while_it_is_granted(app, library):
    client, key = carol(app)
    views = everything(app, client, key, library)
    shown = {name for name, text in views.items() if BETA_SECRET in text or "beta-secret.md" in text}
    for expected in ("ask htmx=True areas=[1, 2]", "ask htmx=False areas=[2]", "retrieve None", "answer ['Beta']",
                     "documents", "document", "cli ()", "cli ('--json',)", "history page"):
        expected = expected.replace("[1, 2]", str([library.alpha, library.beta])).replace("[2]", f"[{library.beta}]")
        assert expected in shown, (expected, sorted(shown))
    assert re.search(r'href="#q\d+-cite-1"', views[f"ask htmx=True areas={[library.alpha, library.beta]}"])


@pytest.mark.parametrize("withdraw", ["user_link", "area_link"])
def test_access_withdrawn_mid_session_through_the_admin_console_reaches_nothing(app, library, withdraw):
    client, key = carol(app)
    before = web_views(client, library)  # carol's session, selection and history now hold Beta
    assert BETA_SECRET in before["history page"]
    admin = admin_client(app)
    with app.app_context(), db.connection_context():
        user, team_b = User.get(username="carol"), Group.get(name="team-b")
    if withdraw == "user_link":
        resp = post(admin, "/admin/links/user", {"user": user.id, "group": team_b.id, "op": "unlink"})
    else:
        resp = post(admin, "/admin/links/area", {"area": library.beta, "group": team_b.id, "op": "unlink"})
    assert resp.status_code == 200 and "Link removed." in resp.get_data(as_text=True)
    # the same session cookie and the same key, no new login
    views = everything(app, client, key, library)
    assert_no_leak(views)
    assert "otel-guide.md" in views[f"ask htmx=True areas={[library.alpha, library.beta]}"]  # Alpha still works
    assert views["answer ['Beta']"].startswith("403") and views["document"].startswith("404")
    assert "You may not query" in views["cli ('--area', 'Beta')"]
    page = views["dashboard page"]
    assert f'value="{library.beta}"' not in page and not re.search(r">\s*Beta\s*<", page)


def test_access_deactivated_user_reaches_nothing_anywhere(app, library):
    client, key = carol(app)
    web_views(client, library)
    admin = admin_client(app)
    with app.app_context(), db.connection_context():
        user_id = User.get(username="carol").id
    assert post(admin, f"/admin/users/{user_id}/active", {"active": "0"}).status_code == 200
    views = everything(app, client, key, library)
    assert_no_leak(views)
    assert not any(leaks(text) or "otel-guide.md" in text for text in views.values())
    for name in ("dashboard page", "history page"):
        assert "<html" not in views[name] or "login" in views[name].lower()
    resp = client.get("/")
    assert resp.status_code == 302 and resp.headers["Location"].startswith("/login")
    assert client.get("/history", headers=HX).status_code == 401
    assert all(text.startswith("401") for name, text in views.items() if name in ("retrieve None", "documents"))
    cli = app.test_cli_runner().invoke(args=["rag", "ask", QUESTION, "--user", "carol", "--json"])
    assert cli.exit_code == 1 and "do not have access to any area" in cli.output


def test_access_history_withholds_answers_built_from_an_area_no_longer_permitted(app, library):
    """The stored answer text quotes the passages; it is withheld with them (not only the citations)."""
    client, _key = carol(app)
    with app.app_context():
        components.get().__dict__["llm"] = FakeLLM(f"Der Schlüssel ist {BETA_SECRET} [1].")
    token = csrf_token(client, "/")
    client.post("/ask", data={"question": QUESTION, "areas": [str(library.beta)], "csrf_token": token}, headers=HX)
    with app.app_context():
        components.get().__dict__["llm"] = FakeLLM("Die Kantine öffnet um elf Uhr [1].")
    client.post("/ask", data={"question": "Kantine öffnet wann?", "areas": [str(library.alpha)],
                              "csrf_token": token}, headers=HX)
    assert BETA_SECRET in conversation_pages(client)
    with app.app_context(), db.connection_context():
        admin_service.unlink_user("carol", "team-b")
    page = conversation_pages(client)
    assert leaks(page) == []
    assert "area you can no longer search" in page
    assert "Kantine öffnet wann?" in page and page.count('<li class="turn"') == 2  # the turns stay
    assert "Die Kantine öffnet um elf Uhr" in page  # an answer from areas still permitted is shown


# --- route discovery --------------------------------------------------------------------------

PUBLIC = {"static", "auth.login", "auth.admin_login", "auth.logout", "auth.admin_logout", "auth.set_language",
          "ops.healthz", "ops.readyz", "api.describe", "api.unknown",
          "sso.oidc_login", "sso.oidc_callback"}  # sign-in: forged callbacks are tested in tests/sso


def _url(rule) -> str:
    return re.sub(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>", lambda m: "1" if m.group(1) in ("int", "id") else "x", rule.rule)


def test_access_every_non_public_route_refuses_anonymous_visitors(app, library):
    """Discovered from app.url_map: a new route is covered without editing this test."""
    client = app.test_client()
    token = csrf_token(client, "/login")
    checked = 0
    for rule in app.url_map.iter_rules():
        if rule.endpoint in PUBLIC:
            continue
        url = _url(rule)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            kwargs = {"json": {"question": QUESTION}} if url.startswith("/api/") else {
                "data": {"csrf_token": token, "question": QUESTION}}
            resp = client.open(url, method=method, **kwargs)
            text = resp.get_data(as_text=True)
            assert resp.status_code in (302, 401), (method, url, resp.status_code)
            if resp.status_code == 302:
                assert "/login" in resp.headers["Location"], (method, url)
            assert not leaks(text) and "otel-guide.md" not in text, (method, url)
            checked += 1
    assert checked >= 25


def test_access_every_admin_route_refuses_a_user_world_login(app, library):
    """Admin tools that show content of any area (documents, feedback, the retrieval inspector) stay admin-only."""
    client = app.test_client()
    assert login(client, "carol", PASSWORD).status_code == 302
    token = csrf_token(client, "/")
    checked = 0
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith("admin."):
            continue
        url = _url(rule)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            resp = client.open(url, method=method, data={"csrf_token": token},
                               query_string={"question": QUESTION, "document": 3, "user": 3})
            assert resp.status_code in (302, 401), (method, url, resp.status_code)
            assert "/admin/login" in resp.headers.get("Location", "/admin/login"), (method, url)
            assert not leaks(resp.get_data(as_text=True)), (method, url)
            checked += 1
    assert checked >= 20


def test_access_cli_json_for_a_user_without_the_area(app, library):
    result = app.test_cli_runner().invoke(args=["rag", "ask", QUESTION, "--user", "alice", "--json"])
    data = json.loads(result.output)
    assert result.exit_code == 0 and not leaks(result.output)
    assert {s["area"] for s in data["sources"]} == {"Alpha"}
