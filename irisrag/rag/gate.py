"""The context gate: which ranked candidate chunks may reach the answer's context.

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

Why ``evidence`` (README, "What reaches the user"): the lexical rule alone lets an off-topic
English question through whenever two of its words occur in some chunk, and drops a German
question's English paragraph for want of shared words; a cosine threshold cannot tell a
cross-lingual match (low cosine, no shared words) from an off-topic question (low cosine,
words the collection knows in unrelated places). The missing share is what tells them apart.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irisrag.rag.lexical import LexicalMatch
    from irisrag.vectorstore import Hit

GATE_RULES = ("evidence", "ranked", "lexical")
# Rule evidence's threshold and weights, chosen per built-in embedder with bench/evidence_replay.py
# (README: the gate per embedder): e5's cosines sit on another scale than USE's (related and
# unrelated passages alike score about 0.82), so USE's 0.43 let every off-topic question through.
# Any other embedder (Ollama, OpenAI) gets USE's unless the operator sets them.
# e5 gets no allowance or bonus for translated questions: they were measured for USE only.
CALIBRATED = {"e5": {"GATE_MIN_EVIDENCE": 0.92, "GATE_COVERAGE_WEIGHT": 0.5, "GATE_MISSING_WEIGHT": 0.15,
                     "GATE_TRANSLATED_ALLOWANCE": 0.0, "GATE_AGREEMENT_BONUS": 0.0}}


@dataclass(frozen=True)
class GateSettings:
    """Which chunks the gate lets into the context (the dataclass defaults are the app's)."""

    rule: str = "evidence"          # "ranked", "lexical": see the module docstring
    top_documents: int = 8          # the ranking's first documents that may pass on the ranking's evidence
    min_similarity: float = 0.35    # rule "ranked": the cosine a top document's chunk needs (USE)
    min_evidence: float = 0.45      # rule "evidence": the evidence the question's best document needs (USE)
    translated_allowance: float = 0.01   # ... less that for a question the word list translated (another language's)
    agreement_bonus: float = 0.12   # ... and added to the evidence of its document both legs rank first
    coverage_weight: float = 0.85   # ... the weight of the share of the question's term weight a document covers
    missing_weight: float = 0.3     # ... and of the share the candidates hold elsewhere (words in the wrong places)

    def __post_init__(self) -> None:
        if self.rule not in GATE_RULES:
            raise ValueError(f"unknown gate rule {self.rule!r}; one of {', '.join(GATE_RULES)}")

    def threshold(self, translated: bool = False) -> float:
        """The evidence a document needs: GATE_MIN_EVIDENCE, less GATE_TRANSLATED_ALLOWANCE for a translated question."""
        return self.min_evidence - self.translated_allowance if translated else self.min_evidence

    @classmethod
    def from_config(cls, config: Mapping[str, Any], default: GateSettings | None = None) -> GateSettings:
        """Build gate settings from an app config mapping, ``default``'s values for missing keys.

        The evidence rule's threshold and weights the operator did not set (``EXPLICIT_SETTINGS``
        of ``config.load``) are the ones calibrated for the configured EMBEDDER (``CALIBRATED``).
        """
        default = default or cls()
        config = calibrated(config)
        return cls(rule=str(config.get("GATE_RULE", default.rule)).strip().lower(),
                   top_documents=int(config.get("GATE_TOP_DOCUMENTS", default.top_documents)),
                   min_similarity=float(config.get("GATE_MIN_SIMILARITY", default.min_similarity)),
                   min_evidence=float(config.get("GATE_MIN_EVIDENCE", default.min_evidence)),
                   translated_allowance=float(config.get("GATE_TRANSLATED_ALLOWANCE", default.translated_allowance)),
                   agreement_bonus=float(config.get("GATE_AGREEMENT_BONUS", default.agreement_bonus)),
                   coverage_weight=float(config.get("GATE_COVERAGE_WEIGHT", default.coverage_weight)),
                   missing_weight=float(config.get("GATE_MISSING_WEIGHT", default.missing_weight)))


def calibrated(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return ``config`` with the evidence rule's values calibrated for its EMBEDDER where not set explicitly.

    A mapping without ``EXPLICIT_SETTINGS`` (not from ``config.load``) counts every key it has as set.
    """
    tuned = CALIBRATED.get(str(config.get("EMBEDDER", "")).strip().lower(), {})
    explicit = config.get("EXPLICIT_SETTINGS", config)
    return {**config, **{key: value for key, value in tuned.items() if key not in explicit}}


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


def on_topic(evidence: Mapping[int, float], gate: GateSettings, translated: bool = False) -> bool:
    """Tell whether one of the first documents reaches the threshold (``GateSettings.threshold``)."""
    return any(e >= gate.threshold(translated) for e in evidence.values())
