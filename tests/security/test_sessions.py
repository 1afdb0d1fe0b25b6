"""Attack suite, sessions: fixation, logout, separate worlds, cookie flags.

Already covered in tests/web/test_auth.py: the worlds grant nothing in each other and log
out separately, a copied user-world cookie stops working after logout, deactivation ends
the session, HttpOnly + SameSite=Lax, open redirects after login. Added here: session
fixation in both worlds, the admin world's copied cookie after logout, a password change
ending sessions everywhere, and the Secure flag behind HTTPS (IRISRAG_SESSION_COOKIE_SECURE).

Flask keeps the session in a signed cookie, so "the session id" is the cookie value: it must
change at login, and no value planted before the login may carry over into it.
"""
from __future__ import annotations

import pytest
from flask.sessions import SecureCookieSessionInterface

from irisrag.extensions import db
from irisrag.models import User
from irisrag.services.admin import admin as admin_service
from tests.conftest import csrf_token, login, logout, make_app


@pytest.fixture
def accounts(make_user):
    make_user("alice", "alicepassword")
    make_user("root", "rootpassword", admin=True)


def session_data(app, client) -> dict:
    cookie = client.get_cookie("session")
    if cookie is None:
        return {}
    serializer = SecureCookieSessionInterface().get_signing_serializer(app)
    return dict(serializer.loads(cookie.value))


def plant(app, client, **values) -> str:
    """Set a session cookie, as an attacker who made the victim's browser accept theirs."""
    serializer = SecureCookieSessionInterface().get_signing_serializer(app)
    client.set_cookie("session", serializer.dumps(values))
    return client.get_cookie("session").value


@pytest.mark.parametrize("world", ["user", "admin"])
def test_sessions_fixation_planted_session_is_replaced_at_login(app, client, accounts, world):
    # The attacker got a session from the site (with its CSRF token) and plants it, plus state of their choosing.
    csrf_token(client, "/login")
    planted = plant(app, client, **session_data(app, client), areas=[999], show_sources=False, marker="attacker")
    name, password = ("root", "rootpassword") if world == "admin" else ("alice", "alicepassword")
    assert login(client, name, password, admin=world == "admin").status_code == 302
    after = client.get_cookie("session").value
    assert after != planted
    assert "marker" not in session_data(app, client)
    if world == "admin":  # the admin login keeps the user world's keys; they reach no user login:
        login(client, "alice", "alicepassword")
    data = session_data(app, client)
    assert "marker" not in data and "areas" not in data and "show_sources" not in data
    # The planted cookie stays anonymous: knowing it gives the attacker nothing.
    attacker = app.test_client()
    attacker.set_cookie("session", planted)
    assert attacker.get("/").status_code == 302 and attacker.get("/admin").status_code == 302


def test_sessions_login_token_is_bound_to_the_account_not_to_a_guessable_id(app, client, accounts):
    login(client, "alice", "alicepassword")
    data = session_data(app, client)
    user_id, token = data["_user_id"].split(":", 1)
    assert len(token) >= 16
    forged = app.test_client()
    plant(app, forged, _user_id=f"{user_id}:guessed-token", _fresh=True)  # even with the signing key ...
    assert forged.get("/").status_code == 302  # ... the per-account session token is needed


def test_sessions_admin_logout_invalidates_a_copied_admin_cookie(app, client, accounts):
    login(client, "root", "rootpassword", admin=True)
    copied = client.get_cookie("session").value
    assert logout(client, admin=True).status_code == 302
    assert client.get("/admin").status_code == 302
    thief = app.test_client()
    thief.set_cookie("session", copied)
    assert thief.get("/admin").status_code == 302 and thief.get("/admin/tab/users").status_code == 302


