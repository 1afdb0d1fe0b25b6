"""The two login worlds: users (Flask-Login) and admins (their own session key).

One account table serves both. Every active account may log in as a user (it sees the
areas of its groups); only accounts with ``is_admin`` may log in as admins. The worlds
are separate: logging in to one grants nothing in the other, and each keeps its own
session token, so logging out of one world does not end the other.
"""
from __future__ import annotations

from functools import wraps
from urllib.parse import urlparse

from flask import Flask, g, redirect, request, session, url_for
from flask_login import LoginManager, UserMixin, current_user, login_user, logout_user

from irisrag.ids import parse_id
from irisrag.models import User
from irisrag.web.htmx import client_redirect, current_url, htmx

login_manager = LoginManager()
ADMIN_KEY = "admin_auth"


class Principal(UserMixin):
    """A user-world login: the account plus the session token it was issued with."""

    def __init__(self, user: User) -> None:
        self.user = user
        self.id = user.id
        self.username = user.username

    def get_id(self) -> str:
        return f"{self.user.id}:{self.user.session_token}"

    @property
    def is_active(self) -> bool:
        return bool(self.user.is_active)


def _load(token: str | None, column: str) -> User | None:
    if not token or ":" not in token:
        return None
    ident, secret = token.split(":", 1)
    user_id = parse_id(ident)
    if user_id is None:
        return None
    user = User.get_or_none(User.id == user_id)
    if user is None or not user.is_active or getattr(user, column) != secret:
        return None
    return user


@login_manager.user_loader
def _load_user(token: str) -> Principal | None:
    user = _load(token, "session_token")
    return Principal(user) if user else None


USER_KEYS = ("_user_id", "_fresh", "_id", "areas", "show_sources", "oidc_id_token")
ADMIN_KEYS = (ADMIN_KEY, "oidc_admin_id_token")


def _fresh_session(keep: tuple[str, ...]) -> None:
    """Drop everything but the other world's login, so no pre-login state survives."""
    kept = {k: session[k] for k in (*keep, "lang") if k in session}
    session.clear()
    session.update(kept)


def login_as_user(user: User) -> None:
    """Start a user-world session."""
    _fresh_session(keep=ADMIN_KEYS)
    login_user(Principal(user))


def logout_as_user() -> None:
    """End the user-world session only."""
    logout_user()
    for key in USER_KEYS:
        session.pop(key, None)


def login_as_admin(user: User) -> None:
    """Start an admin-world session."""
    _fresh_session(keep=USER_KEYS)
    session[ADMIN_KEY] = f"{user.id}:{user.admin_session_token}"


def logout_as_admin() -> None:
    """End the admin-world session only."""
    session.pop(ADMIN_KEY, None)


def current_admin() -> User | None:
    """Return the logged-in admin of this request, if any."""
    if "admin" not in g:
        user = _load(session.get(ADMIN_KEY), "admin_session_token")
        g.admin = user if user is not None and user.is_admin else None
    return g.admin


def _deny(login_endpoint: str):
    if request.method != "GET":
        return session_expired(login_endpoint)
    if htmx:
        return client_redirect(url_for(login_endpoint), 401)
    return redirect(url_for(login_endpoint, next=request.full_path))


def _page_of_the_form() -> str | None:
    """Return the local path of the page a POST came from (htmx's HX-Current-URL, else the Referer)."""
    url = urlparse(current_url() or request.referrer or "")
    if url.netloc != request.host or not url.path.startswith("/") or any(ord(c) < 32 for c in url.path):
        return None
    return url.path + (f"?{url.query}" if url.query else "")


def session_expired(login_endpoint: str):
    """Send a form posted without a (valid) login to the login page, saying the session expired.

    The login returns to the page the form was on; ``static/app.js`` kept the typed question
    in sessionStorage and puts it back there. htmx and the stream get 401 with HX-Redirect.
    """
    target = url_for(login_endpoint, expired=1, next=_page_of_the_form())
    if htmx:
        return client_redirect(target, 401)
    return redirect(target)


def logged_out_of(path: str) -> str | None:
    """Return the login endpoint of the world ``path`` belongs to when nobody is logged in there, else None."""
    if path.startswith(("/login", "/admin/login", "/logout", "/admin/logout", "/language/", "/oidc/")):
        return None
    if path.startswith("/admin"):
        return "auth.admin_login" if current_admin() is None else None
    return "auth.login" if not current_user.is_authenticated else None


def user_required(view):
    """Let only a logged-in user (user world) through."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        if not current_user.is_authenticated:
            return _deny("auth.login")
        return view(*args, **kwargs)

    return wrapper


def admin_required(view):
    """Let only a logged-in admin (admin world) through."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        if current_admin() is None:
            return _deny("auth.admin_login")
        return view(*args, **kwargs)

    return wrapper


def refuse_bad_next(target: str | None) -> None:
    """Answer 400 for a ``next`` with control characters (CR/LF would split the Location header)."""
    if target and any(ord(c) < 32 or ord(c) == 127 for c in target):
        from flask_babel import gettext
        from werkzeug.exceptions import BadRequest

        raise BadRequest(gettext("The address to return to after login is not valid."))


def safe_next(target: str | None, default: str) -> str:
    """Return a local redirect target, never another host."""
    refuse_bad_next(target)
    if not target:
        return default
    parsed = urlparse(target)
    if parsed.scheme or parsed.netloc or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    return target


def client_address() -> str:
    """Return the client address used by the login rate limit."""
    return (request.remote_addr or "unknown")[:64]


def init_app(app: Flask) -> None:
    """Bind Flask-Login and expose ``current_admin`` to templates."""
    login_manager.init_app(app)
    login_manager.session_protection = "basic"

    @login_manager.unauthorized_handler
    def _unauthorized():
        return _deny("auth.login")

    app.context_processor(lambda: {"current_admin": current_admin()})
