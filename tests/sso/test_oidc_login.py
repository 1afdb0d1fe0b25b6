"""OpenID Connect sign-in against a real oidc-provider: the whole code flow, and forged callbacks refused."""
from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from irisrag.errors import DirectoryUnavailable, SignInRefused
from irisrag.extensions import db
from irisrag.models import LoginAttempt, User
from irisrag.services.signin.oidc import OidcClient
from tests.conftest import make_app
from tests.sso.conftest import CLIENT_ID, account, area_names, grant_area, oidc_settings
from tests.support.http_stub import closed_port
from tests.support.oidc_provider import login_via_provider

APP = "http://localhost"
PEOPLE = {
    "alice": {"password": "alice-idp-pw", "sub": "sub-alice", "email": "alice@example.org", "groups": ["staff", "x"]},
    "root": {"password": "root-idp-pw", "sub": "sub-root", "email": "root@example.org", "groups": ["it-admins"]},
}


@pytest.fixture
def people(oidc_provider):
    oidc_provider.set_accounts({k: dict(v) for k, v in PEOPLE.items()})
    return oidc_provider


def start(client, world: str = "user") -> str:
    resp = client.get(f"/sso/oidc/login?world={world}")
    assert resp.status_code == 302, resp.get_data(as_text=True)
    return resp.headers["Location"]


def callback_path(url: str) -> str:
    assert url.startswith(APP + "/sso/oidc/callback?")
    return url[len(APP):]


def sign_in(client, name: str, password: str | None = None, *, world: str = "user"):
    """Run the whole flow: IrisRAG -> the provider's login form -> IrisRAG's callback."""
    back, _ = login_via_provider(start(client, world), name, password or PEOPLE[name]["password"], stop_at=APP)
    return client.get(callback_path(back))


def text(resp) -> str:
    return resp.get_data(as_text=True)


def log_out(client):
    """Log out with the POST form (CSRF token from the dashboard), or by the older GET link."""
    from tests.conftest import csrf_token

    resp = client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    return client.get("/logout") if resp.status_code == 405 else resp


def test_oidc_first_login_creates_the_account_with_mapped_groups(oidc_app, people):
    grant_area(oidc_app, "Handbook", "Staff")
    client = oidc_app.test_client()
    authorize = parse_qs(urlsplit(start(client)).query)
    assert authorize["code_challenge_method"] == ["S256"] and len(authorize["code_challenge"][0]) >= 43
    assert authorize["nonce"][0] and authorize["state"][0] and authorize["client_id"] == [CLIENT_ID]
    resp = sign_in(client, "alice")
    assert resp.status_code == 302 and resp.headers["Location"] == "/"
    user = account(oidc_app, "alice")
    assert (user.auth_source, user.external_id, user.password_hash) == ("oidc", f"{people.issuer}|sub-alice", "")
    assert area_names(oidc_app, "alice") == ["Handbook"]
    assert "Handbook" in text(client.get("/"))
    assert client.get("/admin").status_code == 302  # the user world grants nothing in the admin world


def test_oidc_group_removed_at_the_provider_removes_the_area_at_next_login(oidc_app, people):
    grant_area(oidc_app, "Handbook", "Staff")
    grant_area(oidc_app, "Pipeline", "Sales")
    people.set_accounts({"alice": {**PEOPLE["alice"], "groups": ["staff", "sales"]}})
    assert sign_in(oidc_app.test_client(), "alice").status_code == 302
    assert area_names(oidc_app, "alice") == ["Handbook", "Pipeline"]
    people.set_accounts({"alice": {**PEOPLE["alice"], "groups": ["staff"]}})
    assert sign_in(oidc_app.test_client(), "alice").status_code == 302
    assert area_names(oidc_app, "alice") == ["Handbook"]


def test_oidc_admin_console_only_for_people_mapped_to_admin(oidc_app, people):
    admin = oidc_app.test_client()
    resp = sign_in(admin, "root", world="admin")
    assert resp.status_code == 302 and resp.headers["Location"] == "/admin"
    assert admin.get("/admin").status_code == 200
    refused = sign_in(oidc_app.test_client(), "alice", world="admin")
    assert refused.status_code == 401 and "Invalid username or password." in text(refused)
    assert account(oidc_app, "alice").is_admin is False


