"""Admin use cases for users, groups, areas and their links (SPEC 6, tabs 1-4)."""
from __future__ import annotations

import re
from typing import TypeVar

from peewee import IntegrityError, fn

from irisrag.errors import Conflict, NotFound, ValidationError
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.models import Area, AreaGroup, Document, Group, User, UserGroup
from irisrag.services.signin.auth import check_password_rules, end_sessions, hash_password

M = TypeVar("M", User, Group, Area)
NAME_RE = re.compile(r"^[^\x00-\x1f\x7f<>]{1,150}$")
# Whole sentences per kind (not "A %(kind)s named ..."): German needs the article and gender of each.
_TAKEN = {User: N_("A user named “%(name)s” already exists."), Group: N_("A group named “%(name)s” already exists."),
          Area: N_("An area named “%(name)s” already exists.")}
_MISSING = {User: N_("There is no user “%(name)s”."), Group: N_("There is no group “%(name)s”."),
            Area: N_("There is no area “%(name)s”.")}
_EXISTS = {User: N_("That user already exists."), Group: N_("That group already exists."),
           Area: N_("That area already exists.")}


def _clean_name(name: str, field: str = "name") -> str:
    name = (name or "").strip()
    if not name:
        raise ValidationError(N_("Please enter a name."), field=field)
    if not NAME_RE.match(name):
        raise ValidationError(N_("Names have 1 to 150 characters without control characters or < >."), field=field)
    return name


def _name_field(model: type[M]):
    return model.username if model is User else model.name


def _ensure_free(model: type[M], name: str, exclude_id: int | None = None, field: str = "name") -> None:
    query = model.select().where(fn.LOWER(_name_field(model)) == name.lower())
    if exclude_id is not None:
        query = query.where(model.id != exclude_id)
    if query.exists():
        raise Conflict(_TAKEN[model], detail=field, params={"name": name})


def get(model: type[M], ident: int | str) -> M:
    """Return a user, group or area by id (int) or by name (str), or raise NotFound."""
    if isinstance(ident, int):
        row = model.get_or_none(model.id == ident)
    else:
        row = model.get_or_none(_name_field(model) == ident)
    if row is None:
        raise NotFound(_MISSING[model], params={"name": ident})
    return row


def _create(model: type[M], **fields) -> M:
    try:
        with db.atomic():
            return model.create(**fields)
    except IntegrityError as exc:
        raise Conflict(_EXISTS[model], detail=str(exc)) from exc


def create_user(username: str, password: str, *, is_admin: bool = False) -> User:
    """Create an account after checking its name and password rules."""
    username = _clean_name(username, "username")
    check_password_rules(password)
    _ensure_free(User, username, field="username")
    return _create(User, username=username, password_hash=hash_password(password), is_admin=is_admin)


def update_user(user_id: int, *, username: str, is_admin: bool, acting_user_id: int | None = None) -> User:
    """Rename an account and set its admin flag (never the acting admin's own, nor the last admin's)."""
    user = get(User, user_id)
    if user.is_admin and not is_admin:
        _keep_admins(user, acting_user_id, N_("You cannot take the admin rights from your own account."))
    user.username = _clean_name(username, "username")
    _ensure_free(User, user.username, exclude_id=user.id, field="username")
    user.is_admin = is_admin
    user.save()
    return user


def set_password(user_id: int, password: str) -> User:
    """Set a new password and end the account's sessions."""
    check_password_rules(password)
    user = get(User, user_id)
    if user.is_external:  # its password lives in the directory; a local one would be a second way in
        raise Conflict(N_("This account signs in through the directory (LDAP/OIDC) and cannot have a local password."))
    user.password_hash = hash_password(password)
    user.save(only=[User.password_hash])
    end_sessions(user)
    return user


def set_active(user_id: int, active: bool, *, acting_user_id: int | None = None) -> User:
    """Activate or deactivate an account; deactivating ends its sessions (never one's own, nor the last admin)."""
    user = get(User, user_id)
    if not active and user.is_active:
        _keep_admins(user, acting_user_id, N_("You cannot deactivate your own account."))
    user.is_active = active
    user.save(only=[User.is_active])
    if not active:
        end_sessions(user)
    return user


