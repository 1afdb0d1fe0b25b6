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
            gate (GATE_RULE, ``gate.py``, where the gate and the caps live): ``lexical``, the original's rule, passes a candidate
            that shares at least ``min(MIN_MATCH_TERMS, number of question terms)`` terms or
            has a lexical score of at least MIN_MATCH_SCORE (the clamp lets a one-word question
            such as "OpenTelemetry?" find anything); ``ranked`` also passes a chunk of the first
            GATE_TOP_DOCUMENTS documents with a cosine of at least GATE_MIN_SIMILARITY;
            ``evidence`` (the app's default) first asks whether any chunk of the first
            GATE_TOP_DOCUMENTS documents has enough evidence (cosine plus the IDF-weighted share
            of the question's terms it covers, minus the share it lacks that the candidates hold
            elsewhere; more when no candidate holds some of the question's nouns, ``nouns.py``):
            if none has, the question is off-topic and nothing passes; otherwise
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

The mode comes from ``RetrievalSettings.mode`` (RETRIEVAL_MODE of the retrieval profile, ``hybrid``;
``RetrievalSettings.original()``: ``vector``) unless ``build_context`` is given one. A store with vector search only
(``ChunkSearch``) gives ``hybrid`` an empty full-text leg, i.e. the vector ranking.

Every candidate is kept in ``Context.candidates`` with the gate that dropped it
(``evidence``, ``lexical``, ``document_cap``, ``total_cap``; None if kept) and, with rule
``evidence``, its evidence score, for the retrieval inspector.
No selected area means no embedding call and no search.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from irisrag import config as config_module
from irisrag.config import parse_bool
from irisrag.errors import IrisRagError
from irisrag.rag import (
    bridge,
    compounds,
    extractive,
    fusion,
    legs,
    manual_entries,
    named_records,
    nouns,
    option_names,
    separable,
    verbforms,
)
from irisrag.rag.bridge import Bridge, BridgeSettings
from irisrag.rag.fusion import FusionSettings
from irisrag.rag.gate import (  # noqa: F401  (the gate's names are public here too)
    GATE_DOCUMENT_CAP,
    GATE_EVIDENCE,
    GATE_LEXICAL,
    GATE_RULES,
    GATE_TOTAL_CAP,
    Candidate,
    GateSettings,
    capped,
    document_evidence,
    gate_candidates,
    on_topic,
    passes_lexical,
    passes_ranking,
)
from irisrag.rag.lexical import LexicalMatch, match, term_list, terms
from irisrag.rag.sources import Source, found_sources, nearest_documents
from irisrag.vectors.searchtext import compounds_of

if TYPE_CHECKING:
    from irisrag.rag.compounds import Compounds
    from irisrag.rag.expand import QueryExpander
    from irisrag.rag.rerank import Reranker
    from irisrag.vectors.store import Hit, TextHit

log = logging.getLogger(__name__)

TIMING_KEYS = ("expand", "embed", "search", "fulltext", "bridge", "fuse", "rerank", "lexical", "select", "sources",
               "total")
MODES = ("vector", "fulltext", "hybrid")


class QueryEmbedder(Protocol):
    def embed_query(self, text: str) -> np.ndarray: ...


class WordEmbedder(Protocol):
    """Unit vectors of single words (``bridge.WordVectors``)."""

    def __call__(self, words: Sequence[str]) -> np.ndarray: ...


class ChunkSearch(Protocol):
    def search(self, vector: np.ndarray, area_ids: Sequence[int], k: int) -> list[Hit]: ...


class FulltextSearch(Protocol):
    def search_fulltext(self, text: str, area_ids: Sequence[int], k: int, *,
                        vector: np.ndarray | None = None) -> list[TextHit]: ...


# The original's retrieval (before hybrid search, the evidence gate and the term bridge): the
# profile's values with these changed. Tests of single stages start from it.
ORIGINAL = {"RETRIEVAL_MODE": "vector", "GATE_RULE": "lexical", "TERM_BRIDGE": "none", "BRIDGE_DICTIONARY": "",
            "NEAREST_DOCUMENTS": 0, "CONTEXT_SPREAD": False}


@dataclass(frozen=True)
class RetrievalSettings:
    """The SPEC 5 retrieval parameters; values only from the config table (``from_config``)."""

    candidates: int
    context_chunks: int
    max_chunks_per_document: int
    min_match_terms: int
    min_match_score: float
    min_source_score: float
    found_sources_chunks: int
    source_score_ratio: float
    nearest_documents: int   # listed under "no information" (NEAREST_DOCUMENTS)
    mode: str                # RETRIEVAL_MODE
    fusion: FusionSettings
    gate: GateSettings
    bridge: BridgeSettings
    context_spread: bool     # each passing document's best chunk first (CONTEXT_SPREAD); else rank order

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown retrieval mode {self.mode!r}; one of {', '.join(MODES)}")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RetrievalSettings:
        """Build settings from an app config mapping; missing keys from the profile in force (``config.py``)."""
        values = config_module.defaults(config)
        return cls(
            candidates=int(values["CONTEXT_CANDIDATES"]),
            context_chunks=int(values["CONTEXT_CHUNKS"]),
            max_chunks_per_document=int(values["MAX_CHUNKS_PER_DOCUMENT"]),
            context_spread=parse_bool(values["CONTEXT_SPREAD"]),
            min_match_terms=int(values["MIN_MATCH_TERMS"]),
            min_match_score=float(values["MIN_MATCH_SCORE"]),
            min_source_score=float(values["MIN_SOURCE_SCORE"]),
            found_sources_chunks=int(values["FOUND_SOURCES_CHUNKS"]),
            source_score_ratio=float(values["SOURCE_SCORE_RATIO"]),
            nearest_documents=int(values["NEAREST_DOCUMENTS"]),
            mode=str(values["RETRIEVAL_MODE"]).strip().lower(),
            fusion=fusion.settings_from_config(values),
            gate=GateSettings.from_config(values),
            bridge=BridgeSettings.from_config(values),
        )

    @classmethod
    def original(cls, *values: Any, **changes: Any) -> RetrievalSettings:
        """The original's retrieval (``ORIGINAL``) with these fields changed, in order or named (tests, benchmarks)."""
        changes.update(zip([f.name for f in fields(cls)], values, strict=False))
        return replace(cls.from_config(ORIGINAL), **changes)


@dataclass(frozen=True)
class ContextChunk:
    """A chunk in the prompt; ``position`` is its 1-based number there ([n])."""

    hit: Hit
    match: LexicalMatch
    position: int


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
    alternates: Mapping[str, str] = field(default_factory=dict)   # other verb forms -> question terms (verbforms.py)
    english: frozenset[str] = frozenset()   # a how-to question's words in English, for option names (option_names.py)
    heads: Mapping[str, str] = field(default_factory=dict)   # compound heads -> question terms (compounds.py)
    manuals: frozenset[int] = frozenset()   # the manuals of programs the question names (named_records.named_by_tool)


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
    words: WordEmbedder | None = None,
    prefer: frozenset[int] = frozenset(),
) -> Context:
    """Build the numbered context and the found sources for a question in the given areas.

    ``prefer``: documents whose candidate chunks go ahead of the others, in their own order, before
    the gate (a follow-up's previous documents, ``followup.preferred_documents``).

    ``mode`` (``vector``, ``fulltext``, ``hybrid``) defaults to ``settings.mode``; ``reranker``
    and ``expander`` are the optional stages (None: off); ``words`` embeds single words for the
    term bridge (``Components.word_vectors``; needed when ``settings.bridge`` is on).
    """
    timer = _Timer()
    areas = tuple(int(a) for a in area_ids)
    if not areas:
        return Context(question, areas, (), (), (), timer.timings, terms(question))
    with timer.stage("total"):
        search_text = _expanded(question, expander, timer)
        asked = terms(search_text)
        if query_vector is None and (mode or settings.mode) != "fulltext":   # once: the search and the units
            with timer.stage("embed"):
                query_vector = np.asarray(embedder.embed_query(question), dtype=np.float32)
        hits, bridged = _candidates(question, areas, embedder, store, settings, query_vector,
                                    mode or settings.mode, asked, timer, search_text, reranker, words)
        hits = preferred_first(hits, prefer)
        question_terms = bridged.terms(asked)
        with timer.stage("lexical"):
            parts = compounds.term_parts(question, splitter_of(settings), question_terms)
            matches = compounds.with_parts([match(question_terms, hit.lexical_text) for hit in hits], hits, parts)
            unknown = unknown_nouns(question, hits, bridged, settings, mode or settings.mode, store)
        with timer.stage("select"):
            manuals = named_records.named_by_tool(question, hits)
            named = named_records.named_documents(asked, hits, question, settings.bridge.word_list(), manuals)
            candidates = gate_candidates(hits, matches, question_terms, settings,
                                         credit=bridged.credit(asked, settings.bridge.evidence,
                                                               settings.bridge.dictionary_evidence),
                                         cosines=bridged.cosines, translated=bridged.crosses,
                                         agreed=bridged.agreed, unknown_nouns=unknown, named=named)
            english = option_names.asked_words(question, settings.bridge.word_list(), bool(manuals))
            candidates = manual_entries.with_asked_entries(candidates, manuals, english, question)
            chunks = numbered(candidates)
            alternates = {**verbforms.alternates(question, settings.bridge.word_list()), **separable.alternates(question)}
            kept = Context(question, areas, chunks, (), (), {}, question_terms, bridged, (), alternates, english,
                           heads(question, settings), manuals)
            if not holds_answer(kept, embedder, query_vector, settings) \
                    or names_only(kept, hits, settings, mode or settings.mode, store):
                candidates, chunks = [replace(c, kept=False, gate=GATE_EVIDENCE) for c in candidates], ()
        with timer.stage("sources"):
            sources = found_sources(candidates, question_terms, settings)
    nearest = () if chunks else nearest_documents(candidates, settings.nearest_documents)
    return Context(question, areas, chunks, tuple(candidates), sources, timer.timings, question_terms, bridged,
                   nearest, alternates, english, heads(question, settings), manuals)


def holds_answer(context: Context, embedder: QueryEmbedder, query_vector: np.ndarray | None,
                 settings: RetrievalSettings) -> bool:
    """Tell whether the chunks the gate kept hold an answer: under the rule ``evidence``, a context whose best
    unit shares no question term and scores low answers something else (``extractive.unanswered``): the
    question is off-topic as if no document had reached the evidence. Needs an embedder of passages. A context
    holding the manual of a program the question names (``Context.manuals``: ``named_records.named_by_tool``) is on
    topic however its units score: "Wie lasse ich mir mit stat die Zugriffsrechte als Zahl ausgeben?" is
    answered by "%a Rechte-Bits in Oktaldarstellung", which shares no word with it (eval/holdout9-de stat-01)."""
    if not context.chunks or settings.gate.rule != "evidence" or not hasattr(embedder, "embed_documents"):
        return True
    if any(chunk.hit.document_id in context.manuals for chunk in context.chunks):
        return True
    return not extractive.unanswered(context.question, context, embedder, query_vector)


def names_only(context: Context, hits: Sequence[Hit], settings: RetrievalSettings, mode: str,
               store: ChunkSearch) -> bool:
    """Tell whether the candidates hold only the collection's names of what the question asks
    (``nouns.beyond_collection``), under the rule ``evidence`` and where the full-text leg searched the areas
    (as ``unknown_nouns``); a context holding a named program's manual is on topic."""
    if not context.chunks or settings.gate.rule != "evidence" or mode == "vector" \
            or not hasattr(store, "search_fulltext") or context.manuals:
        return False
    return nouns.beyond_collection(context.terms, hits)


def heads(question: str, settings: RetrievalSettings) -> dict[str, str]:
    """The question's compound nouns' heads as words of an answer unit (``compounds.head_alternates``)."""
    return compounds.head_alternates(question, splitter_of(settings))


def splitter_of(settings: RetrievalSettings) -> Compounds | None:
    """The compound splitter of the bridge's word list (None without the list)."""
    words = settings.bridge.word_list()
    return compounds_of(settings.bridge.dictionary, settings.bridge.dictionary_cache) if words else None


def unknown_nouns(question: str, hits: Sequence[Hit], bridged: Bridge, settings: RetrievalSettings, mode: str,
                  store: ChunkSearch) -> float:
    """The share of the question's nouns no candidate holds (``nouns.py``), for the gate's rule ``evidence``.

    Only where the full-text leg searched the areas for them (modes ``hybrid`` and ``fulltext``):
    the vector leg's nearest chunks alone leave out much of what a collection holds.
    """
    if settings.gate.rule != "evidence" or mode == "vector" or not hasattr(store, "search_fulltext"):
        return 0.0
    return nouns.unknown_share(question, hits, bridged, settings.bridge.word_list(), splitter_of(settings))


def preferred_first(hits: Sequence[Hit], prefer: frozenset[int]) -> list[Hit]:
    """Return the hits of the preferred documents first, then the others, each in rank order, ranked anew."""
    if not prefer:
        return list(hits)
    ordered = sorted(hits, key=lambda hit: (hit.document_id not in prefer, hit.rank))
    return [replace(hit, rank=n) for n, hit in enumerate(ordered)]


def rank_candidates(
    question: str, area_ids: Sequence[int], *, embedder: QueryEmbedder, store: ChunkSearch,
    settings: RetrievalSettings, query_vector: np.ndarray | None = None, mode: str | None = None,
    reranker: Reranker | None = None, expander: QueryExpander | None = None, words: WordEmbedder | None = None,
) -> tuple[list[Hit], dict[str, float]]:
    """Return the ranked candidate chunks of a mode (before the lexical gate) and the stage timings."""
    timer = _Timer()
    areas = tuple(int(a) for a in area_ids)
    if not areas:
        return [], timer.timings
    with timer.stage("total"):
        search_text = _expanded(question, expander, timer)
        hits, _ = _candidates(question, areas, embedder, store, settings, query_vector,
                              mode or settings.mode, terms(search_text), timer, search_text, reranker, words)
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
    reranker: Reranker | None = None, words: WordEmbedder | None = None,
) -> tuple[list[Hit], Bridge]:
    hits, bridged = _ranked(question, areas, embedder, store, settings, query_vector, mode, question_terms, timer,
                            search_text or question, words)
    if reranker is None or not hits:
        return body_first(hits), bridged
    with timer.stage("rerank"):
        return body_first(reranker.rerank(question, hits)), bridged


