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
from dataclasses import dataclass
from typing import BinaryIO

from irisrag import components
from irisrag.errors import Forbidden, NotFound, ValidationError
from irisrag.models import Area, Document
from irisrag.rag.retrieve import Context, RetrievalSettings, build_context
from irisrag.services import api_keys, questions, streaming
from irisrag.services import documents as document_service
from irisrag.services.api_keys import KeyPrincipal

log = logging.getLogger(__name__)

NO_AREA_REACHABLE = "This key cannot reach any area (the account has no areas, or none of the key's areas)."
IMPORT_NEEDS_ADMIN = "Importing documents needs the API key of an admin account."
MAX_PAGE = 1000


@dataclass(frozen=True)
class Retrieval:
    """The numbered context of a question, the documents it cites, and the stage timings (seconds)."""

    question: str
    area_ids: tuple[int, ...]
    context: Context
    documents: dict[int, Document]
    timings: dict[str, float]


def areas(principal: KeyPrincipal) -> list[Area]:
    """Return the areas the key reaches, ordered by name."""
    ids = api_keys.effective_area_ids(principal)
    return list(Area.select().where(Area.id.in_(ids)).order_by(Area.name)) if ids else []


def _query_areas(principal: KeyPrincipal, requested: Iterable[int | str] | None) -> list[int]:
    chosen = api_keys.select_areas(principal, requested)
    if not chosen:
        if not api_keys.effective_area_ids(principal):
            raise Forbidden(NO_AREA_REACHABLE, detail=f"key id {principal.key_id}")
        raise ValidationError(questions.NO_AREA_SELECTED, field="areas")
    return chosen


def retrieve(principal: KeyPrincipal, question: str | None, requested: Iterable[int | str] | None) -> Retrieval:
    """Build the context for a question in the key's (selected) areas, without calling a model."""
    text = questions.validate_question(question)
    area_ids = _query_areas(principal, requested)
    start = time.perf_counter()
    comps = components.get()
    settings = RetrievalSettings.from_config(comps.config)
    context = build_context(text, area_ids, embedder=comps.embedder, store=comps.store, settings=settings,
                            reranker=comps.reranker, expander=comps.expander)
    _ensure_confined(context, area_ids)
    lookup = time.perf_counter()
    documents = _documents_of(context, area_ids)
    timings = {k: v for k, v in context.timings.items() if k != "total"}
    timings.update(context=context.timings.get("total", 0.0), documents=time.perf_counter() - lookup,
                   total=time.perf_counter() - start)
    return Retrieval(text, tuple(area_ids), context, documents, timings)


def answer(principal: KeyPrincipal, question: str | None, requested: Iterable[int | str] | None, *,
           use_llm: bool = True) -> questions.AskResult:
    """Answer a question from the key's (selected) areas."""
    text = questions.validate_question(question)
    area_ids = _query_areas(principal, requested)
    return questions.ask(principal.user_id, text, area_ids, strict=True, use_llm=use_llm)


def stream_answer(principal: KeyPrincipal, question: str | None, requested: Iterable[int | str] | None, *,
                  use_llm: bool = True) -> Iterator[streaming.Event]:
    """Stream an answer from the key's (selected) areas; bad input, areas and search failures raise first."""
    text = questions.validate_question(question)
    area_ids = _query_areas(principal, requested)
    return streaming.stream(principal.user_id, text, area_ids, strict=True, use_llm=use_llm)


def _ensure_confined(context: Context, area_ids: Sequence[int]) -> None:
    """Fail closed if the store ever returned a chunk outside the searched areas."""
    leaked = sorted({c.hit.area_id for c in context.candidates} - set(area_ids))
    if leaked:
        log.error("area_leak searched=%s returned=%s", sorted(area_ids), leaked)
        raise RuntimeError(f"retrieval returned chunks of areas {leaked} outside {sorted(area_ids)}")


def _documents_of(context: Context, area_ids: Sequence[int]) -> dict[int, Document]:
    ids = {c.hit.document_id for c in context.chunks} | {s.document_id for s in context.sources}
    if not ids:
        return {}
    query = Document.select(Document, Area).join(Area).where(Document.id.in_(ids) & Document.area.in_(area_ids))
    return {d.id: d for d in query}


# --- documents ------------------------------------------------------------------

def list_documents(principal: KeyPrincipal, *, area: int | str | None = None, status: str | None = None,
                   limit: int = 100, offset: int = 0) -> tuple[list[Document], int]:
    """Return one page of the documents in the key's areas (newest first) and their total count."""
    if not 1 <= limit <= MAX_PAGE or offset < 0:
        raise ValidationError(f"limit must be 1 to {MAX_PAGE} and offset at least 0.", field="limit")
    area_ids = api_keys.select_areas(principal, None if area is None else [area])
    if not area_ids:
        return [], 0
    document_service.mark_stale_failed()
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
        raise NotFound(f"There is no document with id {document_id}.")
    if doc.is_running:
        document_service.mark_stale_failed()
        doc = Document.get_by_id(doc.id)
    return doc


def import_document(principal: KeyPrincipal, area: int | str | None, *, url: str | None = None,
                    filename: str | None = None, data: bytes | BinaryIO | None = None) -> Document:
    """Queue a URL or an uploaded file for import (admin keys only, into an area the key reaches)."""
    if not principal.is_admin:
        raise Forbidden(IMPORT_NEEDS_ADMIN, detail=f"key id {principal.key_id}")
    if area is None or area == "":
        raise ValidationError("Please name the area to import into.", field="area")
    area_id = api_keys.select_areas(principal, [area])[0]
    if url is not None and data is not None:
        raise ValidationError("Send either a URL or a file, not both.", field="url")
    if url is not None:
        return document_service.import_url(area_id, url)
    if data is None or not filename:
        raise ValidationError("Send a URL (JSON) or a file (multipart/form-data).", field="file")
    return document_service.import_upload(area_id, filename, data)
