"""Passwords, login checks and the login rate limit."""
from __future__ import annotations

import functools
import logging
from datetime import timedelta

from werkzeug.security import check_password_hash, generate_password_hash

from irisrag.errors import SignInRefused, ValidationError
from irisrag.i18n import N_
from irisrag.models import LoginAttempt, User
from irisrag.models.base import utcnow
from irisrag.services.signin.sessions import end_sessions  # noqa: F401  (callers use auth.end_sessions)

log = logging.getLogger(__name__)
MIN_PASSWORD_LENGTH = 8
LOGIN_FAILED = N_("Invalid username or password.")
# said only after the password was right: whoever does not know it learns nothing more
NOT_AN_ADMIN = N_("This account has no admin rights. Sign in on the user login page instead.")
# werkzeug's default (scrypt, n=32768). Only the test suite lowers the cost (tests/conftest.py).
HASH_METHOD = "scrypt"


class RateLimited(ValidationError):
    code = "rate_limited"
    status = 429


def hash_password(password: str) -> str:
    """Hash a password with HASH_METHOD (werkzeug's scrypt)."""
    return generate_password_hash(password, method=HASH_METHOD)


@functools.cache
def _dummy_hash(method: str) -> str:
    """Return a hash checked when the account does not exist, so both cases take the same time."""
    return generate_password_hash("not-a-real-password", method=method)


def check_password_rules(password: str) -> None:
    """Refuse passwords that are too short or blank."""
    if len(password or "") < MIN_PASSWORD_LENGTH or not password.strip():
        raise ValidationError(N_("The password must have at least %(num)d characters."), field="password",
                              params={"num": MIN_PASSWORD_LENGTH})


def _attempt_key(username: str) -> str:
    return (username or "").strip().lower()[:300]


def _recent_failures(key: str, address: str, window: int) -> tuple[int, int]:
    since = utcnow() - timedelta(seconds=window)
    recent = LoginAttempt.select().where(LoginAttempt.at >= since)
    per_account = recent.where((LoginAttempt.key == key) & (LoginAttempt.address == address)).count()
    per_address = recent.where(LoginAttempt.address == address).count()
    return per_account, per_address


def check_rate(key: str, address: str, *, limit: int, window: int) -> None:
    """Refuse when this name and address, or this address across names, failed too often lately."""
    per_account, per_address = _recent_failures(key, address, window)
    if per_account >= limit or per_address >= 4 * limit:
        minutes = max(1, window // 60)
        raise RateLimited(N_("Too many failed login attempts. Please wait %(minutes)d minutes and try again."),
                          params={"minutes": minutes})


def record_failure(key: str, address: str, *, method: str, reason: str) -> None:
    """Count a failed or refused login for the rate limit and log it (never the password)."""
    LoginAttempt.create(key=key, address=address)
    log.warning("login_failed method=%s user=%r address=%s reason=%s", method, key, address, reason)


def _check_local(user: User | None, password: str, *, admin: bool, local_login: str) -> User:
    ok = check_password_hash(user.password_hash if user and user.password_hash else _dummy_hash(HASH_METHOD), password or "")
    allowed = local_login == "on" or (local_login == "admins" and user is not None and user.is_admin)
    if not (user and ok and user.is_active and not user.is_external and allowed):
        reason = "policy" if ok and user and not allowed else "credentials"
        raise ValidationError(LOGIN_FAILED, detail=reason)
    if admin and not user.is_admin:
        raise SignInRefused(NOT_AN_ADMIN, detail="not an admin")
    return user


def _check_directory(directory, username: str, password: str, settings, *, admin: bool) -> User:
    from irisrag.services.signin.external_accounts import sign_in

    user = sign_in(directory.authenticate(username, password), settings)
    if admin and not user.is_admin:
        raise SignInRefused(LOGIN_FAILED, detail="not mapped to admin")
    return user


def authenticate(username: str, password: str, address: str, *, admin: bool, limit: int, window: int,
                 local_login: str = "on", directory=None, settings=None) -> User:
    """Return the active account for these credentials or raise with one neutral message.

    A local account is checked against its password (as ``local_login`` allows); any other
    name goes to the LDAP ``directory`` when one is configured. The limit counts failures per
    (account name, client address), so an attacker elsewhere cannot lock a person out; a
    client address failing across many names is limited at four times the per-account limit.
    A directory that cannot be reached raises ``DirectoryUnavailable`` and counts nothing.
    """
    key = _attempt_key(username)
    check_rate(key, address, limit=limit, window=window)
    user = User.get_or_none(User.username == (username or "").strip())
    method = "ldap" if directory is not None and (user is None or user.auth_source == "ldap") else "local"
    try:
        if method == "ldap":
            user = _check_directory(directory, username, password, settings or {}, admin=admin)
        else:
            user = _check_local(user, password, admin=admin, local_login=local_login)
    except (ValidationError, SignInRefused) as exc:
        record_failure(key, address, method=method, reason=exc.detail or exc.code)
        if isinstance(exc, SignInRefused) and exc.message != LOGIN_FAILED:
            raise
        raise ValidationError(LOGIN_FAILED) from None
    LoginAttempt.delete().where((LoginAttempt.key == key) & (LoginAttempt.address == address)).execute()
    return user


def prune_attempts(window: int) -> int:
    """Delete failed-login records older than the window."""
    return LoginAttempt.delete().where(LoginAttempt.at < utcnow() - timedelta(seconds=window)).execute()