def test_oidc_wrong_or_missing_state_is_refused(oidc_app, people):
    client = oidc_app.test_client()
    back, _ = login_via_provider(start(client), "alice", "alice-idp-pw", stop_at=APP)
    forged = callback_path(back).replace("state=", "state=forged")
    resp = client.get(forged)
    assert resp.status_code == 401 and "could not be completed" in text(resp)
    # an attacker's callback in a victim's browser that never started a sign-in (login CSRF)
    victim = oidc_app.test_client()
    assert victim.get(callback_path(back)).status_code == 401
    assert account(oidc_app, "alice") is None


def test_oidc_replayed_callback_is_refused(oidc_app, people):
    client = oidc_app.test_client()
    back, _ = login_via_provider(start(client), "alice", "alice-idp-pw", stop_at=APP)
    session_before = client.get_cookie("session").value
    assert client.get(callback_path(back)).status_code == 302
    # the same URL again: the state was used up
    again = oidc_app.test_client()
    again.set_cookie("session", session_before)  # even with the session from before the callback ...
    resp = again.get(callback_path(back))
    assert resp.status_code == 401  # ... the provider refuses the used code


def test_oidc_wrong_pkce_verifier_is_refused(oidc_app, people):
    client = oidc_app.test_client()
    authorize = start(client)
    with client.session_transaction() as session:
        session["oidc_pending"] = {**session["oidc_pending"], "verifier": "x" * 64}
    back, _ = login_via_provider(authorize, "alice", "alice-idp-pw", stop_at=APP)
    assert client.get(callback_path(back)).status_code == 401


def test_oidc_error_from_the_provider_is_refused(oidc_app, people):
    client = oidc_app.test_client()
    state = parse_qs(urlsplit(start(client)).query)["state"][0]
    resp = client.get(f"/sso/oidc/callback?error=access_denied&state={state}")
    assert resp.status_code == 401


def test_oidc_failed_callbacks_are_rate_limited_and_logged(oidc_app, people, caplog):
    client = oidc_app.test_client()
    for _ in range(oidc_app.config["LOGIN_RATE_LIMIT"]):
        assert client.get("/sso/oidc/callback?code=x&state=forged").status_code == 401
    assert client.get("/sso/oidc/login").status_code == 429
    assert "login_failed method=oidc" in caplog.text
    with oidc_app.app_context(), db.connection_context():
        assert LoginAttempt.select().count() == oidc_app.config["LOGIN_RATE_LIMIT"]


def test_oidc_logout_ends_the_session_and_logs_out_at_the_provider(oidc_app, people):
    client = oidc_app.test_client()
    assert sign_in(client, "alice").status_code == 302
    # a logout form may redirect to the provider: the pages' CSP form-action allows its origin
    assert f"form-action 'self' {people.issuer};" in client.get("/").headers["Content-Security-Policy"]
    resp = log_out(client)
    location = resp.headers["Location"]
    assert location.startswith(people.issuer + "/session/end?")
    query = parse_qs(urlsplit(location).query)
    assert query["post_logout_redirect_uri"] == [APP + "/login"] and query["id_token_hint"][0].count(".") == 2
    assert client.get("/").status_code == 302  # the IrisRAG session is over
    import requests

    confirm = requests.get(location, timeout=10)  # the provider accepts the hint (shows its confirm page)
    assert confirm.status_code == 200 and "logout" in confirm.text.lower()


def test_oidc_provider_unreachable_gives_a_clear_message(tmp_path, database_url, redis_url, people):
    url = f"http://127.0.0.1:{closed_port()}/.well-known/openid-configuration"
    app = make_app(tmp_path, database_url, redis_url, **oidc_settings(people, OIDC_DISCOVERY_URL=url))
    resp = app.test_client().get("/sso/oidc/login")
    assert resp.status_code == 503 and "cannot be reached" in text(resp)


