"""HTTP to the OpenID Connect provider: JSON documents and the token endpoint (requests, Authlib).

The sign-in service (``irisrag.services.signin.oidc``) decides what to believe; this adapter only
talks to the provider and reports failures as its own errors, so the service never sees
``requests``: ``ProviderUnreachable`` (no answer, an HTTP error, no JSON) and
``ProviderRefused`` (the token endpoint refused the code).
"""
from __future__ import annotations

from typing import Any

import requests
from authlib.integrations.requests_client import OAuth2Session


class ProviderUnreachable(Exception):
    """The provider did not answer, answered an HTTP error, or answered no JSON."""


class ProviderRefused(Exception):
    """The provider answered, and refused (the code, the verifier, the client)."""


def get_json(url: str, timeout: float, *, bearer: str | None = None) -> Any:
    """GET a JSON document (discovery, keys, userinfo with a bearer token)."""
    headers = {"Authorization": f"Bearer {bearer}"} if bearer is not None else None
    try:
        response = requests.get(url, headers=headers, timeout=timeout)
        response.raise_for_status()
        return response.json()
    except (requests.RequestException, ValueError) as exc:
        raise ProviderUnreachable(str(exc)) from exc


def session(client_id: str, secret: str, scope: str, redirect_uri: str) -> OAuth2Session:
    """Return an OAuth 2 session for the authorization code flow with PKCE (S256)."""
    return OAuth2Session(client_id, secret, scope=scope, redirect_uri=redirect_uri, code_challenge_method="S256")


def authorization_url(client: OAuth2Session, endpoint: str, **params: str) -> str:
    """Return the provider's authorization URL with the given state, nonce and code verifier."""
    url, _ = client.create_authorization_url(endpoint, **params)
    return url


def redeem(client: OAuth2Session, token_endpoint: str, code: str, verifier: str, timeout: float) -> dict:
    """Redeem an authorization code at the token endpoint; return the token response."""
    try:
        return client.fetch_token(token_endpoint, grant_type="authorization_code", code=code,
                                  code_verifier=verifier, timeout=timeout)
    except requests.RequestException as exc:
        raise ProviderUnreachable(str(exc)) from exc
    except Exception as exc:  # Authlib's OAuthError and friends: the provider refused the code
        raise ProviderRefused(str(exc)) from exc
