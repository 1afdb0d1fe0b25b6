"""Blueprint ``sso``: OpenID Connect sign-in for both login worlds, and the login page's SSO options.

``/sso/oidc/login?world=user|admin`` sends the browser to the provider; the provider sends it
back to ``/sso/oidc/callback``, which must carry the ``state`` kept in this browser's session
(popped, so a replayed callback finds none). The ID token is kept in the session for the
provider's logout. LDAP needs no view: the login forms check passwords against the directory
(``password_login_options``).
"""
from __future__ import annotations

import logging
from urllib.parse import urlsplit

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from flask_babel import gettext as _

from irisrag.errors import DirectoryUnavailable, IrisRagError, SignInRefused
from irisrag.i18n import N_
from irisrag.services.signin import auth as auth_service
from irisrag.services.signin.external_accounts import sign_in
from irisrag.services.signin.ldap_directory import LdapDirectory
from irisrag.services.signin.oidc import OidcClient
from irisrag.web import security
from irisrag.web.forms import LoginForm

bp = Blueprint("sso", __name__, url_prefix="/sso")
log = logging.getLogger(__name__)
PENDING = "oidc_pending"
ID_TOKEN = {"user": "oidc_id_token", "admin": "oidc_admin_id_token"}
RATE_KEY = "sso:oidc"
SSO_OFF = N_("Single sign-on is not configured.")


def _config():
    return current_app.config


def oidc_enabled() -> bool:
    """Return True when OpenID Connect sign-in is configured."""
    return bool(_config().get("OIDC_DISCOVERY_URL") and _config().get("OIDC_CLIENT_ID"))


def password_login_options() -> dict:
    """Return the keyword arguments of ``auth.authenticate`` for the login forms."""
    config = _config()
    return {"limit": config["LOGIN_RATE_LIMIT"], "window": config["LOGIN_RATE_WINDOW"],
            "local_login": config["LOCAL_LOGIN"], "settings": config,
            "directory": LdapDirectory(config) if config.get("LDAP_URL") else None}


def _redirect_uri() -> str:
    return _config().get("OIDC_REDIRECT_URI") or url_for("sso.oidc_callback", _external=True)


def _refused(world: str, message: str | IrisRagError, status: int):
    """Show the login page with the refusal (a message id, or a domain error) in the user's language."""
    form = LoginForm(formdata=None)
    error = message.translated(_) if isinstance(message, IrisRagError) else _(message)
    return render_template("auth/login.html", form=form, error=error, world=world), status


@bp.route("/oidc/login")
def oidc_login():
    world = "admin" if request.args.get("world") == "admin" else "user"
    if not oidc_enabled():
        return _refused(world, SSO_OFF, 404)
    limits = {"limit": _config()["LOGIN_RATE_LIMIT"], "window": _config()["LOGIN_RATE_WINDOW"]}
    try:
        auth_service.check_rate(RATE_KEY, security.client_address(), **limits)
        url, pending = OidcClient(_config()).begin(_redirect_uri())
    except (auth_service.RateLimited, DirectoryUnavailable) as exc:
        log.warning("sso_start_refused address=%s reason=%s", security.client_address(), exc.detail or exc.code)
        return _refused(world, exc, exc.status)
    default = url_for("admin.index") if world == "admin" else url_for("dashboard.index")
    session[PENDING] = {**pending, "world": world, "next": security.safe_next(request.args.get("next"), default)}
    return redirect(url)


def _finish(world: str, pending: dict):
    client = OidcClient(_config())
    identity, id_token = client.complete(request.args, pending, _redirect_uri())
    user = sign_in(identity, _config())
    if world == "admin" and not user.is_admin:
        raise SignInRefused(auth_service.LOGIN_FAILED, detail="not mapped to admin")
    (security.login_as_admin if world == "admin" else security.login_as_user)(user)
    session[ID_TOKEN[world]] = id_token
    return redirect(pending["next"])


@bp.route("/oidc/callback")
def oidc_callback():
    pending = session.pop(PENDING, None)
    world = (pending or {}).get("world", "user")
    address = security.client_address()
    if not oidc_enabled():
        return _refused(world, SSO_OFF, 404)
    try:
        auth_service.check_rate(RATE_KEY, address, limit=_config()["LOGIN_RATE_LIMIT"],
                                window=_config()["LOGIN_RATE_WINDOW"])
        return _finish(world, pending)
    except auth_service.RateLimited as exc:
        return _refused(world, exc, exc.status)
    except DirectoryUnavailable as exc:
        log.warning("sso_unavailable address=%s detail=%s", address, exc.detail)
        return _refused(world, exc, exc.status)
    except SignInRefused as exc:
        auth_service.record_failure(RATE_KEY, address, method="oidc", reason=exc.detail)
        return _refused(world, exc, exc.status)


def logout_target(world: str, default: str) -> str:
    """Forget this world's ID token; return the provider's logout URL when it offers one, else ``default``."""
    id_token = session.pop(ID_TOKEN[world], None)
    if not (id_token and oidc_enabled() and _config().get("OIDC_LOGOUT")):
        return default
    try:
        back = url_for("auth.admin_login" if world == "admin" else "auth.login", _external=True)
        return OidcClient(_config()).end_session_url(id_token, back) or default
    except DirectoryUnavailable as exc:  # the session here is over anyway
        log.warning("sso_logout_unavailable detail=%s", exc.detail)
        return default


def init_app(app) -> None:
    """Register the blueprint and what the login page needs to offer SSO."""
    app.register_blueprint(bp)

    @app.after_request
    def _allow_provider_logout(response):
        # A logout form (POST) that redirects to the provider's end_session_endpoint is a form
        # submission leaving the site: CSP's form-action must name the provider's origin.
        policy = response.headers.get("Content-Security-Policy", "")
        if oidc_enabled() and app.config.get("OIDC_LOGOUT") and "form-action 'self'" in policy:
            origin = "{0.scheme}://{0.netloc}".format(urlsplit(app.config["OIDC_DISCOVERY_URL"]))
            response.headers["Content-Security-Policy"] = policy.replace(
                "form-action 'self'", f"form-action 'self' {origin}", 1)
        return response

    @app.context_processor
    def _sso_options() -> dict:
        config = app.config
        return {"sso": {"oidc": oidc_enabled(), "oidc_name": config.get("OIDC_PROVIDER_NAME"),
                        "ldap": bool(config.get("LDAP_URL")),
                        "password_form": bool(config.get("LDAP_URL")) or config.get("LOCAL_LOGIN") != "off"}}