def test_oidc_name_of_a_local_account_is_not_taken_over(oidc_app, people, make_user):
    make_user("alice", "local-password-1")
    resp = sign_in(oidc_app.test_client(), "alice")
    assert resp.status_code == 401 and "already exists" in text(resp)
    assert account(oidc_app, "alice").auth_source == "local"


# --- the ID token checks, with tokens signed by the provider's own key ----------------------

def _token(provider, **claims) -> str:
    """An ID token signed with the provider's key; a claim given as None is left out."""
    now = int(time.time())
    body = {"iss": provider.issuer, "aud": CLIENT_ID, "sub": "sub-alice", "iat": now, "exp": now + 300,
            "nonce": "n-1", **claims}
    body = {k: v for k, v in body.items() if v is not None}
    key = RSAKey.import_key(provider.private_jwk)
    return jwt.encode({"alg": "RS256", "kid": provider.private_jwk["kid"]}, body, key)


@pytest.fixture
def verifier(oidc_app, people):
    return OidcClient(oidc_app.config)


def test_oidc_id_token_from_the_provider_key_is_accepted(verifier, people):
    assert verifier.verify_id_token(_token(people), "n-1")["sub"] == "sub-alice"


@pytest.mark.parametrize("claims", [
    {"aud": "another-client"}, {"aud": ["another-client", CLIENT_ID]},  # multi-audience without azp
    {"iss": "http://127.0.0.1:1/evil"}, {"exp": int(time.time()) - 600}, {"nonce": "other"},
    {"iat": None}, {"sub": None},
])
def test_oidc_forged_id_tokens_are_refused(verifier, people, claims):
    with pytest.raises(SignInRefused):
        verifier.verify_id_token(_token(people, **claims), "n-1")


def test_oidc_token_signed_by_another_key_or_unsigned_is_refused(verifier, people):
    other = RSAKey.generate_key(2048, parameters={"kid": "test-signing-key"})
    now = int(time.time())
    body = {"iss": people.issuer, "aud": CLIENT_ID, "sub": "s", "iat": now, "exp": now + 300, "nonce": "n-1"}
    with pytest.raises(SignInRefused):
        verifier.verify_id_token(jwt.encode({"alg": "RS256", "kid": "test-signing-key"}, body, other), "n-1")
    import base64
    import json

    def b64(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    with pytest.raises(SignInRefused):
        verifier.verify_id_token(f"{b64({'alg': 'none'})}.{b64(body)}.", "n-1")


def test_oidc_external_account_cannot_get_a_local_password(oidc_app, people):
    from irisrag.services.admin import admin as admin_service
    from tests.conftest import login, post
    from tests.sso.conftest import admin_client_of

    admin_client = admin_client_of(oidc_app)

    assert sign_in(oidc_app.test_client(), "alice").status_code == 302
    user = account(oidc_app, "alice")
    with oidc_app.app_context(), db.connection_context(), pytest.raises(Exception, match="cannot have a local"):
        admin_service.set_password(user.id, "a-new-password-1")
    resp = post(admin_client, f"/admin/users/{user.id}/password", {"password": "a-new-password-1"})
    assert resp.status_code == 409
    assert f'id="user-pw-{user.id}"' not in text(admin_client.get("/admin?tab=users"))
    with oidc_app.app_context(), db.connection_context():
        assert User.get_by_id(user.id).password_hash == ""
    assert login(oidc_app.test_client(), "alice", "a-new-password-1").status_code == 401
    assert login(oidc_app.test_client(), "alice", "").status_code == 400


def test_oidc_unreachable_keys_never_accept_a_token(oidc_app, people, monkeypatch):
    client = OidcClient(oidc_app.config)
    client.metadata()  # discovery cached, then the key endpoint goes away
    monkeypatch.setattr("irisrag.services.signin.oidc._CACHE", {oidc_app.config["OIDC_DISCOVERY_URL"]: (
        time.monotonic(), {**client.metadata(), "jwks_uri": f"http://127.0.0.1:{closed_port()}/jwks"})})
    with pytest.raises(DirectoryUnavailable):
        client.verify_id_token(_token(people), "n-1")
