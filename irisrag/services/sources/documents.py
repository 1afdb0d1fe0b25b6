"""What a sync does to one document: import it now, keep it, mark it removed at its source, delete it later.

A sync imports in its own job, one document after the other (the document's lock as any
import takes it), so its ledger counts what really happened. A changed document keeps its id:
answers given before keep the SHA-256 of the version they cited, so they show "changed since".
"""
from __future__ import annotations

from datetime import timedelta

from irisrag.errors import Conflict
from irisrag.i18n import N_
from irisrag.models import Document
from irisrag.models.base import utcnow

IMPORTED = ("done", "unchanged")


def is_current(doc: Document | None, sha256: str) -> bool:
    """Tell whether the document holds this content already (imported, same SHA-256)."""
    return doc is not None and doc.status in IMPORTED and doc.sha256 == sha256 and doc.chunk_count > 0


def import_now(document_id: int) -> str:
    """Import a registered document in this job; return ``done`` or ``unchanged`` (a failure raises)."""
    from irisrag.jobs.documents import import_document

    if not Document.mark_queued(document_id):
        raise Conflict(N_("“%(name)s” is being imported right now; wait until it has finished."),
                       params={"name": Document.get_by_id(document_id).name})
    status = import_document(document_id)["status"]
    if status not in IMPORTED:
        raise Conflict(N_("The import of this document was stopped."), f"document {document_id}: {status}")
    return status


def keep(document_id: int, **fields) -> None:
    """Record what the sync learnt about a document that is there (its validators, links); no longer removed."""
    Document.update(removed_at=None, **fields).where(Document.id == document_id).execute()


def mark_removed(doc: Document) -> bool:
    """Mark a document gone at its source (once); True when it was not marked before."""
    return bool(Document.update(removed_at=utcnow()).where(
        (Document.id == doc.id) & Document.removed_at.is_null()).execute())


def delete_expired(source_id: int, grace_seconds: float) -> int:
    """Delete the source's documents marked removed longer than the grace period ago; return how many."""
    from irisrag.services.documents.documents import delete_document

    cutoff = utcnow() - timedelta(seconds=grace_seconds)
    expired = Document.select(Document.id).where((Document.source == source_id) & (Document.removed_at < cutoff))
    count = 0
    for doc in list(expired):
        delete_document(doc.id)
        count += 1
    return count
