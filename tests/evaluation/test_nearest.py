"""The closest documents of an empty context: which they are, and what the eval counts of them."""
from __future__ import annotations

import pytest

from irisrag.evaluation import outcome
from irisrag.rag.lexical import LexicalMatch
from irisrag.rag.retrieve import Candidate, Context
from irisrag.rag.sources import nearest_documents
from irisrag.vectors.store import Hit

NONE = LexicalMatch(frozenset(), 0, 0.0)


def _candidate(document: int, rank: int, gate: str | None = "evidence") -> Candidate:
    return Candidate(Hit(document, 1, rank, None, f"text {document}", 0.3, rank), NONE, gate is None, gate)


def test_nearest_documents_are_the_rankings_first_distinct_documents():
    candidates = [_candidate(7, 2), _candidate(5, 0), _candidate(7, 1), _candidate(9, 3), _candidate(4, 4)]
    nearest = nearest_documents(candidates, 3)
    assert [h.document_id for h in nearest] == [5, 7, 9] and [h.rank for h in nearest] == [0, 1, 3]
    assert nearest_documents(candidates, 0) == () and nearest_documents([], 3) == ()


def test_nearest_recall_counts_the_context_and_the_closest_documents():
    corpus = ["A", "B", "C", "D"]
    candidates = tuple(_candidate(d, r) for r, d in enumerate((2, 1, 3)))
    empty = Context("q", (1,), (), candidates, (), {}, nearest=tuple(c.hit for c in candidates[:2]))
    scores = outcome.scores(empty, corpus, {"B": 1, "D": 1})
    assert (scores["context_recall"], scores["nearest_recall"], scores["empty_context_rate"]) == (0.0, 0.5, 1.0)
    assert outcome.trace(empty, corpus, {"B": 1}, None)["nearest"] == ["C", "B"]
    none_listed = Context("q", (1,), (), candidates, (), {})
    assert outcome.scores(none_listed, corpus, {"B": 1})["nearest_recall"] == pytest.approx(0.0)
