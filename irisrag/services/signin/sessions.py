"""Login sessions: ending every session of an account in one login world.

Its own module because both password sign-in (``auth``) and directory sign-in
(``external_accounts``) end sessions, and ``auth`` calls ``external_accounts``.
"""
from __future__ import annotations

from irisrag.models import User
from irisrag.models.access import new_token


def end_sessions(user: User, *, world: str = "both") -> None:
    """Rotate the account's session token(s), ending its sessions in that login world."""
    if world in ("user", "both"):
        user.session_token = new_token()
    if world in ("admin", "both"):
        user.admin_session_token = new_token()
    user.save(only=[User.session_token, User.admin_session_token])
