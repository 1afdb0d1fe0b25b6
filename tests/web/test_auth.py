"""Two login worlds, route protection, CSRF, rate limit, no user enumeration, sessions."""
import pytest

from tests.conftest import csrf_token, login, logout

USER_GET = ["/", "/dashboard"]
ADMIN_GET = ["/admin", "/admin/", "/admin/tab/users", "/admin/tab/documents", "/admin/logout"]
ADMIN_POST = ["/admin/users", "/admin/users/1", "/admin/users/1/password", "/admin/users/1/active",
              "/admin/users/1/delete", "/admin/groups", "/admin/groups/1", "/admin/groups/1/delete",
              "/admin/areas", "/admin/areas/1", "/admin/areas/1/delete", "/admin/links/user", "/admin/links/area"]


@pytest.fixture
def accounts(make_user):
    make_user("alice", "alicepassword")
    make_user("root", "rootpassword", admin=True)



def test_auth_anonymous_is_sent_to_the_login_pages(client, accounts):
    for path in USER_GET:
        resp = client.get(path)
        assert resp.status_code == 302 and resp.headers["Location"].startswith("/login"), path
    for path in ADMIN_GET[:-1]:
        resp = client.get(path)
        assert resp.status_code == 302 and resp.headers["Location"].startswith("/admin/login"), path
    token = csrf_token(client)
    for path in ADMIN_POST + ["/ask"]:
        resp = client.post(path, data={"csrf_token": token, "question": "x"})
        assert resp.status_code in (302, 401, 403), path
        assert "login" in resp.headers.get("Location", "login"), path


def test_auth_htmx_request_gets_401_with_redirect_header(client, accounts):
    resp = client.get("/admin/tab/users", headers={"HX-Request": "true"})
    assert resp.status_code == 401 and resp.headers["HX-Redirect"] == "/admin/login"


def test_auth_user_session_does_not_grant_admin_pages(client, accounts):
    assert login(client, "alice", "alicepassword").status_code == 302
    assert client.get("/").status_code == 200
    for path in ADMIN_GET[:-1]:
        resp = client.get(path)
        assert resp.status_code == 302 and resp.headers["Location"].startswith("/admin/login"), path
    token = csrf_token(client, "/")
    for path in ADMIN_POST:
        resp = client.post(path, data={"csrf_token": token, "name": "x", "username": "x", "password": "longenough1"})
        assert resp.status_code in (302, 401, 403), path


def test_auth_user_cannot_log_in_to_the_admin_world(client, accounts, caplog):
    resp = login(client, "alice", "alicepassword", admin=True)
    assert resp.status_code == 401
    assert "This account has no admin rights." in resp.get_data(as_text=True)  # the password was right
    assert "Invalid username or password." not in resp.get_data(as_text=True)
    assert "login_failed method=local user='alice'" in caplog.text and "reason=not an admin" in caplog.text
    assert client.get("/admin").status_code == 302
    wrong = login(client, "alice", "not-her-password", admin=True)  # a guesser learns nothing more
    assert wrong.status_code == 401 and "Invalid username or password." in wrong.get_data(as_text=True)
    assert "admin rights" not in wrong.get_data(as_text=True)


def test_auth_refused_admin_sign_ins_count_for_the_rate_limit(app, client, accounts):
    limit = app.config["LOGIN_RATE_LIMIT"]
    for _ in range(limit):
        assert login(client, "alice", "alicepassword", admin=True).status_code == 401
    resp = login(client, "alice", "alicepassword", admin=True)
    assert resp.status_code == 429 and "admin rights" not in resp.get_data(as_text=True)


def test_auth_admin_session_does_not_grant_user_pages(client, accounts):
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    assert client.get("/admin").status_code == 200
    resp = client.get("/")
    assert resp.status_code == 302 and resp.headers["Location"].startswith("/login")


def test_auth_worlds_are_independent_in_one_browser(client, accounts):
    login(client, "root", "rootpassword", admin=True)
    login(client, "alice", "alicepassword")
    assert client.get("/").status_code == 200 and client.get("/admin").status_code == 200
    logout(client)
    assert client.get("/").status_code == 302
    assert client.get("/admin").status_code == 200  # logging out of one world keeps the other


def test_auth_logged_in_visitor_of_login_page_is_sent_on(client, accounts):
    login(client, "alice", "alicepassword")
    assert client.get("/login").headers["Location"] == "/"
    login(client, "root", "rootpassword", admin=True)
    assert client.get("/admin/login").headers["Location"] == "/admin"


def test_auth_wrong_password_and_unknown_user_get_the_same_answer(client, accounts):
    wrong = login(client, "alice", "not-her-password")
    unknown = login(client, "nobody-here", "whatever-password")
    assert wrong.status_code == unknown.status_code == 401
    msg = "Invalid username or password."
    assert msg in wrong.get_data(as_text=True) and msg in unknown.get_data(as_text=True)


def test_auth_post_without_csrf_token_is_rejected(client, accounts):
    resp = client.post("/login", data={"username": "alice", "password": "alicepassword"})
    assert resp.status_code == 400
    assert client.get("/").status_code == 302  # not logged in
    login(client, "root", "rootpassword", admin=True)
    resp = client.post("/admin/groups", data={"name": "Sneaky"}, headers={"HX-Request": "true"})
    assert resp.status_code == 400
    assert "Sneaky" not in client.get("/admin?tab=groups").get_data(as_text=True)


def test_auth_rate_limit_trips_per_account_and_address(client, app, accounts):
    limit = app.config["LOGIN_RATE_LIMIT"]
    for _ in range(limit):
        assert login(client, "alice", "bad-password").status_code == 401
    resp = login(client, "alice", "alicepassword")  # even the right password waits
    assert resp.status_code == 429 and "Too many failed login attempts" in resp.get_data(as_text=True)
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.9.9.9"
    assert login(other, "alice", "alicepassword").status_code == 302  # no lockout from elsewhere


def test_auth_logout_invalidates_a_copied_session_cookie(client, app, accounts):
    login(client, "alice", "alicepassword")
    cookie = client.get_cookie("session").value
    logout(client)
    thief = app.test_client()
    thief.set_cookie("session", cookie)
    assert thief.get("/").status_code == 302


def test_auth_deactivated_user_is_logged_out(client, app, accounts):
    from irisrag.extensions import db
    from irisrag.models import User
    from irisrag.services.admin import admin as svc

    login(client, "alice", "alicepassword")
    with app.app_context(), db.connection_context():
        svc.set_active(User.get(User.username == "alice").id, False)
    assert client.get("/").status_code == 302
    assert login(client, "alice", "alicepassword").status_code == 401


def test_auth_next_parameter_never_leaves_the_site(client, accounts):
    token = csrf_token(client, "/login?next=//evil.example/x")
    resp = client.post("/login?next=//evil.example/x", data={"username": "alice", "password": "alicepassword", "csrf_token": token})
    assert resp.headers["Location"] == "/"


def test_auth_cookies_are_httponly_and_samesite(client, accounts):
    resp = login(client, "alice", "alicepassword")
    cookie = resp.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_auth_pages_send_security_headers(client, accounts):
    resp = client.get("/login")
    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
    assert resp.headers["Cache-Control"] == "no-store"
    assert "HX-Request" in resp.headers["Vary"]
