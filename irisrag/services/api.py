"""JSON API use cases, each for the key of a request (see ``api_keys.KeyPrincipal``).

Every call computes the key's effective areas anew (``api_keys.effective_area_ids``):
retrieval and answers search only those, document lists and status show only documents
in them (any other document is "not found", so its existence does not leak), and naming
another area is ``Forbidden``. Importing needs the key of an admin account, into an area
the key reaches.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import BinaryIO

from irisrag.errors import Forbidden, NotFound, ValidationError
from irisrag.i18n import N_
from irisrag.models import Area, Document
from irisrag.rag.followup import PreviousTurn
from irisrag.services.access import Permitted
from irisrag.services.admin import api_keys
from irisrag.services.admin import missing_answers as missing
from irisrag.services.admin.api_keys import KeyPrincipal
from irisrag.services.asking import asking
from irisrag.services.documents import documents as document_service

log = logging.getLogger(__name__)

NO_AREA_REACHABLE = N_("This key cannot reach any area (the account has no areas, or none of the key's areas).")
IMPORT_NEEDS_ADMIN = N_("Importing documents needs the API key of an admin account.")
MISSING_NEEDS_ADMIN = N_("The missing answers need the API key of an admin account.")
MAX_PAGE = 1000


def areas(principal: KeyPrincipal) -> list[Area]:
    """Return the areas the key reaches, ordered by name."""
    return list(api_keys.permitted(principal).areas)


def _query_areas(principal: KeyPrincipal, requested: Iterable[int | str] | None) -> tuple[Permitted, list[int]]:
    """Return the key's areas (computed once for the request) and the requested ones among them."""
    reach = api_keys.permitted(principal)
    chosen = api_keys.select_areas(reach, requested)
    if not chosen:
        if not reach.areas:
            raise Forbidden(NO_AREA_REACHABLE, detail=f"key id {principal.key_id}")
        raise ValidationError(asking.NO_AREA_SELECTED, field="areas")
    return reach, chosen


def retrieve(principal: KeyPrincipal, question: str | None, requested: Iterable[int | str] | None, *,
             previous: Sequence[PreviousTurn] = ()) -> asking.Retrieved:
    """Build the context for a question in the key's (selected) areas, without calling a model.

    ``previous`` turns (the client's conversation, oldest first) make it a follow-up: without a
    model the previous question's key terms complete an elliptic question (``rag.followup``).
    """
    text = asking.validate_question(question)
    _reach, area_ids = _query_areas(principal, requested)
    found = asking.retrieve(text, area_ids, previous=previous)
    timings = {**found.timings, "total": time.perf_counter() - found.started}
    return replace(found, timings=timings)


def answer(principal: KeyPrincipal, question: str | None, requested: Iterable[int | str] | None, *,
           use_llm: bool = True, previous: Sequence[PreviousTurn] = ()) -> asking.AskResult:
    """Answer a question from the key's (selected) areas; ``previous``: the client's earlier turns."""
    text = asking.validate_question(question)
    reach, area_ids = _query_areas(principal, requested)
    return asking.ask(reach, text, area_ids, strict=True, use_llm=use_llm, previous=previous)


def stream_answer(principal: KeyPrincipal, question: str | None, requested: Iterable[int | str] | None, *,
                  use_llm: bool = True, previous: Sequence[PreviousTurn] = ()) -> Iterator[asking.Event]:
    """Stream an answer from the key's (selected) areas; bad input, areas and search failures raise first."""
    text = asking.validate_question(question)
    reach, area_ids = _query_areas(principal, requested)
    return asking.stream(reach, text, area_ids, strict=True, use_llm=use_llm, previous=previous)


# --- documents ------------------------------------------------------------------

def list_documents(principal: KeyPrincipal, *, area: int | str | None = None, status: str | None = None,
                   limit: int = 100, offset: int = 0) -> tuple[list[Document], int]:
    """Return one page of the documents in the key's areas (newest first) and their total count."""
    if not 1 <= limit <= MAX_PAGE or offset < 0:
        raise ValidationError(N_("limit must be 1 to %(max)d and offset at least 0."), field="limit", params={"max": MAX_PAGE})
    area_ids = api_keys.select_areas(principal, None if area is None else [area])
    if not area_ids:
        return [], 0
    query = Document.select(Document, Area).join(Area).where(Document.area.in_(area_ids))
    if status:
        query = query.where(Document.status == status)
    total = query.count()
    page = query.order_by(Document.created_at.desc(), Document.id.desc()).limit(limit).offset(offset)
    return list(page), total


def get_document(principal: KeyPrincipal, document_id: int) -> Document:
    """Return a document in the key's areas; any other id is NotFound (existence does not leak)."""
    allowed = api_keys.effective_area_ids(principal)
    doc = Document.get_or_none(Document.id == document_id)
    if doc is None or doc.area_id not in allowed:
        raise NotFound(N_("There is no document with id %(id)s."), params={"id": document_id})
    return doc


def cancel_import(principal: KeyPrincipal, document_id: int) -> Document:
    """Cancel an import of a document in the key's areas (admin keys only)."""
    if not principal.is_admin:
        raise Forbidden(IMPORT_NEEDS_ADMIN, detail=f"key id {principal.key_id}")
    return document_service.cancel_import(get_document(principal, document_id).id)


def import_document(principal: KeyPrincipal, area: int | str | None, *, url: str | None = None,
                    filename: str | None = None, data: bytes | BinaryIO | None = None) -> Document:
    """Queue a URL or an uploaded file for import (admin keys only, into an area the key reaches)."""
    if not principal.is_admin:
        raise Forbidden(IMPORT_NEEDS_ADMIN, detail=f"key id {principal.key_id}")
    if area is None or area == "":
        raise ValidationError(N_("Please name the area to import into."), field="area")
    area_id = api_keys.select_areas(principal, [area])[0]
    if url is not None and data is not None:
        raise ValidationError(N_("Send either a URL or a file, not both."), field="url")
    if url is not None:
        return document_service.import_url(area_id, url)
    if data is None or not filename:
        raise ValidationError(N_("Send a URL (JSON) or a file (multipart/form-data)."), field="file")
    return document_service.import_upload(area_id, filename, data)


def missing_answers(principal: KeyPrincipal) -> missing.Report:
    """Return the grouped questions the library could not answer (admin keys only, every area)."""
    if not principal.is_admin:
        raise Forbidden(MISSING_NEEDS_ADMIN, detail=f"key id {principal.key_id}")
    return missing.missing_answers()
