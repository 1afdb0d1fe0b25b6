from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from irisrag.config import DEFAULTS
from irisrag.rag.lexical import terms
from irisrag.rag.retrieve import TIMING_KEYS, RetrievalSettings, build_context, capped

from .fakes import FakeStore, HashEmbedder, unit

QUESTION = "Wie wird OpenTelemetry für Observability konfiguriert?"
RELEVANT = "OpenTelemetry Observability wird über die Datei otel.yaml konfiguriert."
NOISE = "Navigation Startseite Impressum Kontakt Banner"


def add_noise(store: FakeStore, count: int, *, similarity: float = 0.9, document_id: int = 100) -> None:
    for i in range(count):
        store.add(document_id, 1, i, NOISE, unit(similarity - i * 0.001, axis=2 + i % 10))


def ask(store, embedder, settings=None, areas=(1,), question=QUESTION, **kwargs):
    return build_context(question, areas, embedder=embedder, store=store,
                         settings=settings or RetrievalSettings.original(), **kwargs)


def test_retrieve_settings_from_config():
    settings = RetrievalSettings.from_config({
        "CONTEXT_CANDIDATES": "36", "CONTEXT_CHUNKS": 5, "MAX_CHUNKS_PER_DOCUMENT": 2,
        "MIN_MATCH_TERMS": 3, "MIN_MATCH_SCORE": 7, "MIN_SOURCE_SCORE": 2,
        "FOUND_SOURCES_CHUNKS": 1, "SOURCE_SCORE_RATIO": 0.25,
    })
    assert settings == replace(RetrievalSettings.from_config({}), candidates=36, context_chunks=5, max_chunks_per_document=2,
                               min_match_terms=3, min_match_score=7.0, min_source_score=2.0, found_sources_chunks=1,
                               source_score_ratio=0.25)
    assert RetrievalSettings.from_config({}) == RetrievalSettings.from_config(DEFAULTS)   # one default: the app's
    original = RetrievalSettings.original()
    assert (original.mode, original.gate.rule, original.bridge.enabled, original.nearest_documents,
            original.context_spread) == ("vector", "lexical", False, 0, False)


@pytest.mark.parametrize(("candidates", "seen"), [(5, False), (6, True)])
def test_retrieve_candidate_window(store, embedder, candidates, seen):
    add_noise(store, 5)
    store.add(1, 1, 189, RELEVANT, unit(0.5))  # ranked 6th (rank 5)
    context = ask(store, embedder, RetrievalSettings.original(candidates=candidates))
    assert len(context.candidates) == min(candidates, 6)
    assert [c.hit.chunk_index for c in context.chunks] == ([189] if seen else [])
    assert all(c.gate == "lexical" for c in context.candidates if c.hit.document_id == 100)


def test_retrieve_lexical_threshold_by_terms_and_score(store, embedder):
    store.add(1, 1, 0, "OpenTelemetry und Observability.", unit(0.9))          # 2 terms
    store.add(2, 1, 0, "Observability ist wichtig.", unit(0.85))               # 1 term, 1.5
    store.add(3, 1, 0, "OpenTelemetry " * 4, unit(0.8))                        # 1 term, 6.0
    store.add(4, 1, 0, "OpenTelemetry " * 3, unit(0.75))                       # 1 term, 4.5
    context = ask(store, embedder)
    gates = {c.hit.document_id: c.gate for c in context.candidates}
    assert gates == {1: None, 2: "lexical", 3: None, 4: "lexical"}
    assert context.terms == terms(QUESTION)


def test_retrieve_single_term_question_needs_one_match(store, embedder):
    store.add(1, 1, 0, "OpenTelemetry ist ein Standard.", unit(0.9))
    context = ask(store, embedder, question="OpenTelemetry?")
    assert [c.hit.document_id for c in context.chunks] == [1]


def test_retrieve_caps_chunks_per_document(store, embedder):
    for i in range(6):
        store.add(1, 1, i, RELEVANT, unit(0.9 - i * 0.01))
    store.add(2, 1, 0, RELEVANT, unit(0.5))
    context = ask(store, embedder)
    assert [(c.hit.document_id, c.hit.chunk_index) for c in context.chunks] == [
        (1, 0), (1, 1), (1, 2), (1, 3), (2, 0)]
    assert [c.gate for c in context.candidates] == [None] * 4 + ["document_cap"] * 2 + [None]


def test_retrieve_caps_chunks_in_total(store, embedder):
    for doc in range(12):
        store.add(doc, 1, 0, RELEVANT, unit(0.9 - doc * 0.01))
    context = ask(store, embedder)
    assert len(context.chunks) == 9
    assert [c.gate for c in context.candidates][9:] == ["total_cap"] * 3


def test_retrieve_keeps_vector_rank_order_and_numbers_from_one(store, embedder):
    similarities = [0.3, 0.8, 0.5, 0.9, 0.6]
    for doc, similarity in enumerate(similarities):
        store.add(doc, 1, 0, RELEVANT, unit(similarity))
    context = ask(store, embedder)
    assert [c.hit.document_id for c in context.chunks] == [3, 1, 4, 2, 0]
    assert [c.position for c in context.chunks] == [1, 2, 3, 4, 5]
    assert [c.hit.rank for c in context.chunks] == [0, 1, 2, 3, 4]


def test_retrieve_without_areas_calls_nothing(store, embedder):
    store.add(1, 1, 0, RELEVANT, unit(0.9))
    context = ask(store, embedder, areas=())
    assert (context.chunks, context.candidates, context.sources) == ((), (), ())
    assert embedder.calls == [] and store.calls == []
    assert set(context.timings) == set(TIMING_KEYS)


