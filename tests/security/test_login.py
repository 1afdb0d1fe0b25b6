"""Attack suite, login: rate limiting, no user enumeration, password rules.

Already covered in tests/web/test_auth.py: the per-(account, address) limit and that another
address is not locked out, the same message for a wrong password and an unknown user, a user
refused at the admin login with that message; in tests/web/test_admin.py: a short password
refused when an admin creates an account.

Added here: the per-address limit across many names (password spraying), that the limit
itself answers the same for existing and unknown accounts, deactivated accounts answering
like wrong passwords, password rules on every way an account gets a password (admin form,
password change, CLI), and that a refused attempt leaves nothing changed.
"""
from __future__ import annotations

import re

import pytest

from irisrag.extensions import db
from irisrag.models import LoginAttempt, User
from irisrag.services.admin import admin as admin_service
from tests.conftest import login, post

MESSAGE = "Invalid username or password."
TOKENS = re.compile(r'(?<=value=")[^"]+(?=")|(?<="X-CSRFToken": ")[^"]+')  # per-session CSRF tokens


@pytest.fixture
def accounts(make_user):
    make_user("alice", "alicepassword")
    make_user("root", "rootpassword", admin=True)


def text(resp) -> str:
    return resp.get_data(as_text=True)


def test_login_spraying_many_names_from_one_address_is_limited(app, client, accounts):
    limit = app.config["LOGIN_RATE_LIMIT"]
    for n in range(4 * limit):  # one wrong try for each of many names: under the per-account limit
        assert login(client, f"name{n}", "guess-password").status_code == 401
    resp = login(client, "alice", "alicepassword")
    assert resp.status_code == 429 and "Too many failed login attempts" in text(resp)
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "10.1.1.1"
    assert login(elsewhere, "alice", "alicepassword").status_code == 302  # the person is not locked out


@pytest.mark.parametrize("admin_world", [False, True])
def test_login_the_limit_answers_alike_for_existing_and_unknown_accounts(app, accounts, admin_world):
    limit = app.config["LOGIN_RATE_LIMIT"]
    answers = {}
    for name in ("root", "nobody-at-all"):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"10.0.0.{len(answers) + 1}"
        for _ in range(limit):
            assert login(client, name, "wrong-password", admin=admin_world).status_code == 401
        resp = login(client, name, "wrong-password", admin=admin_world)
        answers[name] = (resp.status_code, TOKENS.sub("TOKEN", text(resp).replace(name, "NAME")))
    assert answers["root"] == answers["nobody-at-all"] and answers["root"][0] == 429


def test_login_deactivated_and_non_admin_accounts_answer_like_a_wrong_password(app, client, accounts):
    with app.app_context(), db.connection_context():
        admin_service.set_active(User.get(username="alice").id, False)
    bodies = {
        "deactivated, right password": login(client, "alice", "alicepassword"),
        "wrong password": login(app.test_client(), "root", "wrong-password"),
        "unknown": login(app.test_client(), "nobody-at-all", "whatever-password"),
        "user at the admin login": login(app.test_client(), "alice", "alicepassword", admin=True),
    }
    for name, resp in bodies.items():
        assert resp.status_code == 401 and MESSAGE in text(resp), name
        assert "deactivated" not in text(resp).lower() and "not an admin" not in text(resp).lower(), name


def test_login_a_successful_login_clears_only_its_own_failures(app, client, accounts):
    for _ in range(3):
        login(client, "alice", "wrong-password")
    login(client, "root", "wrong-password")
    assert login(client, "alice", "alicepassword").status_code == 302
    with app.app_context(), db.connection_context():
        assert [a.key for a in LoginAttempt.select()] == ["root"]


