"""The Document rows an answer names: its context chunks, sources and closest documents, in the searched areas only."""
from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from irisrag.models.access import Area
from irisrag.models.documents import Document

log = logging.getLogger(__name__)


def documents_in(ids: Iterable[int], areas: Sequence[int]) -> dict[int, Document]:
    """Return the rows of these document ids (with their Area) that lie in ``areas``; never rows outside them."""
    wanted = set(ids)
    if not wanted:
        return {}
    query = (Document.select(Document, Area).join(Area)
             .where(Document.id.in_(sorted(wanted)) & Document.area.in_([int(a) for a in areas])))
    documents = {d.id: d for d in query}
    missing = sorted(wanted - set(documents))
    if missing:
        log.info("answer_without_document ids=%s", missing)
    return documents
