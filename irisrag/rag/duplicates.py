"""Content with the same SHA-256 shown once per answer (issue 37 item 8).

The same file imported twice (by URL into one area and by upload into another the user may
also search) is two documents with identical chunks: both would fill the context, be cited
and be listed as sources. ``once`` keeps, of every group of documents with the same non-empty
hash, the one ranked best (its best candidate's rank; ties: the lower id) and drops the
others from the context chunks (renumbered 1..n), the candidates, the sources and the nearest
documents. Documents without a hash (not imported yet) are never merged.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irisrag.rag.retrieve import Context


def _best_rank(context: Context) -> dict[int, int]:
    best: dict[int, int] = {}
    for candidate in context.candidates:
        hit = candidate.hit
        best[hit.document_id] = min(best.get(hit.document_id, hit.rank), hit.rank)
    for chunk in context.chunks:
        best.setdefault(chunk.hit.document_id, chunk.hit.rank)
    return best


def duplicates(context: Context, documents: Mapping[int, Any]) -> frozenset[int]:
    """Return the ids of the documents whose content a better-ranked document of the context already holds."""
    best = _best_rank(context)
    ranked = sorted(documents, key=lambda i: (best.get(i, 1 << 30), i))
    kept: set[str] = set()
    dropped = set()
    for document_id in ranked:
        sha256 = getattr(documents[document_id], "sha256", "") or ""
        if sha256 and sha256 in kept:
            dropped.add(document_id)
        elif sha256:
            kept.add(sha256)
    return frozenset(dropped)


def once(context: Context, documents: Mapping[int, Any]) -> Context:
    """Return the context with every content (SHA-256) in one document only; positions renumbered 1..n."""
    dropped = duplicates(context, documents)
    if not dropped:
        return context
    chunks = [c for c in context.chunks if c.hit.document_id not in dropped]
    return replace(
        context,
        chunks=tuple(replace(c, position=i) for i, c in enumerate(chunks, start=1)),
        candidates=tuple(c for c in context.candidates if c.hit.document_id not in dropped),
        sources=tuple(s for s in context.sources if s.document_id not in dropped),
        nearest=tuple(h for h in context.nearest if h.document_id not in dropped),
    )
