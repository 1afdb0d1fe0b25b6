"""The one place that decides which areas a user may query (user -> groups -> areas).

A request computes them once (``permitted``) and passes the ``Permitted`` on: the dashboard
renders its area list from it and the asking service selects from it.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from irisrag.errors import Forbidden
from irisrag.i18n import N_
from irisrag.models import Area, AreaGroup, User, UserGroup


@dataclass(frozen=True)
class Permitted:
    """The areas one user (or one API key of theirs) may query, computed once per request."""

    user_id: int
    areas: tuple[Area, ...]  # ordered by name

    @property
    def area_ids(self) -> list[int]:
        return sorted(a.id for a in self.areas)

    def select(self, requested: Iterable[int] | None, *, strict: bool = False) -> list[int]:
        """Intersect the requested area ids with these (see ``select_areas``)."""
        allowed = self.area_ids
        if requested is None:
            return allowed
        wanted = {int(a) for a in requested}
        denied = wanted.difference(allowed)
        if denied and strict:
            raise Forbidden(N_("You may not query one of the selected areas."), detail=f"area ids {sorted(denied)}")
        return sorted(wanted.intersection(allowed))


def permitted(user: int | Permitted) -> Permitted:
    """Return the areas the user may query now (one query); a ``Permitted`` is returned as it is."""
    if isinstance(user, Permitted):
        return user
    return Permitted(int(user), tuple(_reachable(user).order_by(Area.name)))


def _reachable(user_id: int, *fields):
    """Return the query of the areas reachable through the user's groups (active users only)."""
    return (
        Area.select(*fields)
        .join(AreaGroup)
        .join(UserGroup, on=(UserGroup.group == AreaGroup.group))
        .join(User, on=(User.id == UserGroup.user))
        .where((User.id == user_id) & (User.is_active == True))  # noqa: E712
        .distinct()
    )


def permitted_area_ids(user_id: int) -> list[int]:
    """Return the ids of the areas reachable through the user's groups (active users only)."""
    return sorted(row.id for row in _reachable(user_id, Area.id))


def permitted_areas(user_id: int) -> list[Area]:
    """Return the areas the user may query, ordered by name."""
    return list(permitted(user_id).areas)


def select_areas(user_id: int, requested: Iterable[int] | None, *, strict: bool = False) -> list[int]:
    """Intersect the requested area ids with the permitted ones.

    ``None`` means "all permitted areas". With ``strict`` a requested area the user may
    not query raises ``Forbidden`` (API and CLI name areas explicitly); otherwise it is
    silently dropped (a stale dashboard selection).
    """
    return permitted(user_id).select(requested, strict=strict)
