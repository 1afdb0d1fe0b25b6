"""Sign in through the OpenID provider's own login page in a real browser, and out again."""
from __future__ import annotations

import socket
import threading

import pytest
from werkzeug.serving import make_server

from tests.conftest import make_app, missing
from tests.sso.conftest import CLIENT_ID, CLIENT_SECRET, grant_area, oidc_settings
from tests.support.oidc_provider import client, start_provider

pytestmark = pytest.mark.browser


@pytest.fixture
def sso_site(tmp_path, database_url, redis_url):
    """IrisRAG on a known loopback port and a provider that has it registered as a client."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    try:
        provider = start_provider(tmp_path / "oidc", [client(
            CLIENT_ID, CLIENT_SECRET, [base + "/sso/oidc/callback"], logout_uris=[base + "/login"])])
    except FileNotFoundError as exc:
        missing(str(exc))
    provider.set_accounts({"sabine": {"password": "sabine-idp-pw", "sub": "sub-sabine",
                                      "email": "sabine@example.org", "groups": ["staff"]}})
    app = make_app(tmp_path, database_url, redis_url, **oidc_settings(provider))
    grant_area(app, "Handbook", "Staff")
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield base, provider
    server.shutdown()
    thread.join(10)
    provider.stop()


def test_browser_sign_in_through_the_provider_login_page(page, sso_site):
    base, provider = sso_site
    page.goto(base + "/login")
    page.click("#sso-login")
    page.wait_for_selector("#provider-login")  # the provider's page, not IrisRAG's
    assert page.url.startswith(provider.issuer + "/interaction/")
    page.fill("#login", "sabine")
    page.fill("#password", "wrong-password")
    page.click("#provider-submit")
    page.wait_for_selector("#provider-error")
    page.fill("#login", "sabine")
    page.fill("#password", "sabine-idp-pw")
    page.click("#provider-submit")
    page.wait_for_url(base + "/")
    assert page.is_checked("label:has-text('Handbook') input[name=areas]")
    assert "sabine" in page.content()

    page.click("text=Log out")  # a link, or a POST form whose redirect CSP form-action must allow
    page.wait_for_url(provider.issuer + "/session/end**")
    page.click("button[value=yes]")  # the provider asks before it ends its own session
    page.wait_for_url(base + "/login")
    page.goto(base + "/")
    page.wait_for_url(base + "/login**")  # the IrisRAG session is over
    assert not [e for e in page.console_errors if "Content Security Policy" in e]
