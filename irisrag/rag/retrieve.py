"""Context building: candidates in the permitted areas, lexical filter, caps, found sources.

Stages (SPEC 5), each timed in ``Context.timings`` (seconds):

``embed``    embed the question (skipped when a query vector is passed in, and in ``fulltext`` mode)
``search``   the CONTEXT_CANDIDATES (256) nearest chunks by cosine, prefiltered to the areas
             (modes ``vector`` and ``hybrid``)
``fulltext`` the CONTEXT_CANDIDATES best BM25 chunks of LanceDB's full-text index, prefiltered
             to the areas (modes ``fulltext`` and ``hybrid``)
``bridge``   hybrid only, TERM_BRIDGE (``bridge.py``): question words no candidate holds mapped
             onto words of the first vector candidates; with any, the full-text leg searches
             again with them, and they count as question terms from here on; the question in
             the documents' words is embedded and searched too (BRIDGE_VECTOR_SEARCH), for
             the gate's cosines
``fuse``     hybrid only: both lists merged into one ranking (``fusion.py``), cut to
             CONTEXT_CANDIDATES; every candidate keeps its cosine similarity as ``score``
             and gets its fused rank as ``rank``
``lexical`` match each candidate's search text (``Hit.lexical_text``: with its title and compound
            parts) against the question's normalised terms, then the
            gate (GATE_RULE, ``gate.py``): ``lexical``, the original's rule, passes a candidate
            that shares at least ``min(MIN_MATCH_TERMS, number of question terms)`` terms or
            has a lexical score of at least MIN_MATCH_SCORE (the clamp lets a one-word question
            such as "OpenTelemetry?" find anything); ``ranked`` also passes a chunk of the first
            GATE_TOP_DOCUMENTS documents with a cosine of at least GATE_MIN_SIMILARITY;
            ``evidence`` (the app's default) first asks whether any chunk of the first
            GATE_TOP_DOCUMENTS documents has enough evidence (cosine plus the IDF-weighted share
            of the question's terms it covers, minus the share it lacks that the candidates hold
            elsewhere): if none has, the question is off-topic and nothing passes; otherwise
            the chunks of the documents that have pass, and any other chunk on the lexical
            rule. So a question
            in another language than its document (no shared words, a modest cosine) gets the
            passages the ranking is sure of, and an off-topic question whose words occur in
            unrelated places gets none
``expand``  optional (QUERY_EXPANSION, ``expand.py``): the LLM's keywords for the question,
            added to the full-text query, the fusion's and the lexical gate's terms
``rerank``  optional (RERANKER, ``rerank.py``): the top RERANK_TOP_N candidates re-ordered
            by a second embedder or the LLM as a judge
``select``  in candidate-rank order, at most MAX_CHUNKS_PER_DOCUMENT (4) per document and
            CONTEXT_CHUNKS (9) in all
``sources`` found sources from every candidate that passed the gate (see ``sources.py``)

The mode comes from ``RetrievalSettings.mode`` (RETRIEVAL_MODE; the dataclass default is the
original's ``vector``) unless ``build_context`` is given one. A store with vector search only
(``ChunkSearch``) gives ``hybrid`` an empty full-text leg, i.e. the vector ranking.

Every candidate is kept in ``Context.candidates`` with the gate that dropped it
(``evidence``, ``lexical``, ``document_cap``, ``total_cap``; None if kept) and, with rule
``evidence``, its evidence score, for the retrieval inspector.
No selected area means no embedding call and no search.
"""
from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from irisrag.config import parse_bool
from irisrag.errors import IrisRagError
from irisrag.rag import bridge, fusion
from irisrag.rag.bridge import Bridge, BridgeSettings
from irisrag.rag.fusion import FusionSettings
from irisrag.rag.gate import GATE_RULES, GateSettings, document_evidence, on_topic  # noqa: F401  (public here too)
from irisrag.rag.lexical import LexicalMatch, match, terms
from irisrag.rag.sources import Source, found_sources, nearest_documents

if TYPE_CHECKING:
    from irisrag.rag.expand import QueryExpander
    from irisrag.rag.rerank import Reranker
    from irisrag.vectorstore import Hit, TextHit

log = logging.getLogger(__name__)

GATE_LEXICAL = "lexical"
GATE_EVIDENCE = "evidence"   # rule evidence: no chunk of the first documents has enough evidence (off-topic)
GATE_DOCUMENT_CAP = "document_cap"
GATE_TOTAL_CAP = "total_cap"
TIMING_KEYS = ("expand", "embed", "search", "fulltext", "bridge", "fuse", "rerank", "lexical", "select", "sources",
               "total")
