"""The context gate: which ranked candidate chunks may reach the answer's context, then the caps (``capped``).

Rules (GATE_RULE):

``lexical``   the original's: a chunk passes when it shares ``min(MIN_MATCH_TERMS, question
              terms)`` normalised terms with the question or its lexical score is at least
              MIN_MATCH_SCORE (``lexical.py``).
``ranked``    the lexical rule, or a chunk of one of the first GATE_TOP_DOCUMENTS documents of
              the ranking with a cosine similarity of at least GATE_MIN_SIMILARITY.
``evidence``  (the default) first the question: is anything among the candidates about it?
              Each of the first GATE_TOP_DOCUMENTS documents gets an evidence score::

                  evidence = cosine + GATE_COVERAGE_WEIGHT * coverage - GATE_MISSING_WEIGHT * missing

              ``cosine``    the best cosine similarity of the document's candidate chunks;
              ``coverage``  the share of the question's term weight its candidate chunks contain;
              ``missing``   the share the candidates contain somewhere but this document lacks;
              a term's weight is its IDF over the candidates, ``ln((N + 1) / (df + 0.5))``
              (N candidates, df of them contain the term), so a rare word (a name, a number,
              a technical term) counts and a common one hardly does. A term no candidate
              contains (another language's word, a word the collection lacks) counts in the
              total but is neither covered nor missing: it neither helps nor hurts.
              If no document reaches GATE_MIN_EVIDENCE, the question is off-topic and nothing
              passes (gate ``evidence``: the user reads "no information"). Otherwise the
              chunks of each document that reaches GATE_MIN_EVIDENCE pass, and any other
              chunk that passes the lexical rule.
              A question the term bridge's word list translated (one of its words is another
              language's word for a word of the first candidates: ``bridge.Bridge.crosses``)
              needs GATE_TRANSLATED_ALLOWANCE less evidence: the embedder's cosine across
              languages is lower than within one (a German question's English paragraph:
              median 0.37 against 0.43 for the same question in English), so one threshold
              was either too strict for cross-lingual questions or too lax for off-topic ones
              in the documents' language (README: what reaches the user). Such a question's
              document that both legs rank first (the full text searched with the list's words:
              ``bridge.Bridge.agreed``) gets GATE_AGREEMENT_BONUS added to its evidence: two
              independent searches agreeing is evidence the cosine alone cannot give.
              A question whose nouns no candidate holds (``nouns.py``: capitalised words of the
              word list that the candidates of both legs lack, even as a compound's head noun,
              and that the bridge did not map: "Vollmond", "Mallorca") needs UNKNOWN_NOUN_MARGIN
              times their share of its nouns more evidence before it counts as on-topic: its
              topic is not in the documents however well its other words ("erste", "Mensch",
              "kostet") match. Off-topic questions with such a noun reached 0.47-0.58, as high
              as answerable ones (from 0.51 on real-de), so no threshold alone separated them;
              with the margin real-de refused 32 of 32 (29 before) and no answerable question
              more; the XQuAD and SciFact counts are in docs/evaluation.md (off-topic questions).
              The documents' passing threshold is unchanged.

Why ``evidence`` (README, "What reaches the user"): the lexical rule alone lets an off-topic
English question through whenever two of its words occur in some chunk, and drops a German
question's English paragraph for want of shared words; a cosine threshold cannot tell a
cross-lingual match (low cosine, no shared words) from an off-topic question (low cosine,
words the collection knows in unrelated places). The missing share is what tells them apart.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from irisrag import config as config_module

if TYPE_CHECKING:
    from irisrag.rag.lexical import LexicalMatch
    from irisrag.vectors.store import Hit

GATE_RULES = ("evidence", "ranked", "lexical")
# A candidate's verdict (``Candidate.gate``): dropped by the lexical rule, by the evidence rule
# (no chunk of the first documents has enough evidence: off-topic), or by a cap; None if kept.
GATE_LEXICAL = "lexical"
GATE_EVIDENCE = "evidence"
GATE_DOCUMENT_CAP = "document_cap"
GATE_TOTAL_CAP = "total_cap"
# Rule evidence: the more evidence a question needs whose nouns no candidate holds, times their share of its
# nouns (``nouns.py``). Measured on eval/real-de and XQuAD (docs/evaluation.md: off-topic questions).
UNKNOWN_NOUN_MARGIN = 0.25
# How many of a full document's passing chunks after its cap may take its last slot for a question term
# its kept chunks lack (``capped``).
COVERING_WINDOW = 4


@dataclass(frozen=True)
class GateSettings:
    """Which chunks the gate lets into the context (values: the retrieval profile, ``config.PROFILES``)."""

    rule: str                   # "evidence", "ranked", "lexical": see the module docstring
    top_documents: int          # the ranking's first documents that may pass on the ranking's evidence
    min_similarity: float       # rule "ranked": the cosine a top document's chunk needs
    min_evidence: float         # rule "evidence": the evidence the question's best document needs
    translated_allowance: float   # ... less that for a question the word list translated (another language's)
    agreement_bonus: float      # ... and added to the evidence of its document both legs rank first
    coverage_weight: float      # ... the weight of the share of the question's term weight a document covers
    missing_weight: float       # ... and of the share the candidates hold elsewhere (words in the wrong places)

    def __post_init__(self) -> None:
        if self.rule not in GATE_RULES:
            raise ValueError(f"unknown gate rule {self.rule!r}; one of {', '.join(GATE_RULES)}")

    def threshold(self, translated: bool = False) -> float:
        """The evidence a document needs: GATE_MIN_EVIDENCE, less GATE_TRANSLATED_ALLOWANCE for a translated question."""
        return self.min_evidence - self.translated_allowance if translated else self.min_evidence

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> GateSettings:
        """Build gate settings from an app config mapping; missing keys from the profile in force."""
        values = config_module.defaults(config)
        return cls(rule=str(values["GATE_RULE"]).strip().lower(),
                   top_documents=int(values["GATE_TOP_DOCUMENTS"]),
                   min_similarity=float(values["GATE_MIN_SIMILARITY"]),
                   min_evidence=float(values["GATE_MIN_EVIDENCE"]),
                   translated_allowance=float(values["GATE_TRANSLATED_ALLOWANCE"]),
                   agreement_bonus=float(values["GATE_AGREEMENT_BONUS"]),
                   coverage_weight=float(values["GATE_COVERAGE_WEIGHT"]),
                   missing_weight=float(values["GATE_MISSING_WEIGHT"]))

    @classmethod
    def of(cls, **changes: Any) -> GateSettings:
        """The default profile's gate with these fields changed (tests, benchmarks)."""
        return replace(cls.from_config({}), **changes)


