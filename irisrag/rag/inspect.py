"""The retrieval inspector: why did a document's chunks (not) reach the context?

For every chunk of one document it reports the vector rank, the full-text rank and the
fused rank among the permitted areas, the lexical score, and the gate that dropped it:

``area_filter``       the document's area is not among the searched areas
``candidate_window``  ranked below CONTEXT_CANDIDATES in the retrieval mode used
``evidence``          GATE_RULE evidence: no chunk of the first documents had enough evidence,
                      the question counts as off-topic (``gate.py``)
``lexical``           shares too few normalised terms with the question (MIN_MATCH_*)
``document_cap``      MAX_CHUNKS_PER_DOCUMENT chunks of this document were taken already
``total_cap``         CONTEXT_CHUNKS were taken already
``None``              in the context

The leg ranks come from searches over up to ``probe`` chunks (exact enough to answer "it was
at rank 195 with a window of 36", the original's release-notes story).

In ``hybrid`` mode the trace also carries the fusion's full-text weight for the question
(``fusion.question_coverage`` on the first CONTEXT_CANDIDATES full-text hits) and the
document share: a document's best chunk scores ``(1 - share)`` times its own fusion plus
``share`` times its document's (the document's best vector chunk and best full-text chunk),
so a document can rank high on two different chunks, one strong in each leg. With the term
bridge (TERM_BRIDGE, ``bridge.py``) it names the question words searched as document words,
and the full-text ranks are those of the bridged search.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irisrag.rag import fusion
from irisrag.rag.lexical import match, terms
from irisrag.rag.retrieve import Context, RetrievalSettings, build_context

GATE_AREA = "area_filter"
GATE_WINDOW = "candidate_window"


@dataclass(frozen=True)
class ChunkTrace:
    chunk_index: int
    page: int | None
    text: str
    vector_rank: int | None     # 1-based; None: not found within the probe
    fulltext_rank: int | None
    fused_rank: int | None      # rank in the mode's candidate list (the window)
    lexical_score: float
    lexical_terms: tuple[str, ...]
    gate: str | None            # None: in the context
    position: int | None        # the [n] number in the prompt
    evidence: float | None = None  # GATE_RULE evidence: the chunk's evidence score (first documents only)


@dataclass(frozen=True)
class Trace:
    question: str
    mode: str
    area_ids: tuple[int, ...]
    document_id: int
    candidates: int
    chunks: tuple[ChunkTrace, ...]
    context_documents: tuple[int, ...]  # documents that reached the context instead
    fulltext_weight: float | None = None  # hybrid: the fusion's full-text weight for this question
    document_share: float | None = None   # hybrid (convex): share of the document-level fusion
    bridged: tuple[tuple[str, str], ...] = ()  # TERM_BRIDGE: (question word, document word) searched for it
    translated: str | None = None              # BRIDGE_VECTOR_SEARCH: the question in the documents' words ...
    translated_cosine: float | None = None     # ... and this document's best cosine to it (the gate's cosine)
    looked_up: tuple[tuple[str, str], ...] = ()  # BRIDGE_DICTIONARY: (question word, translation) searched too
    evidence_needed: float | None = None       # rule evidence: the threshold this question's documents faced ...
    translated_question: bool = False          # ... lowered by GATE_TRANSLATED_ALLOWANCE (the word list translated it)
    agreement_bonus: float | None = None       # GATE_AGREEMENT_BONUS: both legs rank this document first


def inspect_document(
    question: str, area_ids: Sequence[int], document_id: int, document_area_id: int, *,
    embedder, store, settings: RetrievalSettings, probe: int = 5000, reranker=None, expander=None,
    context_of: Callable[..., Context] | None = None, words=None,
) -> Trace:
    """Trace every chunk of one document through the retrieval of a question.

    ``context_of(question, areas, query_vector=...)`` builds the context (``Retriever.context``,
    which fails closed on a leak); without it ``build_context`` with the given parts.
    """
    areas = tuple(sorted(int(a) for a in area_ids))
    chunks = store.chunks_of(document_id)
    question_terms = terms(question)
    if document_area_id not in areas:
        traces = tuple(_trace(c, None, None, None, question_terms, GATE_AREA, None) for c in chunks)
        return Trace(question, settings.mode, areas, document_id, settings.candidates, traces, ())
    vector = np.asarray(embedder.embed_query(question), dtype=np.float32)
    own = [h for h in store.search(vector, areas, probe) if h.document_id == document_id]
    if context_of is None:
        context = build_context(question, areas, embedder=embedder, store=store, settings=settings,
                                query_vector=vector, reranker=reranker, expander=expander, words=words)
    else:
        context = context_of(question, areas, query_vector=vector)
    fulltext = getattr(store, "search_fulltext", None)
    searched = context.bridge.searched(question)
    text_hits = [t.hit for t in fulltext(searched, areas, probe)] if fulltext else []
    vector_ranks = {h.chunk_index: h.rank + 1 for h in own}
    fulltext_ranks = {h.chunk_index: h.rank + 1 for h in text_hits if h.document_id == document_id}
    question_terms = context.terms  # with query expansion: the question's and the keywords' terms
    fused = {c.hit.chunk_index: (rank, c) for rank, c in enumerate(context.candidates, start=1)
             if c.hit.document_id == document_id}
    positions = {c.hit.chunk_index: c.position for c in context.chunks if c.hit.document_id == document_id}
    traces = []
    for chunk in chunks:
        rank, candidate = fused.get(chunk.chunk_index, (None, None))
        gate = GATE_WINDOW if candidate is None else candidate.gate
        traces.append(_trace(chunk, vector_ranks.get(chunk.chunk_index), fulltext_ranks.get(chunk.chunk_index),
                             rank, question_terms, gate, positions.get(chunk.chunk_index),
                             candidate.evidence if candidate is not None else None))
    others = tuple(dict.fromkeys(c.hit.document_id for c in context.chunks if c.hit.document_id != document_id))
    weight, share = _fusion(question_terms, text_hits[:settings.candidates], settings)
    bridged = context.bridge
    translated = bridged.translated(question) if bridged.cosines else None
    cosine = bridged.cosines.get(document_id)
    return Trace(question, settings.mode, areas, document_id, settings.candidates, tuple(traces), others,
                 weight, share, tuple(bridged.words.items()), translated, None if cosine is None else round(cosine, 3),
                 tuple(bridged.search_only.items()), *_evidence_notes(settings, bridged, document_id))


def _evidence_notes(settings: RetrievalSettings, bridged, document_id: int) -> tuple[float | None, bool, float | None]:
    """Rule ``evidence`` only: the threshold applied, whether it was the translated one, this document's bonus."""
    gate = settings.gate
    if gate.rule != "evidence":
        return None, False, None
    bonus = gate.agreement_bonus if bridged.agreed == document_id else None
    return round(gate.threshold(bridged.crosses), 3), bridged.crosses, bonus


def _fusion(question_terms: frozenset[str], text_hits, settings: RetrievalSettings) -> tuple[float | None, float | None]:
    """Return the hybrid fusion's full-text weight and document share for the question (None otherwise)."""
    if settings.mode != "hybrid":
        return None, None
    coverage = fusion.question_coverage(question_terms, [(h.document_id, h.text) for h in text_hits], settings.fusion)
    share = settings.fusion.document_share if settings.fusion.method == "convex" else 0.0
    return round(fusion.lexical_weight(settings.fusion, coverage), 3), share


def _trace(chunk, vector_rank, fulltext_rank, fused_rank, question_terms, gate, position,
           evidence: float | None = None) -> ChunkTrace:
    found = match(question_terms, chunk.lexical_text)
    return ChunkTrace(chunk.chunk_index, chunk.page, chunk.text, vector_rank, fulltext_rank, fused_rank,
                      round(found.score, 2), tuple(sorted(found.terms)), gate, position,
                      None if evidence is None else round(evidence, 3))