MODES = ("vector", "fulltext", "hybrid")


class QueryEmbedder(Protocol):
    def embed_query(self, text: str) -> np.ndarray: ...


class ChunkSearch(Protocol):
    def search(self, vector: np.ndarray, area_ids: Sequence[int], k: int) -> list[Hit]: ...


class FulltextSearch(Protocol):
    def search_fulltext(self, text: str, area_ids: Sequence[int], k: int, *,
                        vector: np.ndarray | None = None) -> list[TextHit]: ...


@dataclass(frozen=True)
class RetrievalSettings:
    """The SPEC 5 retrieval parameters (original defaults)."""

    candidates: int = 256
    context_chunks: int = 9
    max_chunks_per_document: int = 4
    min_match_terms: int = 2
    min_match_score: float = 5.0
    min_source_score: float = 1.0
    found_sources_chunks: int = 3
    source_score_ratio: float = 0.5
    nearest_documents: int = 0   # the original lists nothing with "no information"; the app's: NEAREST_DOCUMENTS
    mode: str = "vector"     # the original's retrieval; the app's default comes from RETRIEVAL_MODE
    fusion: FusionSettings = FusionSettings()
    gate: GateSettings = GateSettings(rule="lexical")  # the original's; the app's default comes from GATE_RULE
    bridge: BridgeSettings = BridgeSettings()          # off, as the original; the app's default: TERM_BRIDGE
    context_spread: bool = False   # each passing document's best chunk first (the app's: CONTEXT_SPREAD); else rank order

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown retrieval mode {self.mode!r}; one of {', '.join(MODES)}")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RetrievalSettings:
        """Build settings from an app config mapping, defaults for missing keys."""
        default = cls()
        return cls(
            candidates=int(config.get("CONTEXT_CANDIDATES", default.candidates)),
            context_chunks=int(config.get("CONTEXT_CHUNKS", default.context_chunks)),
            max_chunks_per_document=int(config.get("MAX_CHUNKS_PER_DOCUMENT", default.max_chunks_per_document)),
            context_spread=parse_bool(config.get("CONTEXT_SPREAD", default.context_spread)),
            min_match_terms=int(config.get("MIN_MATCH_TERMS", default.min_match_terms)),
            min_match_score=float(config.get("MIN_MATCH_SCORE", default.min_match_score)),
            min_source_score=float(config.get("MIN_SOURCE_SCORE", default.min_source_score)),
            found_sources_chunks=int(config.get("FOUND_SOURCES_CHUNKS", default.found_sources_chunks)),
            source_score_ratio=float(config.get("SOURCE_SCORE_RATIO", default.source_score_ratio)),
            nearest_documents=int(config.get("NEAREST_DOCUMENTS", default.nearest_documents)),
            mode=str(config.get("RETRIEVAL_MODE", default.mode)).strip().lower(),
            fusion=fusion.settings_from_config(config),
            gate=GateSettings.from_config(config, default.gate),
            bridge=BridgeSettings.from_config(config),
        )


@dataclass(frozen=True)
class ContextChunk:
    """A chunk in the prompt; ``position`` is its 1-based number there ([n])."""

    hit: Hit
    match: LexicalMatch
    position: int


@dataclass(frozen=True)
class Candidate:
    """A vector candidate, whether it was kept, and the gate that dropped it."""

    hit: Hit
    match: LexicalMatch
    kept: bool
    gate: str | None
    evidence: float | None = None   # rule evidence: its document's evidence (first GATE_TOP_DOCUMENTS documents)


@dataclass(frozen=True)
class Context:
    """Everything retrieval produced for one question."""

    question: str
    area_ids: tuple[int, ...]
    chunks: tuple[ContextChunk, ...]
    candidates: tuple[Candidate, ...]
    sources: tuple[Source, ...]
    timings: dict[str, float]
    terms: frozenset[str] = field(default_factory=frozenset)
    bridge: Bridge = field(default_factory=Bridge)   # question words searched as document words (bridge.py)
    nearest: tuple[Hit, ...] = ()   # an empty context only: the first documents' best chunks (NEAREST_DOCUMENTS)


class _Timer:
    def __init__(self) -> None:
        self.timings = dict.fromkeys(TIMING_KEYS, 0.0)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] += time.perf_counter() - start


