"""Fuse the vector and the full-text candidate lists into one ranking (hybrid retrieval).

The default (``convex``), for a question whose vector leg returned cosine similarities
``cos(c)`` and whose full-text leg returned BM25 scores ``bm25(c)`` (each up to
CONTEXT_CANDIDATES chunks, both prefiltered to the permitted areas)::

    found    = share of the question's normalised terms (lexical.py) that occur in any
               full-text candidate, i.e. anywhere in the permitted areas' chunks
    best     = the largest share of them that one of the first FUSION_TOP_DOCUMENTS (1)
               full-text documents holds (its candidate chunks together)
    coverage = (found + best) / 2                           (FUSION_WEIGHT_FROM=both)
    w        = FUSION_LEXICAL_WEIGHT * clip((coverage - FUSION_COVERAGE_FLOOR)
                                            / (FUSION_COVERAGE_FULL - FUSION_COVERAGE_FLOOR), 0, 1)
    chunk(c) = (1 - w) * minmax(cos)(c) + w * minmax(bm25)(c)
    doc(d)   = (1 - w) * minmax(best cos of d's chunks)(d) + w * minmax(best bm25 of d's chunks)(d)
    score(c) = (1 - s) * chunk(c) + s * doc(d)   for the best chunk c of each document d
                                                 (highest chunk(c); s = FUSION_DOCUMENT_SHARE, 0.7)
    score(c) = chunk(c)                          for the document's other chunks

``minmax`` scales a leg's scores to [0, 1] over its own list (chunks, or documents by their
best chunk); a chunk or document missing from a leg scores 0 there. Ties keep the vector
order first. So a question whose words occur in the documents, and in one document
together, leans on BM25 (w = 0.65 at coverage >= 0.6); one whose words barely occur or
are scattered over many documents (a German question over English documents, where only a
name matches) leans on the vector leg, down to the pure vector ranking at coverage <= 0.2.
The document part lets a document's best vector chunk and its best full-text chunk both
count even when they are different chunks, so it decides where the document ranks; only
the document's best chunk carries it, so the document's other chunks do not crowd other
documents out of the context (with every chunk lifted, SciFact's context recall fell from
0.780 to 0.761 at the same nDCG, caps replayed without the gate; lifting the best chunk
alone gives 0.785). ``FUSION_WEIGHT_FROM=all`` (found alone) and ``FUSION_DOCUMENT_SHARE=0``
give the previous default (per chunk). With FUSION_COVERAGE_FULL <= FUSION_COVERAGE_FLOOR
the weight is constant (FUSION_LEXICAL_WEIGHT).

``rrf`` is (weighted) Reciprocal Rank Fusion, ``sum of weight / (FUSION_RRF_K + rank)``
with the same weights ``1 - w`` and ``w``; plain RRF is FUSION_LEXICAL_WEIGHT 0.5 with a
constant weight.

Why: on the shared benchmarks the two legs differ a lot and in opposite directions
(SciFact: BM25 far better; XQuAD de-en: vectors far better). Plain RRF lands between them;
score fusion with the coverage-adaptive weight is at or above the better leg on every set
(README, "Retrieval quality"). The parameters were chosen on SciFact's train split and one
half of each XQuAD set (``bench/fusion_replay.py``, replaying the collected legs) and
reported on the rest.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from irisrag import config as config_module
from irisrag.rag.lexical import term_list

K = TypeVar("K", bound=Hashable)

METHODS = ("convex", "rrf")
WEIGHT_FROM = ("both", "top", "all")


@dataclass(frozen=True)
class FusionSettings:
    """How the two legs are merged (values: the retrieval profile, ``config.PROFILES``)."""

    method: str
    lexical_weight: float     # the full-text leg's weight when the question's terms occur
    coverage_floor: float     # term coverage at or below which the full-text weight is 0
    coverage_full: float      # term coverage at or above which it is ``lexical_weight``
    rrf_k: float
    document_share: float     # share of the document-level fusion in a document's best chunk (0: per chunk)
    weight_from: str          # coverage over "all" full-text candidates, of the "top" documents, or their mean
    top_documents: int        # the best full-text documents whose coverage sets the weight ("top", "both")

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown fusion method {self.method!r}; one of {', '.join(METHODS)}")
        if self.weight_from not in WEIGHT_FROM:
            raise ValueError(f"unknown fusion weight source {self.weight_from!r}; one of {', '.join(WEIGHT_FROM)}")
        if not 0.0 <= self.document_share <= 1.0:
            raise ValueError(f"the document share must be between 0 and 1, got {self.document_share}")
        if not 0.0 <= self.lexical_weight <= 1.0:
            raise ValueError(f"the fusion weight must be between 0 and 1, got {self.lexical_weight}")

    @classmethod
    def of(cls, **changes: Any) -> FusionSettings:
        """The default profile's fusion with these fields changed (tests, benchmarks)."""
        return settings_from_config({}, **changes)


def settings_from_config(config: Mapping[str, Any], **changes: Any) -> FusionSettings:
    """Build fusion settings from an app config mapping; missing keys from the profile in force."""
    values = config_module.defaults(config)
    return FusionSettings(**{
        "method": str(values["FUSION_METHOD"]).strip().lower(),
        "lexical_weight": float(values["FUSION_LEXICAL_WEIGHT"]),
        "coverage_floor": float(values["FUSION_COVERAGE_FLOOR"]),
        "coverage_full": float(values["FUSION_COVERAGE_FULL"]),
        "rrf_k": float(values["FUSION_RRF_K"]),
        "document_share": float(values["FUSION_DOCUMENT_SHARE"]),
        "weight_from": str(values["FUSION_WEIGHT_FROM"]).strip().lower(),
        "top_documents": int(values["FUSION_TOP_DOCUMENTS"]),
        **changes,
    })


