"""API keys: create (the plain key is returned once), revoke, authenticate, list, effective areas.

A key reads ``irk_<id>_<secret>``. The secret is a random 32-byte token, so a fast hash
is enough: only its SHA-256 is stored and compared in constant time. A key never reaches
more than its user: its effective areas are the user's permitted areas (computed on every
request, so a lost group is lost through the key too), intersected with the key's own
areas when it is limited. A deactivated user's keys stop working; a revoked key stays
listed with the time it was revoked.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from irisrag.errors import Conflict, Forbidden, NotFound, ValidationError
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.models import ApiKey, ApiKeyArea, Area, User
from irisrag.models.base import utcnow
from irisrag.services import access
from irisrag.services.admin.admin import get as get_named

PREFIX = "irk"
KEY_RE = re.compile(r"^irk_([0-9]{1,18})_([A-Za-z0-9_-]{16,128})$")
NAME_RE = re.compile(r"^[^\x00-\x1f\x7f<>]{0,150}$")
SHOWN_SECRET_CHARS = 4
LAST_USED_RESOLUTION = timedelta(minutes=1)  # at most one write per key and minute


@dataclass(frozen=True)
class CreatedKey:
    """A new key: the row and the plain key, which exists only here."""

    key: ApiKey
    plain: str


@dataclass(frozen=True)
class KeyPrincipal:
    """Who a request with a valid key acts as; ``area_limit`` is None for an unlimited key."""

    key_id: int
    user_id: int
    username: str
    is_admin: bool
    area_limit: frozenset[int] | None


@dataclass(frozen=True)
class KeyView:
    """A key as the admin list and the CLI show it (never the secret)."""

    id: int
    name: str
    prefix: str
    user_id: int
    username: str
    limited: bool
    areas: tuple[str, ...]
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _clean_name(name: str | None) -> str:
    name = (name or "").strip()
    if not NAME_RE.match(name):
        raise ValidationError(N_("Key names have at most 150 characters without control characters or < >."),
                              field="name")
    return name


def _limit_areas(user: User, area_idents: Iterable[int | str]) -> list[Area]:
    """Resolve the requested areas; each must be one the user may query now."""
    areas = {area.id: area for area in (get_named(Area, ident) for ident in area_idents)}
    allowed = set(access.permitted_area_ids(user.id))
    foreign = sorted(area.name for area in areas.values() if area.id not in allowed)
    if foreign:
        raise ValidationError(N_("%(user)s may not query the area(s) %(areas)s, so a key of theirs cannot be limited "
                                 "to them."), field="areas", params={"user": user.username, "areas": ", ".join(foreign)})
    return list(areas.values())


def create_key(user_ident: int | str, *, name: str = "", areas: Iterable[int | str] | None = None) -> CreatedKey:
    """Create a key for a user, optionally limited to some of their areas; return the plain key once."""
    user = get_named(User, user_ident)
    if not user.is_active:
        raise Conflict(N_("The account %(user)s is deactivated; activate it before creating a key."),
                       params={"user": user.username})
    label = _clean_name(name)
    limit = _limit_areas(user, list(areas or []))
    secret = secrets.token_urlsafe(32)
    with db.atomic():
        key = ApiKey.create(user=user, name=label, prefix="", secret_hash=_digest(secret), limited=bool(limit))
        key.prefix = f"{PREFIX}_{key.id}_{secret[:SHOWN_SECRET_CHARS]}"
        key.save(only=[ApiKey.prefix])
        for area in limit:
            ApiKeyArea.create(key=key, area=area)
    return CreatedKey(key, f"{PREFIX}_{key.id}_{secret}")


def find_key(ident: int | str) -> ApiKey:
    """Return a key by id, by its shown prefix or by the whole key, or raise NotFound."""
    text = str(ident).strip()
    match = re.match(r"^(?:irk_)?([0-9]{1,18})(?:_.*)?$", text)
    key = ApiKey.get_or_none(ApiKey.id == int(match.group(1))) if match else None
    shown = text.startswith(f"{PREFIX}_")
    if key is None or (shown and not (text.startswith(key.prefix) or key.prefix.startswith(text))):
        raise NotFound(N_("There is no API key “%(key)s”."), params={"key": text[:40]})
    return key


def revoke_key(ident: int | str) -> ApiKey:
    """Revoke a key for good (revoking it again keeps the first time)."""
    key = find_key(ident)
    if key.revoked_at is None:
        key.revoked_at = utcnow()
        key.save(only=[ApiKey.revoked_at])
    return key


def authenticate(raw: str | None) -> KeyPrincipal | None:
    """Return who a presented key acts as, or None for a missing, malformed, wrong or revoked key."""
    match = KEY_RE.match((raw or "").strip())
    if not match:
        return None
    key = (ApiKey.select(ApiKey, User).join(User)
           .where(ApiKey.id == int(match.group(1))).first())
    if key is None or not hmac.compare_digest(key.secret_hash, _digest(match.group(2))):
        return None
    if key.revoked_at is not None or not key.user.is_active:
        return None
    _touch(key)
    limit = None
    if key.limited:
        limit = frozenset(row.area_id for row in ApiKeyArea.select(ApiKeyArea.area).where(ApiKeyArea.key == key))
    return KeyPrincipal(key.id, key.user.id, key.user.username, bool(key.user.is_admin), limit)


def _touch(key: ApiKey) -> None:
    now = utcnow()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_RESOLUTION:
        ApiKey.update(last_used_at=now).where(ApiKey.id == key.id).execute()


def permitted(principal: KeyPrincipal) -> access.Permitted:
    """Return the areas the key may reach now (the user's permitted areas ∩ the key's limit), in one query."""
    user = access.permitted(principal.user_id)
    if principal.area_limit is None:
        return user
    return replace(user, areas=tuple(a for a in user.areas if a.id in principal.area_limit))


def effective_area_ids(principal: KeyPrincipal) -> list[int]:
    """Return the ids of the areas the key may reach now."""
    return permitted(principal).area_ids


def select_areas(principal: KeyPrincipal | access.Permitted, requested: Iterable[int | str] | None) -> list[int]:
    """Return the requested areas (ids or names), all reachable ones for None; any other raises Forbidden.

    Pass the ``Permitted`` of the request when it is known, so it is not computed again.
    """
    reach = principal if isinstance(principal, access.Permitted) else permitted(principal)
    allowed = reach.area_ids
    if requested is None:
        return allowed
    by_name = {a.name.lower(): a.id for a in reach.areas}
    chosen, denied = [], []
    for item in requested:
        area_id = item if isinstance(item, int) else by_name.get(str(item).strip().lower())
        if area_id is None or area_id not in allowed:
            denied.append(str(item))
        elif area_id not in chosen:
            chosen.append(area_id)
    if denied:
        raise Forbidden(N_("This key may not reach one of the requested areas."), detail=f"areas {denied}")
    return sorted(chosen)


def list_keys(user_id: int | None = None) -> list[KeyView]:
    """Return the keys (newest first), optionally of one user, with their area names."""
    query = ApiKey.select(ApiKey, User).join(User).order_by(ApiKey.created_at.desc(), ApiKey.id.desc())
    if user_id is not None:
        query = query.where(ApiKey.user == user_id)
    keys = list(query)
    names: dict[int, list[str]] = {}
    if keys:
        rows = (ApiKeyArea.select(ApiKeyArea.key, Area.name).join(Area)
                .where(ApiKeyArea.key.in_([k.id for k in keys])).order_by(Area.name))
        for row in rows:
            names.setdefault(row.key_id, []).append(row.area.name)
    return [KeyView(k.id, k.name, k.prefix, k.user.id, k.user.username, k.limited, tuple(names.get(k.id, ())),
                    k.created_at, k.last_used_at, k.revoked_at) for k in keys]