def passes_lexical(found: LexicalMatch, question_terms: frozenset[str], settings: RetrievalSettings) -> bool:
    """Tell whether a chunk's lexical match is enough for the context."""
    needed = max(1, min(settings.min_match_terms, len(question_terms)))
    return found.count >= needed or found.score >= settings.min_match_score


def passes_ranking(hit: Hit, document_rank: int, gate: GateSettings) -> bool:
    """Tell whether the ranking is sure of a chunk: a top document's chunk, similar enough (rule ``ranked``)."""
    return gate.rule == "ranked" and document_rank < gate.top_documents and hit.score >= gate.min_similarity


def build_context(
    question: str,
    area_ids: Sequence[int],
    *,
    embedder: QueryEmbedder,
    store: ChunkSearch,
    settings: RetrievalSettings,
    query_vector: np.ndarray | None = None,
    mode: str | None = None,
    reranker: Reranker | None = None,
    expander: QueryExpander | None = None,
) -> Context:
    """Build the numbered context and the found sources for a question in the given areas.

    ``mode`` (``vector``, ``fulltext``, ``hybrid``) defaults to ``settings.mode``; ``reranker``
    and ``expander`` are the optional stages (None: off).
    """
    timer = _Timer()
    areas = tuple(int(a) for a in area_ids)
    if not areas:
        return Context(question, areas, (), (), (), timer.timings, terms(question))
    with timer.stage("total"):
        search_text = _expanded(question, expander, timer)
        asked = terms(search_text)
        hits, bridged = _candidates(question, areas, embedder, store, settings, query_vector,
                                    mode or settings.mode, asked, timer, search_text, reranker)
        question_terms = bridged.terms(asked)
        with timer.stage("lexical"):
            matches = [match(question_terms, hit.lexical_text) for hit in hits]
        with timer.stage("select"):
            candidates = gate_candidates(hits, matches, question_terms, settings,
                                         credit=bridged.credit(asked, settings.bridge.evidence,
                                                               settings.bridge.dictionary_evidence),
                                         cosines=bridged.cosines, translated=bridged.crosses,
                                         agreed=bridged.agreed)
            chunks = numbered(candidates)
        with timer.stage("sources"):
            sources = found_sources(candidates, question_terms, settings)
    nearest = () if chunks else nearest_documents(candidates, settings.nearest_documents)
    return Context(question, areas, chunks, tuple(candidates), sources, timer.timings, question_terms, bridged,
                   nearest)


def rank_candidates(
    question: str, area_ids: Sequence[int], *, embedder: QueryEmbedder, store: ChunkSearch,
    settings: RetrievalSettings, query_vector: np.ndarray | None = None, mode: str | None = None,
    reranker: Reranker | None = None, expander: QueryExpander | None = None,
) -> tuple[list[Hit], dict[str, float]]:
    """Return the ranked candidate chunks of a mode (before the lexical gate) and the stage timings."""
    timer = _Timer()
    areas = tuple(int(a) for a in area_ids)
    if not areas:
        return [], timer.timings
    with timer.stage("total"):
        search_text = _expanded(question, expander, timer)
        hits, _ = _candidates(question, areas, embedder, store, settings, query_vector,
                              mode or settings.mode, terms(search_text), timer, search_text, reranker)
    return hits, timer.timings


def _expanded(question: str, expander: QueryExpander | None, timer: _Timer) -> str:
    """Return the question plus the expander's keywords (the question alone without one)."""
    if expander is None:
        return question
    with timer.stage("expand"):
        keywords = expander.expand(question)
    return f"{question} {keywords}" if keywords else question


def _candidates(
    question: str, areas: tuple[int, ...], embedder: QueryEmbedder, store: ChunkSearch,
    settings: RetrievalSettings, query_vector: np.ndarray | None, mode: str,
    question_terms: frozenset[str], timer: _Timer, search_text: str | None = None,
    reranker: Reranker | None = None,
) -> tuple[list[Hit], Bridge]:
    hits, bridged = _ranked(question, areas, embedder, store, settings, query_vector, mode, question_terms, timer,
                            search_text or question)
    if reranker is None or not hits:
        return hits, bridged
    with timer.stage("rerank"):
        return reranker.rerank(question, hits), bridged