def delete_user(user_id: int, *, acting_user_id: int | None = None) -> None:
    """Delete an account with its memberships (never one's own, nor the last active admin)."""
    user = get(User, user_id)
    _keep_admins(user, acting_user_id, N_("You cannot delete the account you are logged in with."))
    user.delete_instance(recursive=True)


def _keep_admins(user: User, acting_user_id: int | None, own_message: str) -> None:
    """Refuse a change that locks the acting admin out, or leaves no active admin at all."""
    if acting_user_id is not None and user.id == acting_user_id:
        raise Conflict(own_message)
    if user.is_admin and user.is_active:
        others = User.select().where(User.is_admin & User.is_active & (User.id != user.id)).exists()
        if not others:
            raise Conflict(N_("“%(name)s” is the last active admin; make another account an admin first."),
                           params={"name": user.username})


def create_named(model: type[M], name: str, description: str = "") -> M:
    """Create a group or an area."""
    name = _clean_name(name)
    _ensure_free(model, name)
    return _create(model, name=name, description=(description or "").strip())


def update_named(model: type[M], ident: int, name: str, description: str = "") -> M:
    """Rename a group or an area and set its description."""
    row = get(model, ident)
    row.name = _clean_name(name)
    _ensure_free(model, row.name, exclude_id=row.id)
    row.description = (description or "").strip()
    row.save()
    return row


def delete_group(group_id: int) -> None:
    """Delete a group with its links."""
    get(Group, group_id).delete_instance(recursive=True)


def delete_area(area_id: int) -> None:
    """Delete an area; refused while it still holds documents."""
    area = get(Area, area_id)
    count = Document.select().where(Document.area == area).count()
    if count:
        raise Conflict(N_("The area “%(name)s” still has %(count)d document(s). Delete or move them first."),
                       params={"name": area.name, "count": count})
    area.delete_instance(recursive=True)


def link_user(user_ident: int | str, group_ident: int | str) -> bool:
    """Add a user to a group; return False when the link already existed."""
    user, group = get(User, user_ident), get(Group, group_ident)
    _, created = UserGroup.get_or_create(user=user, group=group)
    return created


def unlink_user(user_ident: int | str, group_ident: int | str) -> bool:
    """Remove a user from a group; return False when there was no link."""
    user, group = get(User, user_ident), get(Group, group_ident)
    return bool(UserGroup.delete().where((UserGroup.user == user) & (UserGroup.group == group)).execute())


def link_area(area_ident: int | str, group_ident: int | str) -> bool:
    """Grant a group an area; return False when the link already existed."""
    area, group = get(Area, area_ident), get(Group, group_ident)
    _, created = AreaGroup.get_or_create(area=area, group=group)
    return created


def unlink_area(area_ident: int | str, group_ident: int | str) -> bool:
    """Withdraw an area from a group; return False when there was no link."""
    area, group = get(Area, area_ident), get(Group, group_ident)
    return bool(AreaGroup.delete().where((AreaGroup.area == area) & (AreaGroup.group == group)).execute())


def overview(*parts: str) -> dict:
    """Return users, groups, areas and both link lists (or only the named ``parts``) for the console and CLI."""
    queries = {
        "users": lambda: list(User.select().order_by(User.username)),
        "groups": lambda: list(Group.select().order_by(Group.name)),
        "areas": lambda: list(Area.select().order_by(Area.name)),
        "user_groups": lambda: list(
            UserGroup.select(UserGroup, User, Group).join(User).switch(UserGroup).join(Group)
            .order_by(User.username, Group.name)
        ),
        "area_groups": lambda: list(
            AreaGroup.select(AreaGroup, Area, Group).join(Area).switch(AreaGroup).join(Group)
            .order_by(Area.name, Group.name)
        ),
    }
    return {name: queries[name]() for name in (parts or queries)}