def term_weights(question_terms: frozenset[str], matches: Sequence[LexicalMatch]) -> tuple[dict[str, float], set[str]]:
    """Return each question term's IDF over the candidates, ``ln((N + 1) / (df + 0.5))``, and the terms found."""
    frequency = dict.fromkeys(question_terms, 0)
    for found in matches:
        for term in found.terms:
            frequency[term] = frequency.get(term, 0) + 1
    weights = {term: math.log((len(matches) + 1) / (df + 0.5)) for term, df in frequency.items()}
    return weights, {term for term, df in frequency.items() if df}


def document_evidence(hits: Sequence[Hit], matches: Sequence[LexicalMatch], document_ranks: Sequence[int],
                      question_terms: frozenset[str], gate: GateSettings,
                      credit: Mapping[str, float] | None = None,
                      cosines: Mapping[int, float] | None = None) -> dict[int, float]:
    """Return the evidence of each of the first GATE_TOP_DOCUMENTS documents (see the module docstring).

    A document's cosine is its best candidate chunk's; its coverage counts the question terms
    found in any of its candidate chunks. ``credit`` names terms that count for only a share
    of their weight when found (covered or missing), while the total counts them whole: the
    term bridge's words (``bridge.py``, BRIDGE_EVIDENCE), which are in the first candidates by
    construction. ``cosines`` are other cosines per document (the question asked in the
    documents' words, ``bridge.Bridge.translated``): a document's cosine is the better one.
    """
    weights, found_somewhere = term_weights(question_terms, matches)
    total = sum(weights.values()) or 1.0
    if credit:
        weights = {t: w * credit.get(t, 1.0) for t, w in weights.items()}
    known = sum(weights[t] for t in found_somewhere) / total
    cosine: dict[int, float] = {}
    covered: dict[int, set[str]] = {}
    for hit, found, rank in zip(hits, matches, document_ranks, strict=True):
        if rank < gate.top_documents:
            cosine[hit.document_id] = max(cosine.get(hit.document_id, -1.0), hit.score)
            covered.setdefault(hit.document_id, set()).update(found.terms)
    for document, similarity in (cosines or {}).items():
        if document in cosine:
            cosine[document] = max(cosine[document], similarity)
    result = {}
    for document, similarity in cosine.items():
        coverage = sum(weights.get(t, 0.0) for t in covered[document]) / total
        result[document] = similarity + gate.coverage_weight * coverage - gate.missing_weight * (known - coverage)
    return result


