"""Admin documents tab (SPEC 6): list now; the import issue adds the import actions."""
from __future__ import annotations

from irisrag.models import Document


def documents_context() -> dict:
    """Return what the documents tab shows."""
    documents = list(Document.select(Document).order_by(Document.created_at.desc()).limit(500))
    return {"documents": documents}