@pytest.mark.parametrize("password", ["short7!", "        ", "\t\t\t\t\t\t\t\t", ""])
def test_login_password_rules_for_admin_created_accounts(app, admin_client, password):
    resp = post(admin_client, "/admin/users", {"username": "bob", "password": password})
    assert resp.status_code == 400
    assert "at least 8 characters" in text(resp) or "This field is required" in text(resp)
    with app.app_context(), db.connection_context():
        assert not User.select().where(User.username == "bob").exists()


@pytest.mark.parametrize("password", ["short7!", "         "])
def test_login_password_rules_when_an_admin_sets_a_password(app, admin_client, make_user, client, password):
    alice = make_user("alice", "alicepassword")
    resp = post(admin_client, f"/admin/users/{alice.id}/password", {"password": password})
    assert resp.status_code == 400
    assert "at least 8 characters" in text(resp) or "Please enter a password." in text(resp)
    assert login(client, "alice", "alicepassword").status_code == 302  # the old password still works


def test_login_password_rules_in_the_cli(app):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "create-user", "carl", "--password-stdin"], input="short\n")
    assert result.exit_code == 1 and "at least 8 characters" in result.output
    result = runner.invoke(args=["rag", "create-user", "carl", "--password-stdin"], input="long enough\n")
    assert result.exit_code == 0, result.output
    with app.app_context(), db.connection_context():
        stored = User.get(username="carl").password_hash
    assert stored.startswith("scrypt:") and "long enough" not in stored


def test_login_production_hash_is_werkzeugs_full_scrypt():
    """The suite hashes cheaply (tests/conftest.py); the product keeps werkzeug's scrypt at n=32768."""
    from werkzeug.security import generate_password_hash

    from tests.conftest import PRODUCTION_HASH_METHOD

    assert PRODUCTION_HASH_METHOD == "scrypt"
    assert generate_password_hash("x", method=PRODUCTION_HASH_METHOD).startswith("scrypt:32768:8:1$")


def test_login_oversized_credentials_are_refused_without_hashing_megabytes(app, client, accounts):
    resp = login(client, "alice", "x" * 100_000)
    assert resp.status_code == 400  # the form's length limit, before any hash is computed
    resp = login(client, "a" * 10_000, "alicepassword")
    assert resp.status_code == 400


def behind_proxy(app, client_address: str | None):
    """A client whose requests reach the app through one proxy at 10.9.9.9 (X-Forwarded-For set by it)."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "10.9.9.9"
    if client_address:
        client.environ_base["HTTP_X_FORWARDED_FOR"] = client_address
    return client


@pytest.mark.parametrize("admin_world", [False, True])
def test_login_behind_a_trusted_proxy_limits_each_client_on_its_own(tmp_path, database_url, redis_url, admin_world):
    from tests.conftest import make_app

    app = make_app(tmp_path, database_url, redis_url, TRUSTED_PROXIES=1)
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
    limit = app.config["LOGIN_RATE_LIMIT"]
    attacker = behind_proxy(app, "203.0.113.66")
    for n in range(4 * limit):  # the named account, then many names: both budgets of that address spent
        name = "root" if n < limit else f"name{n}"
        assert login(attacker, name, "wrong-password", admin=admin_world).status_code == 401
    assert login(attacker, "root", "rootpassword", admin=admin_world).status_code == 429
    owner = behind_proxy(app, "198.51.100.7")  # the real owner, elsewhere, through the same proxy
    assert login(owner, "root", "rootpassword", admin=admin_world).status_code == 302
    with app.app_context(), db.connection_context():
        assert {a.address for a in LoginAttempt.select()} == {"203.0.113.66"}


def test_login_forwarded_headers_are_ignored_without_trusted_proxies(app, accounts):
    """Clients reaching the app directly cannot pick their address to escape the limit."""
    limit = app.config["LOGIN_RATE_LIMIT"]
    for n in range(limit):
        client = behind_proxy(app, f"203.0.113.{n + 1}")
        assert login(client, "alice", "wrong-password").status_code == 401
    assert login(behind_proxy(app, "203.0.113.200"), "alice", "alicepassword").status_code == 429
