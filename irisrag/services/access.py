"""The one place that decides which areas a user may query (user -> groups -> areas)."""
from __future__ import annotations

from collections.abc import Iterable

from irisrag.errors import Forbidden
from irisrag.models import Area, AreaGroup, User, UserGroup


def permitted_area_ids(user_id: int) -> list[int]:
    """Return the ids of the areas reachable through the user's groups (active users only)."""
    query = (
        Area.select(Area.id)
        .join(AreaGroup)
        .join(UserGroup, on=(UserGroup.group == AreaGroup.group))
        .join(User, on=(User.id == UserGroup.user))
        .where((User.id == user_id) & (User.is_active == True))  # noqa: E712
        .distinct()
    )
    return sorted(row.id for row in query)


def permitted_areas(user_id: int) -> list[Area]:
    """Return the areas the user may query, ordered by name."""
    ids = permitted_area_ids(user_id)
    if not ids:
        return []
    return list(Area.select().where(Area.id.in_(ids)).order_by(Area.name))


def select_areas(user_id: int, requested: Iterable[int] | None, *, strict: bool = False) -> list[int]:
    """Intersect the requested area ids with the permitted ones.

    ``None`` means "all permitted areas". With ``strict`` a requested area the user may
    not query raises ``Forbidden`` (API and CLI name areas explicitly); otherwise it is
    silently dropped (a stale dashboard selection).
    """
    allowed = permitted_area_ids(user_id)
    if requested is None:
        return allowed
    wanted = {int(a) for a in requested}
    denied = wanted.difference(allowed)
    if denied and strict:
        raise Forbidden("You may not query one of the selected areas.", detail=f"area ids {sorted(denied)}")
    return sorted(wanted.intersection(allowed))
