"""Passwords, login checks and the login rate limit."""
from __future__ import annotations

import functools
from datetime import timedelta

from werkzeug.security import check_password_hash, generate_password_hash

from irisrag.errors import ValidationError
from irisrag.i18n import N_
from irisrag.models import LoginAttempt, User
from irisrag.models.access import new_token
from irisrag.models.base import utcnow

MIN_PASSWORD_LENGTH = 8
LOGIN_FAILED = N_("Invalid username or password.")
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
        raise ValidationError(
            f"The password must have at least {MIN_PASSWORD_LENGTH} characters.", field="password"
        )


def _attempt_key(username: str) -> str:
    return (username or "").strip().lower()[:300]


def _recent_failures(key: str, address: str, window: int) -> tuple[int, int]:
    since = utcnow() - timedelta(seconds=window)
    recent = LoginAttempt.select().where(LoginAttempt.at >= since)
    per_account = recent.where((LoginAttempt.key == key) & (LoginAttempt.address == address)).count()
    per_address = recent.where(LoginAttempt.address == address).count()
    return per_account, per_address


def authenticate(username: str, password: str, address: str, *, admin: bool, limit: int, window: int) -> User:
    """Return the active account for these credentials or raise with one neutral message.

    The limit counts failures per (account name, client address), so an attacker elsewhere
    cannot lock a person out; a client address failing across many names is limited at
    four times the per-account limit.
    """
    key = _attempt_key(username)
    per_account, per_address = _recent_failures(key, address, window)
    if per_account >= limit or per_address >= 4 * limit:
        minutes = max(1, window // 60)
        raise RateLimited(f"Too many failed login attempts. Please wait {minutes} minutes and try again.")
    user = User.get_or_none(User.username == (username or "").strip())
    ok = check_password_hash(user.password_hash if user else _dummy_hash(HASH_METHOD), password or "")
    if not (user and ok and user.is_active and (user.is_admin or not admin)):
        LoginAttempt.create(key=key, address=address)
        raise ValidationError(LOGIN_FAILED)
    LoginAttempt.delete().where((LoginAttempt.key == key) & (LoginAttempt.address == address)).execute()
    return user


def end_sessions(user: User, *, world: str = "both") -> None:
    """Rotate the account's session token(s), ending its sessions in that login world."""
    if world in ("user", "both"):
        user.session_token = new_token()
    if world in ("admin", "both"):
        user.admin_session_token = new_token()
    user.save(only=[User.session_token, User.admin_session_token])


def prune_attempts(window: int) -> int:
    """Delete failed-login records older than the window."""
    return LoginAttempt.delete().where(LoginAttempt.at < utcnow() - timedelta(seconds=window)).execute()