def _ranked(
    question: str, areas: tuple[int, ...], embedder: QueryEmbedder, store: ChunkSearch,
    settings: RetrievalSettings, query_vector: np.ndarray | None, mode: str,
    question_terms: frozenset[str], timer: _Timer, search_text: str,
) -> tuple[list[Hit], Bridge]:
    if mode not in MODES:
        raise ValueError(f"unknown retrieval mode {mode!r}; one of {', '.join(MODES)}")
    vector = None
    if mode != "fulltext" or query_vector is not None:
        with timer.stage("embed"):
            vector = embedder.embed_query(question) if query_vector is None else query_vector
            vector = np.asarray(vector, dtype=np.float32)
    dense: list[Hit] = []
    if mode != "fulltext":
        with timer.stage("search"):
            dense = store.search(vector, areas, settings.candidates)
    if mode == "vector":
        return dense, Bridge()
    search_fulltext = getattr(store, "search_fulltext", None)
    if search_fulltext is None and mode == "fulltext":
        raise TypeError(f"{type(store).__name__} has no full-text search")
    with timer.stage("fulltext"):  # a vector-only store (ChunkSearch) gives hybrid an empty full-text leg
        lexical = [] if search_fulltext is None else search_fulltext(search_text, areas, settings.candidates,
                                                                     vector=vector)
    if mode == "fulltext":
        return [t.hit for t in lexical], Bridge()
    bridged = Bridge()
    if settings.bridge.enabled and search_fulltext is not None:
        with timer.stage("bridge"):
            bridged = bridge_terms(question, question_terms, dense, lexical, settings.bridge)
            if bridged:
                lexical = search_fulltext(bridged.searched(search_text), areas, settings.candidates,
                                          vector=vector)
            if bridged.words and settings.bridge.vector_search:   # search_only words change no cosine
                bridged = translated_cosines(bridged, question, embedder, store, areas, settings.candidates)
            if bridged.crosses:
                bridged = replace(bridged, agreed=agreed_document(dense, lexical))
    with timer.stage("fuse"):
        return fuse_candidates(dense, lexical, bridged.terms(question_terms), settings), bridged


def agreed_document(dense: Sequence[Hit], lexical: Sequence[TextHit]) -> int | None:
    """The document both legs rank first (the full text searched with the bridged words), or None."""
    if dense and lexical and dense[0].document_id == lexical[0].hit.document_id:
        return dense[0].document_id
    return None


def bridge_terms(question: str, question_terms: frozenset[str], dense: Sequence[Hit],
                 lexical: Sequence[TextHit], settings: BridgeSettings) -> Bridge:
    """Bridge the question's words that no candidate of either leg holds (``bridge.py``)."""
    known = [match(question_terms, hit.text).terms for hit in [*dense, *(t.hit for t in lexical)]]
    return bridge.bridge(question, bridge.unknown_words(question, known), dense, settings)


def translated_cosines(bridged: Bridge, question: str, embedder: QueryEmbedder, store: ChunkSearch,
                       areas: Sequence[int], k: int) -> Bridge:
    """Search the vectors with the question in the documents' words; keep each document's best cosine.

    A failure (a remote embedder that stopped answering) keeps the bridge without them: the
    question's own cosines are a fine gate, so it never fails the question.
    """
    try:
        hits = store.search(embedder.embed_query(bridged.translated(question)), areas, k)
    except IrisRagError as exc:
        log.warning("event=bridge_vector_search_failed error=%s", exc)
        return bridged
    best: dict[int, float] = {}
    for hit in hits:
        best[hit.document_id] = max(best.get(hit.document_id, -1.0), hit.score)
    return replace(bridged, cosines=best)


def fuse_candidates(dense: Sequence[Hit], lexical: Sequence[TextHit], question_terms: frozenset[str],
                    settings: RetrievalSettings) -> list[Hit]:
    """Merge vector and full-text candidates (see ``fusion.py``) into at most CONTEXT_CANDIDATES hits."""
    by_key: dict[tuple[int, int], Hit] = {}
    for hit in [*dense, *(t.hit for t in lexical)]:
        by_key.setdefault((hit.document_id, hit.chunk_index), hit)
    coverage = fusion.question_coverage(question_terms, [(t.hit.document_id, t.hit.text) for t in lexical],
                                        settings.fusion)
    weight = fusion.lexical_weight(settings.fusion, coverage)
    order = fusion.fuse([((h.document_id, h.chunk_index), h.score) for h in dense],
                        [((t.hit.document_id, t.hit.chunk_index), t.bm25) for t in lexical],
                        weight, settings.fusion, document_of=lambda key: key[0])
    return [replace(by_key[key], rank=rank) for rank, key in enumerate(order[: settings.candidates])]


