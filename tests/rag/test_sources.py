from __future__ import annotations

import pytest

from irisrag.rag.lexical import LexicalMatch, terms
from irisrag.rag.retrieve import Candidate, ContextChunk, RetrievalSettings, build_context
from irisrag.rag.sources import cited_sources, found_sources, highlight, passage_score
from irisrag.vectors.store import Hit

from .fakes import unit

Q = frozenset({"alpha", "beta", "gamma", "delta"})


def candidate(doc, chunk, lexical, similarity, found=("alpha",), rank=0, gate=None, area=1):
    hit = Hit(doc, area, chunk, None, f"chunk {chunk}", similarity, rank)
    return Candidate(hit, LexicalMatch(frozenset(found), len(found), lexical), gate is None, gate)


def test_sources_multi_area_strong_document_hides_weak_side_hit(store, embedder):
    question = "Wie konfiguriere ich den OpenTelemetry Exporter für Observability?"
    strong = "Der OpenTelemetry Exporter wird für Observability in otel.yaml konfiguriert."
    for i in range(3):
        store.add(1, 1, i, strong, unit(0.7 - i * 0.01))
    # a general policy text in another area that shares one word twice plus another once
    store.add(2, 2, 0, "Richtlinie: Observability ist Aufgabe aller Teams. Wer konfiguriert was?", unit(0.75))
    context = build_context(question, [1, 2], embedder=embedder, store=store, settings=RetrievalSettings.original())
    assert 2 in {c.hit.document_id for c in context.chunks}  # the context is more lenient
    assert [s.document_id for s in context.sources] == [1]
    assert context.sources[0].area_id == 1
    # alone, the side hit clears MIN_SOURCE_SCORE: it is the best-score rule that hides it
    side = [c for c in context.candidates if c.hit.document_id == 2]
    assert [s.document_id for s in found_sources(side, context.terms, RetrievalSettings.original())] == [2]


def test_sources_aggregate_best_three_chunks_per_document():
    scores = [(4.0, 0.6), (6.0, 0.2), (1.0, 1.0), (5.0, 0.5), (0.5, 0.9)]
    cands = [candidate(1, i, s, sim, found=("alpha", "beta"), rank=i) for i, (s, sim) in enumerate(scores)]
    cands[3] = candidate(1, 3, 5.0, 0.5, found=("gamma",), rank=3, gate="document_cap")
    (source,) = found_sources(cands, Q, RetrievalSettings.original())
    passages = sorted((passage_score(s, sim) for s, sim in scores), reverse=True)[:3]
    coverage = 3 / 4  # alpha, beta, gamma of four question terms
    assert source.score == pytest.approx(sum(passages) * (0.5 + 0.5 * coverage))
    assert [p.chunk_index for p in source.passages] == [3, 1, 0]
    assert [p.score for p in source.passages] == pytest.approx(passages)


def test_sources_ignore_lexically_dropped_candidates():
    cands = [candidate(1, 0, 9.0, 0.9, gate="lexical"), candidate(2, 0, 4.0, 0.5, rank=1)]
    assert [s.document_id for s in found_sources(cands, Q, RetrievalSettings.original())] == [2]


def test_sources_min_source_score_drops_weak_documents():
    weak = candidate(1, 0, 1.0, 0.2)  # 1.0 * 0.6 * (0.5 + 0.5/4) = 0.375
    assert found_sources([weak], Q, RetrievalSettings.original()) == ()
    assert len(found_sources([weak], Q, RetrievalSettings.original(min_source_score=0.3))) == 1


def test_sources_keep_only_best_score_documents_sorted():
    cands = [
        candidate(1, 0, 4.0, 1.0, found=Q, rank=2),       # 4.0
        candidate(2, 0, 3.0, 1.0, found=Q, rank=0),       # 3.0
        candidate(3, 0, 3.0, 0.0, found=Q, rank=1),       # 1.5 < 0.5 * 4.0
    ]
    assert [s.document_id for s in found_sources(cands, Q, RetrievalSettings.original())] == [1, 2]
    ratio_one = RetrievalSettings.original(source_score_ratio=1.0)
    assert [s.document_id for s in found_sources(cands, Q, ratio_one)] == [1]


def test_sources_highlight_flags_matching_words():
    text = "Die Häuser wurden 2024 entwickelt, nicht das Auto."
    segments = highlight(text, terms("Haus entwickelte 2024"))
    assert "".join(s for s, _ in segments) == text
    assert [s for s, flagged in segments if flagged] == ["Häuser", "2024", "entwickelt"]
    assert highlight(text, frozenset()) == [(text, False)]
    assert highlight("", terms("Haus")) == []


def test_a_cited_document_the_found_sources_lack_is_added_from_its_context_chunks():
    strong = [candidate(1, i, 6.0, 0.8, found=("alpha", "beta", "gamma"), rank=i) for i in range(2)]
    weak = candidate(2, 0, 1.2, 0.3, found=("alpha",), rank=5)
    found = found_sources([*strong, weak], Q, RetrievalSettings.original())
    assert [s.document_id for s in found] == [1]  # below half the best: not a found source
    chunks = [ContextChunk(c.hit, c.match, n) for n, c in enumerate([*strong, weak], start=1)]
    listed = cited_sources(found, chunks, {1, 2}, Q, 3)
    assert [s.document_id for s in listed] == [1, 2] and listed[1].passages[0].chunk_index == 0
    assert cited_sources(found, chunks, {1}, Q, 3) == found  # nothing cited beyond them: unchanged
