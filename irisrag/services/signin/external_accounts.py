"""Accounts of people who sign in through LDAP or OpenID Connect, and their mapped groups.

A directory sign-in yields an ``ExternalIdentity``. The first sign-in creates an account marked
with its source and no local password; every sign-in sets the account's groups from the
directory's groups through the mapping (``*_GROUP_MAP`` settings plus the console's *Directory
groups* tab) and its admin flag from the admin mappings. Memberships the directory gave are
marked and end when the directory (or the mapping) no longer gives them; a membership an
admin gave by hand stays.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from peewee import JOIN, fn

from irisrag.errors import SignInRefused
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.models import DirectoryGroupMapping, Group, User, UserGroup
from irisrag.services.signin.sessions import end_sessions

log = logging.getLogger(__name__)
PROVIDERS = ("ldap", "oidc")
NAME_TAKEN = N_("An account with this name already exists in IrisRAG. Please ask an administrator.")
DEACTIVATED = N_("This account is deactivated. Please ask an administrator.")
NO_USERNAME = N_("The sign-in did not say who you are (no user name). Please ask an administrator.")


@dataclass(frozen=True)
class ExternalIdentity:
    """Who the directory says signed in: a stable id, a login name and the directory's groups."""

    provider: str
    external_id: str
    username: str
    groups: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Mapping_:
    """One rule: members of ``external_group`` join ``group`` (a name) and/or become admins."""

    external_group: str
    group: str | None
    admin: bool = False


def group_key(provider: str, name: str) -> str:
    """Normalise a directory group for comparison: LDAP DNs ignore case and spaces around , and =."""
    name = (name or "").strip()
    return re.sub(r"\s*([,=])\s*", r"\1", name).lower() if provider == "ldap" else name


def mappings(provider: str, settings: Mapping[str, Any]) -> list[Mapping_]:
    """Return the rules of the settings and of the console for one provider."""
    prefix = provider.upper()
    rules = [Mapping_(key, name) for key, names in settings.get(f"{prefix}_GROUP_MAP", {}).items() for name in names]
    rules += [Mapping_(key, None, True) for key in settings.get(f"{prefix}_ADMIN_GROUPS", [])]
    stored = DirectoryGroupMapping.select(DirectoryGroupMapping, Group).join(Group, JOIN.LEFT_OUTER)
    for row in stored.where(DirectoryGroupMapping.provider == provider):
        rules.append(Mapping_(row.external_group, row.group.name if row.group else None, row.grants_admin))
    return rules


def resolve(provider: str, groups: Iterable[str], rules: list[Mapping_]) -> tuple[set[str], bool]:
    """Return (IrisRAG group names the person belongs in, admin?) for their directory groups."""
    held = {group_key(provider, g) for g in groups}
    wanted = {r.group for r in rules if r.group and group_key(provider, r.external_group) in held}
    admin = any(r.admin and group_key(provider, r.external_group) in held for r in rules)
    return wanted, admin


def _groups_named(names: set[str]) -> dict[str, Group]:
    """Return the groups by name, creating mapped groups that do not exist yet."""
    found = {g.name: g for g in Group.select().where(Group.name.in_(list(names)))} if names else {}
    for name in names - found.keys():
        found[name] = Group.create(name=name, description="")
        log.info("sso_group_created group=%r", name)
    return found


def _account(identity: ExternalIdentity) -> User:
    user = User.get_or_none((User.auth_source == identity.provider) & (User.external_id == identity.external_id))
    if user is not None:
        return user
    username = identity.username.strip()[:150]
    if not username:
        raise SignInRefused(NO_USERNAME, detail="empty user name")
    if User.select().where(fn.LOWER(User.username) == username.lower()).exists():
        # Never take over a local (or the other provider's) account that happens to share the name.
        raise SignInRefused(NAME_TAKEN, detail=f"user name {username!r} is taken")
    log.info("sso_account_created provider=%s user=%r", identity.provider, username)
    return User.create(username=username, password_hash="", auth_source=identity.provider,
                       external_id=identity.external_id)


def _set_groups(user: User, wanted: dict[str, Group]) -> None:
    current = {m.group.name: m for m in UserGroup.select(UserGroup, Group).join(Group).where(UserGroup.user == user)}
    for name, membership in current.items():
        if membership.via_directory and name not in wanted:
            membership.delete_instance()
    for name, group in wanted.items():
        if name not in current:
            UserGroup.create(user=user, group=group, via_directory=True)


def sign_in(identity: ExternalIdentity, settings: Mapping[str, Any]) -> User:
    """Find or create the account of a directory sign-in and set its groups and admin flag."""
    rules = mappings(identity.provider, settings)
    wanted, admin = resolve(identity.provider, identity.groups, rules)
    with db.atomic():
        user = _account(identity)
        if not user.is_active:
            raise SignInRefused(DEACTIVATED, detail=f"account {user.username!r} is deactivated")
        _set_groups(user, _groups_named(wanted))
        if user.is_admin != admin:
            user.is_admin = admin
            user.save(only=[User.is_admin])
            if not admin:
                end_sessions(user, world="admin")
    log.info("sso_sign_in provider=%s user=%r groups=%s admin=%s", identity.provider, user.username,
             sorted(wanted), admin)
    return user


# --- the console's mappings (tab "Directory groups") ----------------------------------------

def console_mappings() -> list[DirectoryGroupMapping]:
    """Return the mappings stored by admins, by provider and directory group."""
    query = DirectoryGroupMapping.select(DirectoryGroupMapping, Group).join(Group, JOIN.LEFT_OUTER)
    return list(query.order_by(DirectoryGroupMapping.provider, DirectoryGroupMapping.external_group))


def setting_mappings(settings: Mapping[str, Any]) -> list[tuple[str, Mapping_]]:
    """Return the mappings that come from the settings (shown read-only), as (provider, rule)."""
    rows = []
    for provider in PROVIDERS:
        prefix = provider.upper()
        rows += [(provider, Mapping_(key, name)) for key, names in settings.get(f"{prefix}_GROUP_MAP", {}).items()
                 for name in names]
        rows += [(provider, Mapping_(key, None, True)) for key in settings.get(f"{prefix}_ADMIN_GROUPS", [])]
    return rows


def add_mapping(provider: str, external_group: str, group_id: int | None, grants_admin: bool) -> DirectoryGroupMapping:
    """Store a mapping: members of the directory group join the group and/or become admins."""
    from irisrag.errors import ValidationError

    external_group = (external_group or "").strip()
    if provider not in PROVIDERS:
        raise ValidationError(N_("Please choose LDAP or OpenID Connect."), field="provider")
    if not external_group or len(external_group) > 500:
        raise ValidationError(N_("Please enter the directory group (1 to 500 characters)."), field="external_group")
    if group_id is None and not grants_admin:
        raise ValidationError(N_("Please choose a group or the admin right."), field="group")
    group = Group.get_or_none(Group.id == group_id) if group_id is not None else None
    if group_id is not None and group is None:
        raise ValidationError(N_("Please choose a group or the admin right."), field="group")
    return DirectoryGroupMapping.create(provider=provider, external_group=external_group, group=group,
                                        grants_admin=grants_admin)


def delete_mapping(mapping_id: int) -> None:
    """Delete a stored mapping; it takes effect at each member's next sign-in."""
    DirectoryGroupMapping.delete().where(DirectoryGroupMapping.id == mapping_id).execute()
