"""npm's ``oidc-provider`` (tests/support/oidc, pinned by its package-lock.json) on 127.0.0.1.

``start_provider(folder, clients)`` writes the provider's config with a fresh RSA signing key
(kept here as ``private_jwk`` so tests can sign forged tokens with the provider's own key),
starts ``node server.js`` and waits for ``READY``. ``accounts`` are rewritten with
``set_accounts``; the provider reads them at every login. ``login_via_provider`` drives the
provider's own login form over HTTP, as a browser would, and returns the redirect back to
IrisRAG's callback.
"""
from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

import requests

FOLDER = Path(__file__).resolve().parent / "oidc"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rsa_jwk() -> dict:
    from joserfc.jwk import RSAKey

    key = RSAKey.generate_key(2048, parameters={"kid": "test-signing-key", "use": "sig", "alg": "RS256"})
    return key.as_dict(private=True)


def client(client_id: str, secret: str, redirect_uris: list[str], *, logout_uris: list[str] = ()) -> dict:
    """Client metadata for oidc-provider (confidential, authorization code)."""
    return {"client_id": client_id, "client_secret": secret, "redirect_uris": redirect_uris,
            "post_logout_redirect_uris": list(logout_uris), "grant_types": ["authorization_code"],
            "response_types": ["code"], "token_endpoint_auth_method": "client_secret_basic"}


@dataclass
class Provider:
    folder: Path
    issuer: str
    private_jwk: dict
    process: subprocess.Popen
    accounts: dict = field(default_factory=dict)

    @property
    def discovery_url(self) -> str:
        return self.issuer + "/.well-known/openid-configuration"

    def set_accounts(self, accounts: dict) -> None:
        """Replace the provider's people: {login: {password, sub, email, groups}}."""
        self.accounts = accounts
        (self.folder / "accounts.json").write_text(json.dumps(accounts))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def start_provider(folder: Path, clients: list[dict]) -> Provider:
    """Start oidc-provider with these clients; raise RuntimeError when it cannot start."""
    node = shutil.which("node")
    if not node or not (FOLDER / "node_modules" / "oidc-provider").is_dir():
        raise FileNotFoundError("node or tests/support/oidc/node_modules missing (cd tests/support/oidc && npm ci)")
    folder.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    issuer = f"http://127.0.0.1:{port}"
    jwk = _rsa_jwk()
    config = {"port": port, "issuer": issuer, "jwks": {"keys": [jwk]}, "clients": clients,
              "accounts_file": str(folder / "accounts.json")}
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "accounts.json").write_text("{}")
    log = open(folder / "provider.log", "wb")  # noqa: SIM115 - kept open for the process's lifetime
    process = subprocess.Popen([node, str(FOLDER / "server.js"), str(folder / "config.json")],
                               stdout=subprocess.PIPE, stderr=log, cwd=FOLDER)
    provider = Provider(folder, issuer, jwk, process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stdout.readline().decode()
        if line.startswith("READY"):
            return provider
        if process.poll() is not None:
            raise RuntimeError(f"oidc-provider exited: {(folder / 'provider.log').read_text()[-2000:]}")
    provider.stop()
    raise RuntimeError("oidc-provider did not start within 30 s")


def login_via_provider(authorize_url: str, login: str, password: str, *, stop_at: str,
                       session: requests.Session | None = None) -> tuple[str, requests.Session]:
    """Follow the provider's redirects, submit its login form, return the URL sent back to ``stop_at``."""
    session = session or requests.Session()
    url, method, data = authorize_url, "GET", None
    for _ in range(20):
        response = session.request(method, url, data=data, allow_redirects=False, timeout=10)
        if response.is_redirect:
            url, method, data = urljoin(url, response.headers["Location"]), "GET", None
            if url.startswith(stop_at):
                return url, session
            continue
        if response.status_code == 200 and 'id="provider-form"' in response.text:
            if 'id="provider-error"' in response.text:
                raise PermissionError("the provider refused the login")
            action = response.text.split('action="', 1)[1].split('"', 1)[0]
            url, method, data = urljoin(url, action), "POST", {"login": login, "password": password}
            continue
        raise RuntimeError(f"unexpected provider answer {response.status_code}: {response.text[:300]}")
    raise RuntimeError("too many redirects at the provider")
