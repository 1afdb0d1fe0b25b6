"""Use cases of the retrieval inspector: trace a document through a question; ask as a user.

Admins only (web and CLI). With a user, the areas are exactly what that user's question
would search (services.access); without one, the admin names the areas.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from irisrag import components
from irisrag.errors import ValidationError
from irisrag.i18n import N_
from irisrag.models import Area, Document, User
from irisrag.rag.answer_types import AskResult
from irisrag.rag.followup import PreviousTurn, SearchQuery
from irisrag.rag.inspect import Trace
from irisrag.services import access
from irisrag.services.admin.admin import get as get_named
from irisrag.services.asking import asking
from irisrag.services.documents.documents import get_document


@dataclass(frozen=True)
class Reach:
    """What one user's question can reach: their areas, and the documents in its context and sources."""

    user: User
    areas: tuple[Area, ...]
    result: AskResult
    documents: dict[int, Document]


def _areas_for(user: User | None, area_idents: Iterable[int | str] | None) -> list[int]:
    chosen = [get_named(Area, a).id for a in (area_idents or [])]
    if user is None:
        if not chosen:
            raise ValidationError(N_("Choose a user or at least one area."), field="areas")
        return sorted(set(chosen))
    return access.select_areas(user.id, chosen or None)


def search(question: str, previous_question: str = "") -> SearchQuery:
    """Return what the question is searched for after ``previous_question`` (a follow-up): its rewrite
    by the language model, or the key-terms rule; the question itself without a previous one."""
    previous = [PreviousTurn(previous_question.strip(), "")] if (previous_question or "").strip() else []
    return asking.search_query((question or "").strip(), previous)


def trace(question: str, document_id: int, *, user_ident: int | str | None = None,
          area_idents: Iterable[int | str] | None = None) -> Trace:
    """Trace every chunk of a document through the question's retrieval."""
    question = (question or "").strip()
    if not question:
        raise ValidationError(N_("Please enter a question."), field="question")
    document = get_document(document_id)
    user = get_named(User, user_ident) if user_ident not in (None, "") else None
    areas = _areas_for(user, area_idents)
    return components.get().retriever.trace(question, areas, document.id, document.area_id)


def reach(question: str, user_ident: int | str) -> Reach:
    """Run a user's question (no language model, not recorded) and show what it reaches."""
    user = get_named(User, user_ident)
    permitted = access.permitted(user.id)
    result = asking.ask(permitted, question, None, strict=False, use_llm=False, record=False)
    areas = permitted.areas
    ids = {c.document_id for c in result.context} | {s.document_id for s in result.sources}
    documents = {d.id: d for d in Document.select().where(Document.id.in_(list(ids)))} if ids else {}
    return Reach(user, areas, result, documents)
