"""Chunk coverage (SPEC 3): chunks per document, as recorded and as found in the vector store."""
from __future__ import annotations

from dataclasses import dataclass

from irisrag import components
from irisrag.models.documents import RUNNING
from irisrag.services.documents.documents import list_documents


@dataclass(frozen=True)
class Coverage:
    """One document's chunk counts: on its row (recorded) and in the vector store (stored)."""

    document_id: int
    name: str
    area: str
    status: str
    recorded: int
    stored: int

    @property
    def is_empty(self) -> bool:
        """No chunks, and none on the way (an import that runs has none yet)."""
        return self.stored == 0 and self.status not in RUNNING

    @property
    def mismatch(self) -> bool:
        return self.recorded != self.stored


def chunk_coverage(area_id: int | None = None) -> list[Coverage]:
    """Return the chunk coverage of every document (optionally of one area), empty ones first."""
    stored = components.get().store.count_by_document()
    rows = [
        Coverage(doc.id, doc.name, doc.area.name, doc.status, doc.chunk_count, stored.get(doc.id, 0))
        for doc in list_documents(area_id)
    ]
    return sorted(rows, key=lambda row: (not row.is_empty, row.name.lower(), row.document_id))
