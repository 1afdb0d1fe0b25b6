"""What one question's product path produced, scored against its judgements.

``build_context`` (the function the product's questions call) gives the ranked candidates,
the gate's verdict on each, the numbered context and the found sources. From these:

* the ranking: documents by their best candidate chunk (``metrics.py``: nDCG@10, Recall@K, ...);
* ``context_recall``: the share of the relevant documents with a chunk in the answer's context;
* ``sources_recall``: the share of the relevant documents among the found sources;
* ``empty_context``: 1 when the context is empty (the user reads "No information was found");
* ``nearest_recall``: the share of the relevant documents the user can open from the answer:
  in the context, or among the closest documents listed under "no information"
  (NEAREST_DOCUMENTS);
* for an off-topic question (a question of another set asked against this corpus) only
  ``empty_context`` counts: ``offtopic_empty_rate`` is its mean, the share a user is told
  that nothing was found.

``trace`` explains a question for ``--per-query``: for every relevant document its best
rank in each leg and in the fused ranking (1-based, None: not among the candidates), whether
it reached the context and the sources, and for each of its candidate chunks the gate's
verdict (None: in the context).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from irisrag.evaluation.metrics import documents_by_best_chunk, query_metrics, recall_at
from irisrag.rag.retrieve import Context

PATH_METRICS = ("context_recall", "sources_recall", "nearest_recall", "empty_context_rate")


@dataclass(frozen=True)
class Legs:
    """1-based chunk ranks of the vector and the full-text leg, keyed by (document, chunk)."""

    vector: Mapping[tuple[int, int], int]
    fulltext: Mapping[tuple[int, int], int]


def ranking(context: Context) -> list[int]:
    """Return the document ids in ranked order by best candidate chunk."""
    ordered = sorted(context.candidates, key=lambda c: c.hit.rank)
    return documents_by_best_chunk(c.hit.document_id for c in ordered)


def context_documents(context: Context) -> list[int]:
    """Return the documents with a chunk in the context, in context order."""
    return list(dict.fromkeys(c.hit.document_id for c in context.chunks))


def scores(context: Context, corpus_ids: Sequence[str], relevant: Mapping[str, int]) -> dict[str, float]:
    """Return the ranking metrics and the product-path metrics of one judged question."""
    ranked = [corpus_ids[d] for d in ranking(context)]
    in_context = [corpus_ids[d] for d in context_documents(context)]
    in_sources = [corpus_ids[s.document_id] for s in context.sources]
    return {**query_metrics(ranked, relevant),
            "context_recall": recall_at(in_context, relevant, len(in_context)),
            "sources_recall": recall_at(in_sources, relevant, len(in_sources)),
            "nearest_recall": recall_at(in_context + [corpus_ids[h.document_id] for h in context.nearest], relevant,
                                        len(in_context) + len(context.nearest)),
            "empty_context_rate": 0.0 if context.chunks else 1.0}


def _best(ranks: Mapping[tuple[int, int], int], document: int) -> int | None:
    found = [rank for (doc, _), rank in ranks.items() if doc == document]
    return min(found) if found else None


def trace(context: Context, corpus_ids: Sequence[str], relevant: Mapping[str, int], legs: Legs | None) -> dict:
    """Return the per-query record: relevant documents with leg ranks, fused rank and gate verdicts."""
    index = {doc: i for i, doc in enumerate(corpus_ids)}
    fused = {doc: rank for rank, doc in enumerate(ranking(context), start=1)}
    in_context = set(context_documents(context))
    in_sources = {s.document_id for s in context.sources}
    documents = {}
    for corpus_id in relevant:
        doc = index.get(corpus_id)
        chunks = [c for c in context.candidates if c.hit.document_id == doc]
        documents[corpus_id] = {
            "vector_rank": _best(legs.vector, doc) if legs else None,
            "fulltext_rank": _best(legs.fulltext, doc) if legs else None,
            "fused_rank": fused.get(doc), "in_context": doc in in_context, "in_sources": doc in in_sources,
            "chunks": [{"chunk": c.hit.chunk_index, "fused_rank": c.hit.rank + 1,
                        "vector_rank": legs.vector.get((doc, c.hit.chunk_index)) if legs else None,
                        "fulltext_rank": legs.fulltext.get((doc, c.hit.chunk_index)) if legs else None,
                        "lexical_score": c.match.score, "terms": sorted(c.match.terms), "gate": c.gate,
                        "evidence": None if c.evidence is None else round(c.evidence, 4)}
                       for c in sorted(chunks, key=lambda c: c.hit.rank)]}
    return {"relevant": documents, "empty_context": not context.chunks,
            "context": [corpus_ids[d] for d in context_documents(context)],
            "sources": [corpus_ids[s.document_id] for s in context.sources],
            "nearest": [corpus_ids[h.document_id] for h in context.nearest],
            "top10": [corpus_ids[d] for d in ranking(context)[:10]]}