def rrf(rankings: Sequence[Sequence[K]], weights: Sequence[float], k: float = 60.0) -> dict[K, float]:
    """Return weighted Reciprocal Rank Fusion scores: sum of weight / (k + rank), ranks from 1."""
    scores: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return scores


def min_max(scores: Mapping[K, float]) -> dict[K, float]:
    """Scale scores to [0, 1] (all equal -> 1)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    span = high - low
    return {key: (value - low) / span if span > 0 else 1.0 for key, value in scores.items()}


def convex(dense: Mapping[K, float], lexical: Mapping[K, float], lexical_weight: float) -> dict[K, float]:
    """Return (1 - w) * minmax(dense) + w * minmax(lexical); a key missing from a leg scores 0 there."""
    a, b = min_max(dense), min_max(lexical)
    return {key: (1 - lexical_weight) * a.get(key, 0.0) + lexical_weight * b.get(key, 0.0)
            for key in dict.fromkeys([*a, *b])}


def term_coverage(question_terms: frozenset[str], texts: Iterable[str]) -> float:
    """Return the share of the question's normalised terms that occur in any of the texts."""
    if not question_terms:
        return 0.0
    missing = set(question_terms)
    for text in texts:
        missing.difference_update(term_list(text))
        if not missing:
            break
    return 1.0 - len(missing) / len(question_terms)


def top_document_coverage(question_terms: frozenset[str], ranked: Iterable[tuple[Hashable, str]], top: int) -> float:
    """Return the best share of the question's terms that one of the first ``top`` full-text documents holds.

    ``ranked`` is the full-text leg as (document, chunk text) in BM25 order; a document's terms
    are those of its chunks in that list. How well the best documents match, not whether the
    words occur anywhere: a German question over English text shares a name or a number with
    some chunk, but no document matches most of its words.
    """
    if not question_terms:
        return 0.0
    found: dict[Hashable, set[str]] = {}
    for document, text in ranked:
        if document not in found and len(found) >= top:
            continue
        found.setdefault(document, set()).update(t for t in term_list(text) if t in question_terms)
    return max((len(words) for words in found.values()), default=0) / len(question_terms)


def question_coverage(question_terms: frozenset[str], ranked: Sequence[tuple[Hashable, str]],
                      settings: FusionSettings) -> float:
    """Return the coverage that sets the full-text weight (FUSION_WEIGHT_FROM).

    ``ranked`` is the full-text leg as (document, chunk text) in BM25 order. ``all``: the share
    of the question's terms found anywhere in it; ``top``: the share the best of the first
    ``top_documents`` documents holds; ``both``: the mean of the two, so that words scattered
    over many documents (a name in a German question over English text) count half.
    """
    found = term_coverage(question_terms, (text for _, text in ranked))
    if settings.weight_from == "all":
        return found
    best = top_document_coverage(question_terms, ranked, settings.top_documents)
    return best if settings.weight_from == "top" else (found + best) / 2


def lexical_weight(settings: FusionSettings, coverage: float) -> float:
    """Return the full-text leg's weight for a question with this term coverage."""
    span = settings.coverage_full - settings.coverage_floor
    if span <= 0:
        return settings.lexical_weight
    return settings.lexical_weight * min(1.0, max(0.0, (coverage - settings.coverage_floor) / span))


def best_per_document(scores: Sequence[tuple[K, float]], document_of: Callable[[K], Hashable]) -> dict[Hashable, float]:
    """Return each document's best score in a (key, score) list."""
    best: dict[Hashable, float] = {}
    for key, value in scores:
        document = document_of(key)
        if document not in best or value > best[document]:
            best[document] = value
    return best


def with_documents(chunk_scores: dict[K, float], dense: Sequence[tuple[K, float]],
                   lexical: Sequence[tuple[K, float]], weight: float, share: float,
                   document_of: Callable[[K], Hashable]) -> dict[K, float]:
    """Lift each document's best chunk by its document's fusion (the best chunk of each leg, fused).

    Only the best chunk (the highest fused chunk score; the first on a tie): a document's
    other chunks keep their own score, so one document's chunks do not crowd the others out
    of the context (MAX_CHUNKS_PER_DOCUMENT, CONTEXT_CHUNKS).
    """
    documents = convex(best_per_document(dense, document_of), best_per_document(lexical, document_of), weight)
    best: dict[Hashable, K] = {}
    for key, value in chunk_scores.items():
        document = document_of(key)
        if document not in best or value > chunk_scores[best[document]]:
            best[document] = key
    lifted = dict(chunk_scores)
    for document, key in best.items():
        lifted[key] = (1 - share) * chunk_scores[key] + share * documents[document]
    return lifted


def fuse(dense: Sequence[tuple[K, float]], lexical: Sequence[tuple[K, float]], weight: float,
         settings: FusionSettings, document_of: Callable[[K], Hashable] | None = None) -> list[K]:
    """Return the keys of both ranked (key, score) lists in fused order, best first.

    With ``document_of`` and a DOCUMENT_SHARE above 0 (convex only), each document's best
    chunk is lifted by its document's score: the document's best vector chunk and best
    full-text chunk both count, even when they are different chunks.
    """
    if settings.method == "rrf":
        scores = rrf([[k for k, _ in dense], [k for k, _ in lexical]], [1.0 - weight, weight], settings.rrf_k)
    else:
        scores = convex(dict(dense), dict(lexical), weight)
        if document_of is not None and settings.document_share > 0:
            scores = with_documents(scores, dense, lexical, weight, settings.document_share, document_of)
    order = {key: i for i, key in enumerate(dict.fromkeys([*(k for k, _ in dense), *(k for k, _ in lexical)]))}
    return sorted(scores, key=lambda key: (-scores[key], order[key]))
