"""The one retrieval wiring: the components' embedder, store, settings, reranker and expander.

``Components.retriever`` builds one ``Retriever`` per process; every question (dashboard,
stream, API, CLI, inspector, benchmarks) gets its context from ``Retriever.context``, which
searches only the given areas and fails closed (``AreaLeak``) if the store ever returned a
chunk of another area. No area means no embedding call and no search.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from irisrag.rag.inspect import Trace, inspect_document
from irisrag.rag.retrieve import (
    ChunkSearch,
    Context,
    QueryEmbedder,
    RetrievalSettings,
    WordEmbedder,
    build_context,
)

if TYPE_CHECKING:
    from irisrag.rag.expand import QueryExpander
    from irisrag.rag.rerank import Reranker

log = logging.getLogger(__name__)


class AreaLeak(RuntimeError):
    """The store returned a chunk outside the searched areas: nothing of it may be shown."""


def ensure_confined(context: Context, areas: Sequence[int]) -> None:
    """Fail closed if any candidate of the context lies outside the searched areas."""
    allowed = {int(a) for a in areas}
    leaked = sorted({c.hit.area_id for c in context.candidates} - allowed)
    if leaked:
        log.error("area_leak searched=%s returned=%s", sorted(allowed), leaked)
        raise AreaLeak(f"retrieval returned chunks of areas {leaked} outside {sorted(allowed)}")


@dataclass(frozen=True)
class Retriever:
    """Build confined contexts for questions with one set of retrieval components."""

    embedder: QueryEmbedder
    store: ChunkSearch
    settings: RetrievalSettings
    reranker: Reranker | None = None
    expander: QueryExpander | None = None
    words: WordEmbedder | None = None   # the term bridge's word vectors (Components.word_vectors)

    def context(self, question: str, areas: Sequence[int], *, k: int | None = None,
                query_vector: np.ndarray | None = None, prefer: frozenset[int] = frozenset()) -> Context:
        """Return the context of a question searched in exactly these areas (``k``: candidates; ``prefer``:
        documents ranked first, ``build_context``)."""
        settings = self.settings if k is None else replace(self.settings, candidates=int(k))
        context = build_context(question, areas, embedder=self.embedder, store=self.store, settings=settings,
                                query_vector=query_vector, reranker=self.reranker, expander=self.expander,
                                words=self.words, prefer=prefer)
        ensure_confined(context, areas)
        return context

    def embed(self, question: str) -> np.ndarray:
        """Embed a question once (benchmarks that leave the embedding call out)."""
        return np.asarray(self.embedder.embed_query(question), dtype=np.float32)

    def trace(self, question: str, areas: Sequence[int], document_id: int, document_area_id: int) -> Trace:
        """Trace every chunk of one document through this question's retrieval in these areas."""
        return inspect_document(question, areas, document_id, document_area_id, embedder=self.embedder,
                                store=self.store, settings=self.settings, reranker=self.reranker,
                                expander=self.expander, context_of=self.context)