def test_retrieve_honours_area_prefilter(store, embedder):
    for i in range(20):
        store.add(50 + i, 2, 0, RELEVANT, unit(0.99))  # better, but in a forbidden area
    store.add(1, 1, 0, RELEVANT, unit(0.4))
    store.add(2, 3, 0, RELEVANT, unit(0.3))
    context = ask(store, embedder, RetrievalSettings.original(candidates=5), areas=[1, 3])
    assert {c.hit.area_id for c in context.candidates} == {1, 3}
    assert [c.hit.document_id for c in context.chunks] == [1, 2]
    assert store.calls[0][1:] == ((1, 3), 5)
    assert context.area_ids == (1, 3)


def test_retrieve_query_vector_skips_embedder(store, embedder):
    store.add(1, 1, 0, RELEVANT, unit(0.9))
    vector = unit(1.0)
    context = ask(store, embedder, query_vector=vector)
    assert embedder.calls == []
    assert np.array_equal(store.calls[0][0], vector)
    assert context.timings["embed"] < 0.01
    assert len(context.chunks) == 1


def test_retrieve_records_timings(store, embedder):
    store.add(1, 1, 0, RELEVANT, unit(0.9))
    context = ask(store, embedder)
    assert set(context.timings) == set(TIMING_KEYS)
    assert all(value >= 0 for value in context.timings.values())
    assert context.timings["total"] >= context.timings["search"]
    assert embedder.calls == [QUESTION]


def test_retrieve_with_hashed_embedder_end_to_end():
    store, embedder = FakeStore(), HashEmbedder()
    texts = [RELEVANT, NOISE, "Urlaubsantrag und Reisekosten", "OpenTelemetry Collector konfiguriert Exporter"]
    for doc, (text, vector) in enumerate(zip(texts, embedder.embed_documents(texts), strict=True)):
        store.add(doc, 1, 0, text, vector)
    context = ask(store, embedder)
    assert {c.hit.document_id for c in context.chunks} == {0, 3}
    assert context.sources[0].document_id == 0


def test_context_spread_takes_each_passing_document_s_best_chunk_before_any_second_chunk():
    documents = [1, 1, 1, 2, 2, 3]        # the candidates' documents in rank order
    verdicts = [None, None, None, None, "lexical", None]
    spread = RetrievalSettings.original(context_chunks=4, max_chunks_per_document=3, context_spread=True)
    assert capped(documents, verdicts, spread) == [None, None, "total_cap", None, "lexical", None]
    ranked = replace(spread, context_spread=False)   # the original: rank order, document 3 left out
    assert capped(documents, verdicts, ranked) == [None, None, None, None, "lexical", "total_cap"]
    tight = replace(spread, max_chunks_per_document=1, context_chunks=9)
    assert capped(documents, verdicts, tight) == [None, "document_cap", "document_cap", None, "lexical", None]
    assert RetrievalSettings.from_config(DEFAULTS).context_spread and not RetrievalSettings.original().context_spread
    assert not RetrievalSettings.from_config({"CONTEXT_SPREAD": "false"}).context_spread


def test_a_full_document_gives_its_last_slot_to_a_later_chunk_with_a_question_term_it_lacks():
    documents = [1, 1, 1, 1, 1, 1, 2]
    verdicts = [None] * 7
    install, recommends = frozenset({"instal", "pak"}), frozenset({"empfohl", "instal", "pak"})
    terms = [install, install, install, install, frozenset({"pak"}), recommends, install]
    limits = RetrievalSettings.original(context_chunks=9, max_chunks_per_document=4, context_spread=True)
    assert capped(documents, verdicts, limits) == [None] * 4 + ["document_cap"] * 2 + [None]
    assert capped(documents, verdicts, limits, terms) == [None, None, None, "document_cap", "document_cap", None, None]
    unique_last = [*terms[:3], frozenset({"sortier"}), *terms[4:]]   # the last slot holds a term of its own: kept
    assert capped(documents, verdicts, limits, unique_last) == [None] * 4 + ["document_cap"] * 2 + [None]
    far = [install] * 4 + [install] * 4 + [recommends]   # beyond the document's next COVERING_WINDOW chunks
    assert capped([1] * 9, [None] * 9, limits, far) == [None] * 4 + ["document_cap"] * 5


def test_context_spread_keeps_the_context_in_rank_order(store, embedder):
    for chunk in range(4):
        store.add(1, 1, chunk, RELEVANT, unit(0.9 - chunk * 0.01))
    store.add(2, 1, 0, RELEVANT, unit(0.5))
    settings = RetrievalSettings.original(context_chunks=3, context_spread=True)
    context = ask(store, embedder, settings)
    assert [(c.hit.document_id, c.hit.chunk_index, c.position) for c in context.chunks] == \
        [(1, 0, 1), (1, 1, 2), (2, 0, 3)]


def test_preferred_documents_go_first_in_their_own_order_and_are_ranked_anew():
    from irisrag.rag.retrieve import preferred_first
    from irisrag.vectors.store import Hit
    hits = [Hit(d, 1, 0, None, "t", 0.5, n) for n, d in enumerate([4, 9, 4, 2, 9])]
    ordered = preferred_first(hits, frozenset({9}))
    assert [(h.document_id, h.rank) for h in ordered] == [(9, 0), (9, 1), (4, 2), (4, 3), (2, 4)]
    assert preferred_first(hits, frozenset()) == hits