def gate_candidates(hits: Sequence[Hit], matches: Sequence[LexicalMatch], question_terms: frozenset[str],
                    settings: RetrievalSettings, credit: Mapping[str, float] | None = None,
                    cosines: Mapping[int, float] | None = None, translated: bool = False,
                    agreed: int | None = None) -> list[Candidate]:
    """Apply the gate (GATE_RULE, ``gate.py``) and the caps to ranked candidates, in rank order.

    ``credit``: the share of a term's weight the rule ``evidence`` credits when a document
    holds it (1 for a term not named: bridged words get BRIDGE_EVIDENCE, ``bridge.py``);
    ``cosines``: each document's cosine to the question in the documents' words (BRIDGE_VECTOR_SEARCH);
    ``translated``: the word list translated the question (GATE_TRANSLATED_ALLOWANCE);
    ``agreed``: the document both legs rank first for such a question (GATE_AGREEMENT_BONUS).
    """
    pairs = sorted(zip(hits, matches, strict=True), key=lambda pair: pair[0].rank)
    document_rank: dict[int, int] = {}
    ranks = [document_rank.setdefault(hit.document_id, len(document_rank)) for hit, _ in pairs]
    passing = _passing(pairs, ranks, question_terms, settings, credit, cosines, translated, agreed)
    verdicts = capped([hit.document_id for hit, _ in pairs], [gate for gate, _ in passing], settings)
    return [Candidate(hit, found, gate is None, gate, evidence)
            for (hit, found), gate, (_, evidence) in zip(pairs, verdicts, passing, strict=True)]


def capped(documents: Sequence[int], verdicts: Sequence[str | None], settings: RetrievalSettings) -> list[str | None]:
    """Apply CONTEXT_CHUNKS and MAX_CHUNKS_PER_DOCUMENT to the passing candidates (rank order).

    With CONTEXT_SPREAD each passing document's first chunk is taken before any document's
    second: nine chunks of three documents left a relevant fifth document out (SciFact, where
    a claim has several relevant abstracts; README: what reaches the user).
    """
    kept = [False] * len(documents)
    per_document: Counter[int] = Counter()
    most = settings.max_chunks_per_document
    room = settings.context_chunks
    for limit in ((1, most) if settings.context_spread else (most,)):
        for n, document in enumerate(documents):
            if room and verdicts[n] is None and not kept[n] and per_document[document] < limit:
                kept[n], room = True, room - 1
                per_document[document] += 1
    return [verdict if verdict is not None or kept[n]
            else GATE_DOCUMENT_CAP if per_document[documents[n]] >= most else GATE_TOTAL_CAP
            for n, verdict in enumerate(verdicts)]


def _passing(pairs: Sequence[tuple[Hit, LexicalMatch]], ranks: Sequence[int], question_terms: frozenset[str],
             settings: RetrievalSettings, credit: Mapping[str, float] | None = None,
             cosines: Mapping[int, float] | None = None, translated: bool = False,
             agreed: int | None = None) -> list[tuple[str | None, float | None]]:
    """Return each candidate's gate verdict before the caps (None: passes) and its evidence score."""
    gate = settings.gate
    if gate.rule != "evidence":
        return [(None if passes_lexical(found, question_terms, settings) or passes_ranking(hit, rank, gate)
                 else GATE_LEXICAL, None) for (hit, found), rank in zip(pairs, ranks, strict=True)]
    evidence = document_evidence([h for h, _ in pairs], [m for _, m in pairs], ranks, question_terms, gate, credit,
                                 cosines)
    if agreed in evidence:
        evidence[agreed] += gate.agreement_bonus
    scores = [evidence.get(hit.document_id) for hit, _ in pairs]
    if not on_topic(evidence, gate, translated):
        return [(GATE_EVIDENCE, e) for e in scores]
    return [(None if (e is not None and e >= gate.threshold(translated)) or passes_lexical(found, question_terms, settings)
             else GATE_LEXICAL, e) for (_, found), e in zip(pairs, scores, strict=True)]


def numbered(candidates: Sequence[Candidate]) -> tuple[ContextChunk, ...]:
    """Number the kept candidates [1], [2], ... in rank order."""
    kept = (c for c in candidates if c.kept)
    return tuple(ContextChunk(c.hit, c.match, n) for n, c in enumerate(kept, start=1))
