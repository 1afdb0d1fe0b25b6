"""The JSON API's source use cases (issue 40): admin accounts' keys only, sources of the key's areas only.

A source outside the key's areas answers as one that does not exist (as documents do).
"""
from __future__ import annotations

from irisrag.errors import Forbidden, NotFound
from irisrag.i18n import N_
from irisrag.models import Source
from irisrag.services.admin import api_keys
from irisrag.services.admin.api_keys import KeyPrincipal
from irisrag.services.sources import sources

SOURCES_NEED_ADMIN = N_("Sources need the key of an admin account.")


def _reach(principal: KeyPrincipal) -> set[int]:
    if not principal.is_admin:
        raise Forbidden(SOURCES_NEED_ADMIN, detail=f"key id {principal.key_id}")
    return set(api_keys.effective_area_ids(principal))


def list_for(principal: KeyPrincipal) -> list[Source]:
    """Return the sources of the areas the (admin) key reaches."""
    reach = _reach(principal)
    return [s for s in sources.list_sources() if s.area_id in reach]


def get_for(principal: KeyPrincipal, source_id: int) -> Source:
    """Return a source of the key's areas (NotFound for any other)."""
    reach = _reach(principal)
    source = Source.get_or_none(Source.id == source_id)
    if source is None or source.area_id not in reach:
        raise NotFound(N_("There is no source with id %(id)s."), params={"id": source_id})
    return source


def sync_for(principal: KeyPrincipal, source_id: int) -> tuple[Source, str]:
    """Queue a sync of a source of the key's areas; return it with the job's id."""
    from irisrag.jobs.sync import enqueue_sync

    source = get_for(principal, source_id)
    return source, enqueue_sync(source.id)