def body_first(hits: list[Hit]) -> list[Hit]:
    """Rank navigation and tables of contents (``Hit.boilerplate``) below every body chunk, keeping each order."""
    if not any(getattr(h, "boilerplate", False) for h in hits):
        return hits
    ordered = sorted(hits, key=lambda h: bool(getattr(h, "boilerplate", False)))
    return [replace(h, rank=i) for i, h in enumerate(ordered)]


def _ranked(
    question: str, areas: tuple[int, ...], embedder: QueryEmbedder, store: ChunkSearch,
    settings: RetrievalSettings, query_vector: np.ndarray | None, mode: str,
    question_terms: frozenset[str], timer: _Timer, search_text: str, words: WordEmbedder | None = None,
) -> tuple[list[Hit], Bridge]:
    if mode not in MODES:
        raise ValueError(f"unknown retrieval mode {mode!r}; one of {', '.join(MODES)}")
    vector = None
    if mode != "fulltext" or query_vector is not None:
        with timer.stage("embed"):
            vector = embedder.embed_query(question) if query_vector is None else query_vector
            vector = np.asarray(vector, dtype=np.float32)
    search_fulltext = getattr(store, "search_fulltext", None)
    if search_fulltext is None and mode == "fulltext":
        raise TypeError(f"{type(store).__name__} has no full-text search")
    vector_leg = legs.started(timer.stage, "search", store.search, vector, areas, settings.candidates,
                              alone=mode == "vector" or search_fulltext is None) if mode != "fulltext" else None
    if mode == "vector":
        return vector_leg.result(), Bridge()
    search_text = verbforms.searched(search_text, question)   # "entpacke ich" finds "entpackt" too
    search_text = separable.searched(search_text, question)   # "fährt ... herunter" finds "herunterfahren"
    search_text = option_names.searched(search_text, question, settings.bridge.word_list())   # "sperre": "lock"
    with timer.stage("fulltext"):  # a vector-only store (ChunkSearch) gives hybrid an empty full-text leg
        lexical = [] if search_fulltext is None else search_fulltext(search_text, areas, settings.candidates,
                                                                     vector=vector)
    if mode == "fulltext":
        return [t.hit for t in lexical], Bridge()
    dense = vector_leg.result()
    bridged = Bridge()
    if settings.bridge.enabled and search_fulltext is not None:
        with timer.stage("bridge"):
            bridged = bridge_terms(question, question_terms, dense, lexical, settings.bridge, words)
            searched = legs.beside(translated_cosines, bridged, question, embedder, store, areas, settings.candidates,
                                   alone=not bridged) if bridged.words and settings.bridge.vector_search else None
            if bridged:   # search_only words change no cosine, but are searched
                lexical = search_fulltext(bridged.searched(search_text), areas, settings.candidates,
                                          vector=vector)
            bridged = searched.result() if searched else bridged
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
                 lexical: Sequence[TextHit], settings: BridgeSettings, words: WordEmbedder | None = None) -> Bridge:
    """Bridge the question's words that no candidate of either leg holds (``bridge.py``).

    Each candidate's known terms are ``match(question_terms, text).terms``, computed as a set
    intersection without the occurrence counts and score ``match`` adds (~512 texts a question).
    """
    wanted = frozenset(question_terms)
    known = [wanted.intersection(term_list(hit.text)) for hit in [*dense, *(t.hit for t in lexical)]]
    return bridge.bridge(question, bridge.unknown_words(question, known), dense, settings, words)


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


def numbered(candidates: Sequence[Candidate]) -> tuple[ContextChunk, ...]:
    """Number the kept candidates [1], [2], ... in rank order."""
    kept = (c for c in candidates if c.kept)
    return tuple(ContextChunk(c.hit, c.match, n) for n, c in enumerate(kept, start=1))
