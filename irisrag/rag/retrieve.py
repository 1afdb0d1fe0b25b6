"""Context building: vector candidates in the permitted areas, lexical filter, caps, found sources.

Stages (SPEC 5), each timed in ``Context.timings`` (seconds):

``embed``   embed the question (skipped when a query vector is passed in)
``search``  the CONTEXT_CANDIDATES (256) nearest chunks by cosine, prefiltered to the areas
``lexical`` match each candidate's text against the question's normalised terms; a
            candidate passes when it shares at least ``min(MIN_MATCH_TERMS, number of
            question terms)`` terms, or its lexical score is at least MIN_MATCH_SCORE
            (the clamp lets a one-word question such as "OpenTelemetry?" find anything)
``select``  in vector-rank order, at most MAX_CHUNKS_PER_DOCUMENT (4) per document and
            CONTEXT_CHUNKS (9) in all
``sources`` found sources from every lexically passing candidate (see ``sources.py``)

Every candidate is kept in ``Context.candidates`` with the gate that dropped it
(``lexical``, ``document_cap``, ``total_cap``; None if kept) for the retrieval inspector.
No selected area means no embedding call and no search.
"""
from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from irisrag.rag.lexical import LexicalMatch, match, terms
from irisrag.rag.sources import Source, found_sources

if TYPE_CHECKING:
    from irisrag.vectorstore import Hit

GATE_LEXICAL = "lexical"
GATE_DOCUMENT_CAP = "document_cap"
GATE_TOTAL_CAP = "total_cap"
TIMING_KEYS = ("embed", "search", "lexical", "select", "sources", "total")


class QueryEmbedder(Protocol):
    def embed_query(self, text: str) -> np.ndarray: ...


class ChunkSearch(Protocol):
    def search(self, vector: np.ndarray, area_ids: Sequence[int], k: int) -> list[Hit]: ...


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

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RetrievalSettings:
        """Build settings from an app config mapping, defaults for missing keys."""
        default = cls()
        return cls(
            candidates=int(config.get("CONTEXT_CANDIDATES", default.candidates)),
            context_chunks=int(config.get("CONTEXT_CHUNKS", default.context_chunks)),
            max_chunks_per_document=int(config.get("MAX_CHUNKS_PER_DOCUMENT", default.max_chunks_per_document)),
            min_match_terms=int(config.get("MIN_MATCH_TERMS", default.min_match_terms)),
            min_match_score=float(config.get("MIN_MATCH_SCORE", default.min_match_score)),
            min_source_score=float(config.get("MIN_SOURCE_SCORE", default.min_source_score)),
            found_sources_chunks=int(config.get("FOUND_SOURCES_CHUNKS", default.found_sources_chunks)),
            source_score_ratio=float(config.get("SOURCE_SCORE_RATIO", default.source_score_ratio)),
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


def build_context(
    question: str,
    area_ids: Sequence[int],
    *,
    embedder: QueryEmbedder,
    store: ChunkSearch,
    settings: RetrievalSettings,
    query_vector: np.ndarray | None = None,
) -> Context:
    """Build the numbered context and the found sources for a question in the given areas."""
    timer = _Timer()
    areas = tuple(int(a) for a in area_ids)
    question_terms = terms(question)
    if not areas:
        return Context(question, areas, (), (), (), timer.timings, question_terms)
    with timer.stage("total"):
        with timer.stage("embed"):
            vector = embedder.embed_query(question) if query_vector is None else query_vector
        with timer.stage("search"):
            hits = store.search(np.asarray(vector, dtype=np.float32), areas, settings.candidates)
        with timer.stage("lexical"):
            matches = [match(question_terms, hit.text) for hit in hits]
        with timer.stage("select"):
            candidates = _gate(hits, matches, question_terms, settings)
            chunks = _numbered(candidates)
        with timer.stage("sources"):
            sources = found_sources(candidates, question_terms, settings)
    return Context(question, areas, chunks, tuple(candidates), sources, timer.timings, question_terms)


def _gate(
    hits: Sequence[Hit], matches: Sequence[LexicalMatch], question_terms: frozenset[str],
    settings: RetrievalSettings,
) -> list[Candidate]:
    per_document: dict[int, int] = {}
    kept_total = 0
    result: list[Candidate] = []
    for hit, found in sorted(zip(hits, matches, strict=True), key=lambda pair: pair[0].rank):
        gate: str | None = None
        if not passes_lexical(found, question_terms, settings):
            gate = GATE_LEXICAL
        elif per_document.get(hit.document_id, 0) >= settings.max_chunks_per_document:
            gate = GATE_DOCUMENT_CAP
        elif kept_total >= settings.context_chunks:
            gate = GATE_TOTAL_CAP
        else:
            per_document[hit.document_id] = per_document.get(hit.document_id, 0) + 1
            kept_total += 1
        result.append(Candidate(hit, found, gate is None, gate))
    return result


def _numbered(candidates: Sequence[Candidate]) -> tuple[ContextChunk, ...]:
    kept = (c for c in candidates if c.kept)
    return tuple(ContextChunk(c.hit, c.match, n) for n, c in enumerate(kept, start=1))
