"""OpenID Connect sign-in (authorization code flow with PKCE): the checks; HTTP goes through ``irisrag.oidc_http``.

``begin`` builds the provider's authorization URL with a fresh ``state``, ``nonce`` and PKCE
verifier, which the caller keeps in the session; ``complete`` checks the callback against
them, redeems the code once and verifies the ID token against the provider's published keys
(signature, issuer, audience, expiry, nonce) before anything of it is believed.
"""
from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from authlib.common.security import generate_token
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from irisrag import oidc_http
from irisrag.config import DEFAULTS
from irisrag.errors import DirectoryUnavailable, SignInRefused
from irisrag.i18n import N_
from irisrag.services.signin.external_accounts import ExternalIdentity

log = logging.getLogger(__name__)
UNREACHABLE = N_("The sign-in service cannot be reached at the moment. Please try again later.")
REFUSED = N_("The sign-in could not be completed. Please try again.")
LEEWAY = 60  # seconds of clock difference tolerated on exp/iat
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
_CACHE: dict[str, tuple[float, Any]] = {}
CACHE_SECONDS = 300


def _refuse(reason: str) -> SignInRefused:
    return SignInRefused(REFUSED, detail=reason)


class OidcClient:
    """The configured provider: discovery, authorization URL, code redemption, token checks."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = {**DEFAULTS, **settings}
        self.client_id = settings["OIDC_CLIENT_ID"]
        self.timeout = float(settings.get("OIDC_TIMEOUT", 10.0))

    def _get_json(self, url: str, *, fresh: bool = False) -> dict:
        cached = _CACHE.get(url)
        if cached and not fresh and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        try:
            data = oidc_http.get_json(url, self.timeout)
        except oidc_http.ProviderUnreachable as exc:
            raise DirectoryUnavailable(UNREACHABLE, detail=f"GET {url}: {exc}") from exc
        _CACHE[url] = (time.monotonic(), data)
        return data

    def metadata(self) -> dict:
        """Return the provider's discovery document (cached for five minutes)."""
        data = self._get_json(self.settings["OIDC_DISCOVERY_URL"])
        missing = [k for k in ("issuer", "authorization_endpoint", "token_endpoint", "jwks_uri") if not data.get(k)]
        if missing:
            raise DirectoryUnavailable(UNREACHABLE, detail=f"discovery document lacks {missing}")
        return data

    def _session(self, redirect_uri: str):
        return oidc_http.session(self.client_id, self.settings["OIDC_CLIENT_SECRET"], self.settings["OIDC_SCOPES"],
                                   redirect_uri)

    def begin(self, redirect_uri: str) -> tuple[str, dict]:
        """Return the authorization URL and what the callback must match (keep it server-side)."""
        pending = {"state": generate_token(32), "nonce": generate_token(32), "verifier": generate_token(64)}
        url = oidc_http.authorization_url(
            self._session(redirect_uri), self.metadata()["authorization_endpoint"], state=pending["state"],
            nonce=pending["nonce"], code_verifier=pending["verifier"])
        return url, pending

    def _check_callback(self, params: Mapping[str, str], pending: Mapping[str, str] | None) -> str:
        if not pending or not hmac.compare_digest(str(params.get("state", "")), pending.get("state", "")):
            raise _refuse("state does not match this browser's sign-in")
        if params.get("error"):
            raise _refuse(f"provider answered error={params.get('error')!r}")
        issuer = params.get("iss")
        if issuer and issuer != self.metadata()["issuer"]:  # RFC 9207 mix-up defence
            raise _refuse(f"callback from issuer {issuer!r}")
        if not params.get("code"):
            raise _refuse("no code in the callback")
        return params["code"]

    def _redeem(self, code: str, pending: Mapping[str, str], redirect_uri: str) -> dict:
        try:
            return oidc_http.redeem(self._session(redirect_uri), self.metadata()["token_endpoint"], code,
                                      pending["verifier"], self.timeout)
        except oidc_http.ProviderUnreachable as exc:
            raise DirectoryUnavailable(UNREACHABLE, detail=f"token endpoint: {exc}") from exc
        except oidc_http.ProviderRefused as exc:
            raise _refuse(f"token endpoint refused the code: {exc}") from exc

    def _keys(self, fresh: bool = False) -> KeySet:
        return KeySet.import_key_set(self._get_json(self.metadata()["jwks_uri"], fresh=fresh))

    def verify_id_token(self, id_token: str, nonce: str, *, now: float | None = None) -> dict:
        """Return the ID token's claims after checking signature, issuer, audience, expiry and nonce."""
        try:
            try:
                token = jwt.decode(id_token, self._keys(), algorithms=ALGORITHMS)
            except (JoseError, ValueError):  # perhaps a rotated key: fetch the keys once more
                token = jwt.decode(id_token, self._keys(fresh=True), algorithms=ALGORITHMS)
        except (JoseError, ValueError) as exc:
            raise _refuse(f"ID token signature: {exc}") from exc
        claims = token.claims
        registry = jwt.JWTClaimsRegistry(
            now=int(now if now is not None else time.time()), leeway=LEEWAY,
            iss={"essential": True, "value": self.metadata()["issuer"]},
            aud={"essential": True, "value": self.client_id}, sub={"essential": True},
            exp={"essential": True}, iat={"essential": True})
        try:
            registry.validate(claims)
        except JoseError as exc:
            raise _refuse(f"ID token claims: {exc}") from exc
        audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        if len(audiences) > 1 and claims.get("azp") != self.client_id:
            raise _refuse("ID token for several audiences without azp = our client")
        if not hmac.compare_digest(str(claims.get("nonce", "")), nonce):
            raise _refuse("ID token nonce does not match")
        return claims

    def _userinfo(self, token: dict, sub: str) -> dict:
        url = self.metadata().get("userinfo_endpoint")
        if not url:
            return {}
        try:
            info = oidc_http.get_json(url, self.timeout, bearer=token["access_token"])
        except (oidc_http.ProviderUnreachable, KeyError) as exc:
            log.warning("oidc_userinfo_failed error=%s", exc)
            return {}
        return info if info.get("sub") == sub else {}  # another subject's data is never merged

    def complete(self, params: Mapping[str, str], pending: Mapping[str, str] | None,
                 redirect_uri: str) -> tuple[ExternalIdentity, str]:
        """Check the callback, redeem the code, verify the ID token; return who signed in and the token."""
        code = self._check_callback(params, pending)
        token = self._redeem(code, pending, redirect_uri)
        if not token.get("id_token"):
            raise _refuse("the token response has no ID token")
        claims = self.verify_id_token(token["id_token"], pending["nonce"])
        name_claim, groups_claim = self.settings["OIDC_USERNAME_CLAIM"], self.settings["OIDC_GROUPS_CLAIM"]
        if name_claim not in claims or groups_claim not in claims:
            claims = {**self._userinfo(token, claims["sub"]), **claims}
        groups = claims.get(groups_claim) or []
        groups = [groups] if isinstance(groups, str) else [str(g) for g in groups]
        identity = ExternalIdentity("oidc", f"{claims['iss']}|{claims['sub']}",
                                    str(claims.get(name_claim) or ""), tuple(groups))
        return identity, token["id_token"]

    def end_session_url(self, id_token: str, post_logout_redirect_uri: str) -> str | None:
        """Return the provider's logout URL (RP-initiated logout), or None when it offers none."""
        endpoint = self.metadata().get("end_session_endpoint")
        if not endpoint:
            return None
        query = urlencode({"id_token_hint": id_token, "post_logout_redirect_uri": post_logout_redirect_uri,
                           "client_id": self.client_id})
        return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"