def on_topic(evidence: Mapping[int, float], gate: GateSettings, translated: bool = False,
             unknown_nouns: float = 0.0) -> bool:
    """Tell whether one of the first documents reaches the threshold (``GateSettings.threshold``), raised by
    UNKNOWN_NOUN_MARGIN times the share of the question's nouns no candidate holds (``nouns.unknown_share``)."""
    needed = needed_evidence(gate, translated, unknown_nouns)
    return any(e >= needed for e in evidence.values())


def needed_evidence(gate: GateSettings, translated: bool = False, unknown_nouns: float = 0.0) -> float:
    """The evidence a document needs for the question to be on topic (``on_topic``)."""
    return gate.threshold(translated) + UNKNOWN_NOUN_MARGIN * unknown_nouns


@dataclass(frozen=True)
class Candidate:
    """A ranked candidate chunk, whether it was kept, and the gate that dropped it."""

    hit: Hit
    match: LexicalMatch
    kept: bool
    gate: str | None
    evidence: float | None = None   # rule evidence: its document's evidence (first GATE_TOP_DOCUMENTS documents)


class Limits(Protocol):
    """What the gate and the caps read of the retrieval settings (``retrieve.RetrievalSettings``)."""

    min_match_terms: int
    min_match_score: float
    context_chunks: int
    max_chunks_per_document: int
    context_spread: bool
    gate: GateSettings


def passes_lexical(found: LexicalMatch, question_terms: frozenset[str], settings: Limits) -> bool:
    """Tell whether a chunk's lexical match is enough for the context."""
    needed = max(1, min(settings.min_match_terms, len(question_terms)))
    return found.count >= needed or found.score >= settings.min_match_score


def passes_ranking(hit: Hit, document_rank: int, gate: GateSettings) -> bool:
    """Tell whether the ranking is sure of a chunk: a top document's chunk, similar enough (rule ``ranked``)."""
    return gate.rule == "ranked" and document_rank < gate.top_documents and hit.score >= gate.min_similarity


def gate_candidates(hits: Sequence[Hit], matches: Sequence[LexicalMatch], question_terms: frozenset[str],
                    settings: Limits, credit: Mapping[str, float] | None = None,
                    cosines: Mapping[int, float] | None = None, translated: bool = False,
                    agreed: int | None = None, unknown_nouns: float = 0.0,
                    named: frozenset[int] = frozenset()) -> list[Candidate]:
    """Apply the gate (GATE_RULE) and the caps to ranked candidates, in rank order.

    ``credit``: the share of a term's weight the rule ``evidence`` credits when a document
    holds it (1 for a term not named: bridged words get BRIDGE_EVIDENCE, ``bridge.py``);
    ``cosines``: each document's cosine to the question in the documents' words (BRIDGE_VECTOR_SEARCH);
    ``translated``: the word list translated the question (GATE_TRANSLATED_ALLOWANCE);
    ``agreed``: the document both legs rank first for such a question (GATE_AGREEMENT_BONUS);
    ``unknown_nouns``: the share of the question's nouns no candidate holds (UNKNOWN_NOUN_MARGIN);
    ``named``: documents with a record the question names by field and value (``named_records.py``):
    they pass as if their evidence reached the bar.
    """
    pairs = sorted(zip(hits, matches, strict=True), key=lambda pair: pair[0].rank)
    document_rank: dict[int, int] = {}
    ranks = [document_rank.setdefault(hit.document_id, len(document_rank)) for hit, _ in pairs]
    passing = _passing(pairs, ranks, question_terms, settings, credit, cosines, translated, agreed, unknown_nouns,
                       named)
    verdicts = capped([hit.document_id for hit, _ in pairs], [gate for gate, _ in passing], settings,
                      [found.terms for _, found in pairs])
    return [Candidate(hit, found, gate is None, gate, evidence)
            for (hit, found), gate, (_, evidence) in zip(pairs, verdicts, passing, strict=True)]


