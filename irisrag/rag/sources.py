"""Found sources ("Fundstellen"): documents shown under an answer, filtered more strictly than the context.

The rule (the README copies this):

1. Look at every candidate that passed the gate (GATE_RULE), whether or not it made it
   into the context (the per-document and total caps do not matter here).
2. Passage score of a chunk::

       passage = lexical score * (0.5 + 0.5 * max(0, cosine similarity))

   The lexical score carries the weight; vector similarity scales it between half and
   full, so of two equally matching chunks the semantically closer one wins.
3. Per document, take its FOUND_SOURCES_CHUNKS (3) best passages (ties: better vector
   rank first) and the share of the question's terms the document's matching chunks
   cover::

       coverage = |question terms found in any matching chunk of the document|
                  / |question terms|
       source score = (sum of the best passages' scores) * (0.5 + 0.5 * coverage)

4. Drop documents whose source score is below MIN_SOURCE_SCORE (1).
5. Best-score documents only: keep a document only if its source score is at least
   SOURCE_SCORE_RATIO (0.5) times the best document's source score. A weak side hit (a
   general policy text sharing one word with the question) vanishes next to a document
   that really answers it, even when several areas are searched.
6. Sort by source score, highest first (ties: better vector rank first).

When nothing reaches the context, ``nearest_documents`` names the ranking's first
NEAREST_DOCUMENTS documents instead: shown as the closest documents, which may not answer
the question (a match the gate was unsure of, a German question over English text, stays
one click away; the answer is still "no information").
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from irisrag.rag.lexical import normal_form, tokens

if TYPE_CHECKING:
    from irisrag.rag.gate import Candidate
    from irisrag.rag.retrieve import ContextChunk
    from irisrag.vectors.store import Hit

GATE_DROPPED = ("lexical", "evidence")   # the gate's verdicts (gate.py); the caps' do not count here


class SourceSettings(Protocol):
    found_sources_chunks: int
    min_source_score: float
    source_score_ratio: float


@dataclass(frozen=True)
class Passage:
    """One matching chunk of a found source."""

    chunk_index: int
    page: int | None
    text: str
    terms: frozenset[str]
    score: float


@dataclass(frozen=True)
class Source:
    """A document shown as a found source, with its best passages (best first)."""

    document_id: int
    area_id: int
    score: float
    passages: tuple[Passage, ...]


def passage_score(lexical_score: float, similarity: float) -> float:
    """Return a chunk's passage score from its lexical score and cosine similarity."""
    return lexical_score * (0.5 + 0.5 * max(0.0, similarity))


def _passage(candidate: Candidate, question_terms: frozenset[str]) -> Passage:
    hit, found = candidate.hit, candidate.match
    return Passage(hit.chunk_index, hit.page, hit.text, found.terms & question_terms,
                   passage_score(found.score, hit.score))


def _source(group: Sequence[Candidate] | Sequence[ContextChunk], question_terms: frozenset[str], best_n: int) -> Source:
    ranked = sorted(group, key=lambda c: (-passage_score(c.match.score, c.hit.score), c.hit.rank))
    passages = tuple(_passage(c, question_terms) for c in ranked[: max(best_n, 1)])
    covered = frozenset().union(*(c.match.terms for c in group)) & question_terms
    coverage = len(covered) / len(question_terms) if question_terms else 1.0
    total = sum(p.score for p in passages) * (0.5 + 0.5 * coverage)
    first = ranked[0].hit
    return Source(first.document_id, first.area_id, total, passages)


def found_sources(
    candidates: Iterable[Candidate], question_terms: frozenset[str], settings: SourceSettings
) -> tuple[Source, ...]:
    """Return the documents to show as found sources, best first (see the module docstring)."""
    groups: dict[int, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        if candidate.gate not in GATE_DROPPED:
            groups[candidate.hit.document_id].append(candidate)
    best_rank = {doc: min(c.hit.rank for c in group) for doc, group in groups.items()}
    sources = [_source(group, question_terms, settings.found_sources_chunks) for group in groups.values()]
    sources = [s for s in sources if s.score >= settings.min_source_score]
    if not sources:
        return ()
    threshold = settings.source_score_ratio * max(s.score for s in sources)
    kept = [s for s in sources if s.score >= threshold]
    return tuple(sorted(kept, key=lambda s: (-s.score, best_rank[s.document_id])))


def cited_sources(sources: Sequence[Source], chunks: Iterable[ContextChunk], cited: Iterable[int],
                  question_terms: frozenset[str], best_n: int) -> tuple[Source, ...]:
    """Return the found sources and, after them, each cited document they lack, from its context chunks.

    The rule above may drop a document whose passage the answer cites (a record that matched
    one word of the question, a second document scoring below half the best): "Sources" must
    still list every document the answer cites (issue 37 item 8), scored by the same rule.
    """
    found = {s.document_id for s in sources}
    groups: dict[int, list[ContextChunk]] = defaultdict(list)
    for chunk in chunks:
        if chunk.hit.document_id in set(cited) - found:
            groups[chunk.hit.document_id].append(chunk)
    return (*sources, *(_source(group, question_terms, best_n) for group in groups.values()))


def highlight(text: str, terms: Iterable[str]) -> list[tuple[str, bool]]:
    """Split text into (segment, is_match) pairs, flagging words whose normal form is in terms."""
    wanted = frozenset(terms)
    matches = [m for m in tokens(text) if normal_form(m.group()) in wanted] if wanted else []
    segments: list[tuple[str, bool]] = []
    position = 0
    for m in matches:
        start, end = m.span()
        if start > position:
            segments.append((text[position:start], False))
        segments.append((text[start:end], True))
        position = end
    if position < len(text):
        segments.append((text[position:], False))
    return segments


def nearest_documents(candidates: Iterable[Candidate], count: int) -> tuple[Hit, ...]:
    """Return the best-ranked chunk of each of the ranking's first ``count`` documents."""
    first: dict[int, Hit] = {}
    for candidate in sorted(candidates, key=lambda c: c.hit.rank):
        first.setdefault(candidate.hit.document_id, candidate.hit)
    return tuple(first.values())[: max(count, 0)]
