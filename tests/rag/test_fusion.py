"""Fusion arithmetic, and hybrid retrieval against each single leg on a real LanceDB."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from irisrag.evaluation.metrics import mrr_at
from irisrag.rag import fusion
from irisrag.rag.fusion import FusionSettings
from irisrag.rag.inspect import inspect_document
from irisrag.rag.lexical import terms
from irisrag.rag.retrieve import RetrievalSettings, build_context, rank_candidates
from irisrag.vectors.store import ChunkIn, VectorStore

DIM = 16


def axis(i: int, weight: float = 1.0, rest: int | None = None) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[i] = weight
    if rest is not None:
        vector[rest] = np.sqrt(max(0.0, 1 - weight * weight))
    return vector


class TableEmbedder:
    """Embed by a fixed table: the test decides which texts are semantically close."""

    key = "fake-table-16"
    dim = DIM

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table

    def embed_documents(self, texts):
        return np.stack([self.table[t] for t in texts]) if texts else np.zeros((0, DIM), np.float32)

    def embed_query(self, text):
        return self.table[text]


KEYWORD_Q = "Why does the capacitor show XR7734?"
KEYWORD_DOC = "XR7734 appears when the flux capacitor overheats."
PARAPHRASE_Q = "automobile repair"
PARAPHRASE_DOC = "Car maintenance shop opening hours."


def fixture_texts() -> dict[str, np.ndarray]:
    """One keyword-only hit, one paraphrase-only hit, and distractors for each leg."""
    table = {KEYWORD_Q: axis(0), KEYWORD_DOC: axis(1), PARAPHRASE_Q: axis(2), PARAPHRASE_DOC: axis(2)}
    for n in range(12):  # close to the keyword question in vector space, no shared word
        table[f"Fault notice number {n} for the service desk."] = axis(0, 0.95 - n * 0.01, rest=3 + n % 4)
    for n in range(3):   # share the word "repair" with the paraphrase question, far in vector space
        table[f"Repair cafe {n} fixes bicycles."] = axis(8 + n)
    return table


@pytest.fixture
def library(tmp_path):
    table = fixture_texts()
    store = VectorStore(str(tmp_path / "lance"), TableEmbedder.key, DIM, read_consistency_seconds=None,
                        fts_language="English")
    documents = [t for t in table if t not in (KEYWORD_Q, PARAPHRASE_Q)]
    store.replace_documents([(doc, 1, [ChunkIn(0, text)], table[text][None, :])
                             for doc, text in enumerate(documents)])
    store.refresh_indexes()
    return store, TableEmbedder(table), {text: doc for doc, text in enumerate(documents)}


def test_fusion_rrf_by_hand():
    scores = fusion.rrf([["a", "b", "c"], ["c", "a"]], [1.0, 1.0], k=60)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["b"] == pytest.approx(1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    weighted = fusion.rrf([["a"], ["b"]], [0.25, 0.75], k=0)
    assert weighted == {"a": pytest.approx(0.25), "b": pytest.approx(0.75)}


def test_fusion_convex_min_max_by_hand():
    dense = {"a": 0.9, "b": 0.5, "c": 0.1}
    lexical = {"c": 12.0, "d": 4.0}
    scores = fusion.convex(dense, lexical, 0.25)
    assert scores == {"a": pytest.approx(0.75), "b": pytest.approx(0.375),
                      "c": pytest.approx(0.25), "d": pytest.approx(0.0)}
    assert fusion.min_max({"x": 3.0}) == {"x": 1.0}
    assert fusion.min_max({}) == {}


def test_fusion_term_coverage_and_adaptive_weight():
    question = terms("Welche Einwohner hat Warschau?")
    assert question == {"einwohn", "warschau"}
    texts = ["Warsaw has 1.7 million inhabitants.", "Warschau liegt an der Weichsel"]
    assert fusion.term_coverage(question, texts) == 0.5
    assert fusion.term_coverage(question, []) == 0.0
    assert fusion.term_coverage(frozenset(), ["x"]) == 0.0
    adaptive = FusionSettings.of(lexical_weight=0.6, coverage_floor=0.2, coverage_full=0.6)
    assert fusion.lexical_weight(adaptive, 0.1) == 0.0
    assert fusion.lexical_weight(adaptive, 0.4) == pytest.approx(0.3)
    assert fusion.lexical_weight(adaptive, 0.9) == pytest.approx(0.6)
    constant = replace(adaptive, coverage_floor=0.0, coverage_full=0.0)
    assert fusion.lexical_weight(constant, 0.1) == fusion.lexical_weight(constant, 1.0) == 0.6
    with pytest.raises(ValueError):
        FusionSettings.of(method="borda")
    with pytest.raises(ValueError):
        FusionSettings.of(lexical_weight=1.5)


def test_fusion_order_is_stable_and_keeps_every_key():
    dense, lexical = [("a", 0.9), ("b", 0.8), ("d", 0.1)], [("c", 3.0), ("a", 2.0), ("b", 1.0)]
    order = fusion.fuse(dense, lexical, 0.5, FusionSettings.of(method="rrf"))
    assert order[0] == "a" and set(order) == {"a", "b", "c", "d"}
    # convex, w = 0.5: a 0.5 + 0.25, b 0.4375 + 0, c 0 + 0.5, d 0 + 0 (tie with nothing)
    assert fusion.fuse(dense, lexical, 0.5, FusionSettings.of()) == ["a", "c", "b", "d"]
    assert fusion.fuse(dense, lexical, 0.0, FusionSettings.of()) == ["a", "b", "d", "c"]  # weight 0: vector order
    assert fusion.fuse(dense, lexical, 1.0, FusionSettings.of()) == ["c", "a", "b", "d"]  # weight 1: BM25 order
    assert fusion.fuse([("a", 0.9), ("b", 0.8)], [], 0.5, FusionSettings.of()) == ["a", "b"]


def _doc_rank(hits, document_id) -> int | None:
    ranks = [i for i, d in enumerate(dict.fromkeys(h.document_id for h in hits)) if d == document_id]
    return ranks[0] if ranks else None


@pytest.mark.parametrize("method", ["default", "rrf", "convex"])
def test_hybrid_beats_each_leg_where_one_leg_alone_fails(library, method):
    store, embedder, ids = library
    settings = RetrievalSettings.original(candidates=50)  # more than the corpus: every chunk is a candidate
    if method != "default":
        settings = replace(settings, fusion=FusionSettings.of(method=method))
    wanted = {KEYWORD_Q: ids[KEYWORD_DOC], PARAPHRASE_Q: ids[PARAPHRASE_DOC]}
    ranks, mrr = {}, {}
    for mode in ("vector", "fulltext", "hybrid"):
        ranks[mode] = {}
        for question, document_id in wanted.items():
            hits, _ = rank_candidates(question, [1], embedder=embedder, store=store, settings=settings, mode=mode)
            ranks[mode][question] = _doc_rank(hits, document_id)
        mrr[mode] = sum(mrr_at(_ranking(r), {"hit": 1}, 10) for r in ranks[mode].values()) / 2
    assert ranks["vector"][KEYWORD_Q] >= 12 and ranks["vector"][PARAPHRASE_Q] == 0
    assert ranks["fulltext"][KEYWORD_Q] == 0 and ranks["fulltext"][PARAPHRASE_Q] is None
    assert mrr["vector"] == mrr["fulltext"] == 0.5
    assert all(rank is not None and rank <= 3 for rank in ranks["hybrid"].values())
    assert mrr["hybrid"] > 0.5


def _ranking(rank: int | None) -> list[str]:
    return [] if rank is None else ["miss"] * rank + ["hit"]


def test_hybrid_without_fulltext_index_is_the_vector_ranking(tmp_path):
    table = fixture_texts()
    store = VectorStore(str(tmp_path / "lance"), TableEmbedder.key, DIM, read_consistency_seconds=None)
    texts = [t for t in table if t not in (KEYWORD_Q, PARAPHRASE_Q)]
    store.replace_documents([(doc, 1, [ChunkIn(0, t)], table[t][None, :]) for doc, t in enumerate(texts)])
    embedder = TableEmbedder(table)  # no refresh_indexes: the full-text leg is empty
    vector, _ = rank_candidates(KEYWORD_Q, [1], embedder=embedder, store=store, settings=RetrievalSettings.original(mode="vector"))
    hybrid, timings = rank_candidates(KEYWORD_Q, [1], embedder=embedder, store=store,
                                      settings=RetrievalSettings.original(mode="hybrid"))
    assert hybrid == vector
    assert timings["fulltext"] >= 0 and timings["fuse"] >= 0


def test_hybrid_context_reaches_beyond_the_vector_window(library):
    store, embedder, ids = library
    settings = RetrievalSettings.original(candidates=5, min_match_terms=1)
    question = "XR7734 capacitor"
    embedder.table[question] = axis(0)
    vector = build_context(question, [1], embedder=embedder, store=store, settings=settings)
    hybrid = build_context(question, [1], embedder=embedder, store=store, settings=settings, mode="hybrid")
    assert ids[KEYWORD_DOC] not in {c.hit.document_id for c in vector.chunks}
    assert [c.hit.document_id for c in hybrid.chunks] == [ids[KEYWORD_DOC]]
    assert [s.document_id for s in hybrid.sources] == [ids[KEYWORD_DOC]]
    assert hybrid.chunks[0].hit.score == pytest.approx(0.0, abs=1e-6)  # its cosine, not its BM25 score
    assert hybrid.timings["fulltext"] > 0 and vector.timings["fulltext"] == 0
    assert {c.hit.area_id for c in hybrid.candidates} == {1}
    assert build_context(question, [2], embedder=embedder, store=store, settings=settings, mode="hybrid").chunks == ()


def test_retrieval_settings_mode_from_config():
    settings = RetrievalSettings.from_config({"RETRIEVAL_MODE": "Fulltext"})
    assert settings.mode == "fulltext"
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        RetrievalSettings.original(mode="semantic")
    assert RetrievalSettings.original().mode == "vector"  # the original's behaviour for callers that pass nothing


def test_hybrid_on_a_vector_only_store_is_the_vector_ranking():
    from .fakes import AxisEmbedder, FakeStore, unit

    store, embedder = FakeStore(), AxisEmbedder()
    for doc in range(3):
        store.add(doc, 1, 0, "OpenTelemetry", unit(0.9 - doc * 0.1))
    settings = RetrievalSettings.original(mode="hybrid")
    hybrid, _ = rank_candidates("OpenTelemetry", [1], embedder=embedder, store=store, settings=settings)
    vector, _ = rank_candidates("OpenTelemetry", [1], embedder=embedder, store=store, settings=settings, mode="vector")
    assert hybrid == vector and [h.document_id for h in hybrid] == [0, 1, 2]
    with pytest.raises(TypeError, match="full-text"):
        rank_candidates("OpenTelemetry", [1], embedder=embedder, store=store, settings=settings, mode="fulltext")


def test_fusion_per_document_counts_both_legs_best_chunks():
    # Document A's best vector chunk (a0) and best full-text chunk (a1) differ; B's one chunk is second in both.
    dense = [(("A", 0), 0.9), (("B", 0), 0.6), (("C", 0), 0.1)]
    lexical = [(("A", 1), 9.0), (("B", 0), 6.0), (("C", 0), 1.0)]
    per_chunk = fusion.fuse(dense, lexical, 0.5, FusionSettings.of())
    assert per_chunk[0] == ("B", 0)  # 0.5 * 0.625 + 0.5 * 0.625 beats a0 (0.5 + 0) and a1 (0 + 0.5)
    by_document = fusion.fuse(dense, lexical, 0.5, FusionSettings.of(document_share=0.5), document_of=lambda k: k[0])
    # A first in both legs lifts its best chunk a0: 0.5 * 0.5 + 0.5 * 1.0 = 0.75 > 0.625; a1 keeps its own 0.5
    assert by_document == [("A", 0), ("B", 0), ("A", 1), ("C", 0)]
    assert set(by_document) == set(per_chunk)
    assert fusion.fuse(dense, lexical, 0.5, FusionSettings.of(document_share=0.5)) == per_chunk  # no document_of


def test_fusion_weight_from_the_best_fulltext_documents():
    question = terms("Gustave Eiffel designed the bridge across the river")
    ranked = [(1, "Gustave Eiffel designed it."), (1, "The bridge across the river."), (2, "river"), (3, "designed")]
    assert fusion.top_document_coverage(question, ranked, 1) == 1.0  # doc 1: its two chunks hold all six terms
    weak = [(7, "Eiffel"), (8, "bridge"), (9, "river designed")]
    assert fusion.top_document_coverage(question, weak, 2) == pytest.approx(1 / 6)
    assert fusion.term_coverage(question, (text for _, text in weak)) == pytest.approx(4 / 6)  # the old rule: high
    assert fusion.top_document_coverage(frozenset(), ranked, 1) == 0.0
    settings = fusion.settings_from_config({"FUSION_WEIGHT_FROM": "top", "FUSION_TOP_DOCUMENTS": "3",
                                            "FUSION_DOCUMENT_SHARE": "0.25"})
    assert (settings.weight_from, settings.top_documents, settings.document_share) == ("top", 3, 0.25)
    with pytest.raises(ValueError, match="weight source"):
        FusionSettings.of(weight_from="some")


def test_fusion_default_counts_a_documents_best_chunk_of_each_leg():
    # The default mixes in the document-level fusion: A's best vector chunk (a0) and best
    # full-text chunk (a1) differ, B's single chunk is second in both legs.
    dense = [(("A", 0), 0.9), (("B", 0), 0.6), (("C", 0), 0.1)]
    lexical = [(("A", 1), 9.0), (("B", 0), 6.0), (("C", 0), 1.0)]
    per_chunk = FusionSettings.of(document_share=0.0)
    assert fusion.fuse(dense, lexical, 0.5, per_chunk, document_of=lambda k: k[0])[0] == ("B", 0)
    # A's best chunk is lifted (0.3 * 0.5 + 0.7 * 1.0); its other chunk keeps its own score, after B
    assert fusion.fuse(dense, lexical, 0.5, FusionSettings.of(), document_of=lambda k: k[0]) == \
        [("A", 0), ("B", 0), ("A", 1), ("C", 0)]


def test_fusion_weight_listens_to_the_best_fulltext_document():
    # Every question word occurs somewhere, but each in another document: the old rule ("all")
    # gives full text its whole weight; the default ("both") halves the evidence of scattered words.
    question = terms("Gustave Eiffel designed the bridge across the river")
    scattered = [(7, "Eiffel"), (8, "bridge"), (9, "river designed"), (10, "Gustave")]
    together = [(1, "Gustave Eiffel designed the bridge across the river."), (2, "river")]
    old = FusionSettings.of(weight_from="all")
    assert fusion.question_coverage(question, scattered, old) == pytest.approx(5 / 6)
    # the best full-text document (the first, top_documents 1) holds one word: (5/6 + 1/6) / 2
    assert fusion.question_coverage(question, scattered, FusionSettings.of()) == pytest.approx(0.5)
    assert fusion.question_coverage(question, scattered, FusionSettings.of(weight_from="top")) == pytest.approx(1 / 6)
    assert fusion.lexical_weight(old, fusion.question_coverage(question, scattered, old)) == pytest.approx(0.65)
    weight = fusion.lexical_weight(FusionSettings.of(), fusion.question_coverage(question, scattered, FusionSettings.of()))
    assert weight == pytest.approx(0.65 * (0.5 - 0.2) / 0.4)
    assert fusion.lexical_weight(FusionSettings.of(), fusion.question_coverage(question, together, FusionSettings.of())) \
        == pytest.approx(0.65)  # the words occur, and together in the best document: the whole weight
    assert fusion.settings_from_config({"FUSION_WEIGHT_FROM": " Both "}).weight_from == "both"


GASKET_Q = "Which gasket fits the Zephyr pump?"
GASKET_OVERVIEW = "Installation overview of the unit and its housing."
GASKET_SPEC = "Zephyr pump gasket: the Zephyr pump takes the gasket G-12."
GASKET_KIT = "Zephyr pump gasket kit and other parts for several models."


def test_hybrid_ranks_a_document_by_its_best_chunk_in_each_leg(tmp_path):
    # Document 0: its overview chunk is the closest vector (no shared word), its spec chunk the
    # best full-text match (far in vector space). Document 1's one chunk is second in both legs.
    table = {GASKET_Q: axis(0), GASKET_OVERVIEW: axis(0, 0.9, rest=1), GASKET_SPEC: axis(5),
             GASKET_KIT: axis(0, 0.63, rest=2), "Garden hose adapters for the yard.": axis(0, 0.2, rest=3),
             "Zephyr wind history and legends.": axis(7), "Office chairs with armrests.": axis(8)}
    documents = [[GASKET_OVERVIEW, GASKET_SPEC], [GASKET_KIT], *([t] for t in list(table)[4:])]
    store = VectorStore(str(tmp_path / "lance"), TableEmbedder.key, DIM, read_consistency_seconds=None,
                        fts_language="English")
    store.replace_documents([(doc, 1, [ChunkIn(i, t) for i, t in enumerate(texts)], np.stack([table[t] for t in texts]))
                             for doc, texts in enumerate(documents)])
    store.refresh_indexes()
    embedder = TableEmbedder(table)

    def first_document(fusion_settings: FusionSettings) -> int:
        settings = RetrievalSettings.original(mode="hybrid", fusion=fusion_settings)
        hits, _ = rank_candidates(GASKET_Q, [1], embedder=embedder, store=store, settings=settings)
        return hits[0].document_id

    assert first_document(FusionSettings.of(weight_from="all", document_share=0.0)) == 1  # per chunk: each leg half
    assert first_document(FusionSettings.of()) == 0                                      # the default: both count
    context = build_context(GASKET_Q, [1], embedder=embedder, store=store, settings=RetrievalSettings.original(mode="hybrid"))
    assert [(c.hit.document_id, c.hit.chunk_index) for c in context.candidates[:3]] == [(0, 1), (1, 0), (0, 0)]
    # The inspector explains it: the spec chunk, far in vector space, is fused first (its
    # document's best vector chunk counts for it), with the question's full-text weight and share.
    trace = inspect_document(GASKET_Q, [1], 0, 1, embedder=embedder, store=store,
                             settings=RetrievalSettings.original(mode="hybrid"))
    ranks = {c.chunk_index: (c.vector_rank, c.fulltext_rank, c.fused_rank) for c in trace.chunks}
    assert ranks[0] == (1, None, 3) and ranks[1][1:] == (1, 1) and ranks[1][0] > 2
    assert trace.document_share == 0.7 and trace.fulltext_weight == 0.65  # gasket, zephyr, pump: 3 of 4 terms
    assert inspect_document(GASKET_Q, [1], 0, 1, embedder=embedder, store=store,
                            settings=RetrievalSettings.original(mode="vector")).fulltext_weight is None