def capped(documents: Sequence[int], verdicts: Sequence[str | None], settings: Limits,
           terms: Sequence[frozenset[str]] | None = None) -> list[str | None]:
    """Apply CONTEXT_CHUNKS and MAX_CHUNKS_PER_DOCUMENT to the passing candidates (rank order).

    With CONTEXT_SPREAD each passing document's first chunk is taken before any document's
    second: nine chunks of three documents left a relevant fifth document out (SciFact, where
    a claim has several relevant abstracts; README: what reaches the user).
    With ``terms`` (each candidate's question terms), a document whose cap is full swaps its
    last kept chunk for a later one of its passing chunks (``_covering``) that holds a question
    term none of its kept chunks holds: a manual's chunks that all say "Pakete installieren"
    outrank the one option that names the question's own word ("empfohlene Pakete").
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
    if terms is not None:
        _covering(documents, verdicts, kept, terms, most)
    return [verdict if verdict is not None or kept[n]
            else GATE_DOCUMENT_CAP if per_document[documents[n]] >= most else GATE_TOTAL_CAP
            for n, verdict in enumerate(verdicts)]


def _covering(documents: Sequence[int], verdicts: Sequence[str | None], kept: list[bool],
              terms: Sequence[frozenset[str]], most: int) -> None:
    """Give each full document's last slot, when it adds no question term, to its first passing chunk of its next
    COVERING_WINDOW that adds one."""
    chunks: dict[int, list[int]] = {}
    for n, document in enumerate(documents):
        if verdicts[n] is None:
            chunks.setdefault(document, []).append(n)
    for ns in chunks.values():
        taken = [n for n in ns if kept[n]]
        held = frozenset().union(*(terms[n] for n in taken[:-1]))
        if len(taken) < most or not terms[taken[-1]] <= held:
            continue
        later = [n for n in ns[:most + COVERING_WINDOW] if not kept[n] and terms[n] - held]
        if later:
            kept[taken[-1]], kept[later[0]] = False, True


def _passing(pairs: Sequence[tuple[Hit, LexicalMatch]], ranks: Sequence[int], question_terms: frozenset[str],
             settings: Limits, credit: Mapping[str, float] | None = None,
             cosines: Mapping[int, float] | None = None, translated: bool = False,
             agreed: int | None = None, unknown_nouns: float = 0.0,
             named: frozenset[int] = frozenset()) -> list[tuple[str | None, float | None]]:
    """Return each candidate's gate verdict before the caps (None: passes) and its evidence score."""
    gate = settings.gate
    if gate.rule != "evidence":
        return [(None if passes_lexical(found, question_terms, settings) or passes_ranking(hit, rank, gate)
                 else GATE_LEXICAL, None) for (hit, found), rank in zip(pairs, ranks, strict=True)]
    evidence = document_evidence([h for h, _ in pairs], [m for _, m in pairs], ranks, question_terms, gate, credit,
                                 cosines)
    if agreed in evidence:
        evidence[agreed] += gate.agreement_bonus
    for document in named:
        evidence[document] = max(evidence.get(document, -1.0), needed_evidence(gate, translated, unknown_nouns))
    scores = [evidence.get(hit.document_id) for hit, _ in pairs]
    if not on_topic(evidence, gate, translated, unknown_nouns):
        return [(GATE_EVIDENCE, e) for e in scores]
    return [(None if (e is not None and e >= gate.threshold(translated)) or passes_lexical(found, question_terms, settings)
             else GATE_LEXICAL, e) for (_, found), e in zip(pairs, scores, strict=True)]