def test_sessions_user_logout_keeps_the_admin_world_and_vice_versa(app, client, accounts):
    login(client, "root", "rootpassword", admin=True)
    login(client, "root", "rootpassword")
    both = client.get_cookie("session").value
    logout(client, admin=True)
    assert client.get("/").status_code == 200 and client.get("/admin").status_code == 302
    thief = app.test_client()
    thief.set_cookie("session", both)  # the cookie from before the admin logout
    assert thief.get("/admin").status_code == 302  # the admin world of it is over
    assert thief.get("/").status_code == 200  # the user world was not logged out


def test_sessions_password_change_ends_sessions_in_both_worlds(app, client, accounts):
    login(client, "root", "rootpassword", admin=True)
    login(client, "root", "rootpassword")
    copied = client.get_cookie("session").value
    with app.app_context(), db.connection_context():
        admin_service.set_password(User.get(username="root").id, "a-new-password")
    thief = app.test_client()
    thief.set_cookie("session", copied)
    assert thief.get("/").status_code == 302 and thief.get("/admin").status_code == 302


def test_sessions_no_remember_me_cookie_outlives_the_session(client, accounts):
    resp = login(client, "alice", "alicepassword")
    cookies = resp.headers.getlist("Set-Cookie")
    assert all(not c.startswith("remember_token") for c in cookies)
    assert all("Expires" not in c for c in cookies if c.startswith("session="))  # a browser-session cookie


def test_sessions_cookie_is_secure_behind_https(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, SESSION_COOKIE_SECURE=True)
    from irisrag.services.admin import admin as svc

    with app.app_context(), db.connection_context():
        svc.create_user("alice", "alicepassword")
    client = app.test_client()
    client.environ_base["wsgi.url_scheme"] = "https"
    token = csrf_token(client, "/login")
    resp = client.post("/login", data={"username": "alice", "password": "alicepassword", "csrf_token": token},
                       base_url="https://localhost")
    cookie = next(c for c in resp.headers.getlist("Set-Cookie") if c.startswith("session="))
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert app.config["REMEMBER_COOKIE_SECURE"] is True


def test_sessions_cookie_is_not_secure_by_default_for_plain_http(client, accounts):
    cookie = next(c for c in login(client, "alice", "alicepassword").headers.getlist("Set-Cookie")
                  if c.startswith("session="))
    assert "Secure" not in cookie  # a local install over http must still be able to log in


@pytest.mark.parametrize("admin", [False, True])
def test_sessions_a_logout_link_only_asks_and_a_post_needs_the_csrf_token(app, client, accounts, admin):
    """A link in a document or an answer (GET, or a cross-site POST without the token) ends no session."""
    home, path = ("/admin", "/admin/logout") if admin else ("/", "/logout")
    login(client, "root", "rootpassword", admin=admin)
    page = client.get(path)
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'method="post"' in html and 'name="csrf_token"' in html
    assert client.get(home).status_code == 200  # still logged in
    assert client.post(path).status_code == 400  # no token: refused
    assert client.post(path, data={"csrf_token": "forged"}).status_code == 400
    assert client.get(home).status_code == 200
    header = client.get(home).get_data(as_text=True)
    assert f'action="{path}"' in header and f'href="{path}"' not in header  # the header button is a form
    assert logout(client, admin=admin).status_code == 302
    assert client.get(home).status_code == 302


@pytest.mark.parametrize("admin", [False, True])
@pytest.mark.parametrize("bad", ["/%0d%0aSet-Cookie:%20x=1", "/admin%0aLocation:%20//evil.example", "/%09x", "/%7f"])
def test_sessions_next_with_control_characters_is_refused_with_400(app, client, accounts, admin, bad):
    path = "/admin/login" if admin else "/login"
    assert client.get(f"{path}?next={bad}").status_code == 400
    token = csrf_token(client, path)
    resp = client.post(f"{path}?next={bad}", data={"username": "root", "password": "rootpassword",
                                                   "csrf_token": token})
    assert resp.status_code == 400 and "Set-Cookie" not in str(resp.headers.get("Location"))
    home = "/admin" if admin else "/"
    assert client.get(home).status_code == 302  # not logged in by the refused request
