"""Optional stages: the reranker (second embedder or LLM judge) and LLM query expansion."""
from __future__ import annotations

import numpy as np
import pytest

from irisrag.llm.clients import FakeLLM, LLMUnavailable
from irisrag.rag import expand, rerank
from irisrag.rag.expand import LLMQueryExpander, build_expander, clean_keywords
from irisrag.rag.lexical import terms
from irisrag.rag.rerank import EmbedderReranker, LLMReranker, build_reranker, judged_order
from irisrag.rag.retrieve import RetrievalSettings, build_context, rank_candidates
from irisrag.vectors.store import Hit, TextHit

from .fakes import FakeStore, HashEmbedder, unit

QUESTION = "Wie wird OpenTelemetry für Observability konfiguriert?"


def hits(*texts: str) -> list[Hit]:
    return [Hit(n, 1, 0, None, text, 0.9 - n * 0.01, n) for n, text in enumerate(texts)]


TEXTS = ("Navigation Startseite Impressum", "Banner Kontakt Werbung", "OpenTelemetry Observability konfiguriert",
         "Paketverwaltung mit apt")


# --- embedder reranker --------------------------------------------------------------------

def test_embedder_reranker_moves_the_matching_chunk_up_and_renumbers_ranks():
    reranked = EmbedderReranker(HashEmbedder(), top_n=4, weight=1.0).rerank(
        "OpenTelemetry Observability konfiguriert", hits(*TEXTS))
    assert reranked[0].text == TEXTS[2]
    assert [h.rank for h in reranked] == [0, 1, 2, 3]
    assert sorted(h.document_id for h in reranked) == [0, 1, 2, 3]  # nothing dropped
    assert reranked[0].score == pytest.approx(0.88)  # the cosine of the search stays


def test_embedder_reranker_weight_zero_keeps_the_fused_order():
    original = hits(*TEXTS)
    reranked = EmbedderReranker(HashEmbedder(), top_n=4, weight=0.0).rerank("OpenTelemetry", original)
    assert [h.document_id for h in reranked] == [0, 1, 2, 3]


def test_embedder_reranker_only_touches_the_top_n():
    reranked = EmbedderReranker(HashEmbedder(), top_n=2, weight=1.0).rerank(
        "OpenTelemetry Observability konfiguriert", hits(*TEXTS))
    assert [h.document_id for h in reranked][2:] == [2, 3]  # below the window: fused order


def test_embedder_reranker_failure_keeps_the_fused_order():
    class Down(HashEmbedder):
        def embed_documents(self, texts):
            raise RuntimeError("e5 missing")

    original = hits(*TEXTS)
    assert EmbedderReranker(Down(), top_n=4).rerank("OpenTelemetry", original) == original


# --- LLM judge ----------------------------------------------------------------------------

def test_judged_order_keeps_valid_unique_numbers_in_order():
    assert judged_order("3, 1, 3, 9, 0, 2", 4) == [2, 0, 1]
    assert judged_order("Die Passagen [4] und [2] helfen.", 4) == [3, 1]
    assert judged_order("keine", 4) == []


def test_llm_reranker_puts_the_judged_passages_first():
    llm = FakeLLM("3, 4")
    reranked = LLMReranker(llm, top_n=4).rerank(QUESTION, hits(*TEXTS))
    assert [h.document_id for h in reranked] == [2, 3, 0, 1]
    assert [h.rank for h in reranked] == [0, 1, 2, 3]
    [messages] = llm.calls
    assert messages[0]["content"] == rerank.JUDGE_PROMPT
    assert QUESTION in messages[1]["content"] and "[3] OpenTelemetry Observability" in messages[1]["content"]


def test_llm_reranker_shows_each_passage_shortened():
    llm = FakeLLM("1")
    LLMReranker(llm, top_n=2).rerank(QUESTION, hits("wort " * 500, "kurz"))
    first = llm.calls[0][1]["content"].split("[1] ", 1)[1].split("\n\n[2]")[0]
    assert len(first) <= rerank.PASSAGE_CHARS


@pytest.mark.parametrize("llm", [FakeLLM("Ich weiß es nicht."), FakeLLM(lambda m: (_ for _ in ()).throw(
    LLMUnavailable("down", "stub")))])
def test_llm_reranker_keeps_the_fused_order_when_the_judge_fails(llm):
    original = hits(*TEXTS)
    assert LLMReranker(llm, top_n=4).rerank(QUESTION, original) == original


def test_build_reranker_from_settings():
    assert build_reranker({"RERANKER": "none"}) is None
    judge = build_reranker({"RERANKER": "llm", "RERANK_TOP_N": 7}, llm=FakeLLM())
    assert isinstance(judge, LLMReranker) and judge.top_n == 7
    built = []
    second = build_reranker({"RERANKER": "embedder", "RERANK_EMBEDDER": "use", "RERANK_WEIGHT": 0.4},
                            embedder_factory=lambda kind: built.append(kind) or HashEmbedder())
    assert isinstance(second, EmbedderReranker) and second.weight == 0.4 and built == ["use"]
    with pytest.raises(ValueError, match="unknown reranker"):
        build_reranker({"RERANKER": "magic"})


# --- query expansion ----------------------------------------------------------------------

def test_clean_keywords_strips_markup_and_caps_length():
    assert clean_keywords("**Keywords:** package-manager, apt; *dpkg*\n1. Paket") == \
        "Keywords package-manager apt dpkg 1 Paket"
    long = clean_keywords("wort " * 500)
    assert len(long) <= expand.MAX_CHARS and not long.endswith(" ")


def test_expander_asks_for_the_documents_language_and_survives_failures():
    llm = FakeLLM("configure OpenTelemetry observability")
    assert LLMQueryExpander(llm, "English").expand(QUESTION) == "configure OpenTelemetry observability"
    assert "English" in llm.calls[0][0]["content"] and llm.calls[0][1]["content"] == QUESTION
    down = FakeLLM(lambda m: (_ for _ in ()).throw(LLMUnavailable("down", "stub")))
    assert LLMQueryExpander(down).expand(QUESTION) == ""
    assert build_expander({"QUERY_EXPANSION": "none"}) is None
    assert isinstance(build_expander({"QUERY_EXPANSION": "llm", "FTS_LANGUAGE": "English"}, llm=llm),
                      LLMQueryExpander)


class TextStore(FakeStore):
    """FakeStore with a full-text leg that records the text it was asked and matches words."""

    def __init__(self) -> None:
        super().__init__()
        self.fulltext_queries: list[str] = []

    def search_fulltext(self, text, area_ids, k, *, vector=None):
        self.fulltext_queries.append(text)
        words = {w.lower() for w in text.split()}
        found = []
        for doc, area, index, page, chunk in self.rows:
            score = sum(w.lower().strip(".,?") in words for w in chunk.split())
            if area in area_ids and score:
                found.append((score, Hit(doc, area, index, page, chunk, 0.0, 0)))
        found.sort(key=lambda pair: -pair[0])
        return [TextHit(Hit(h.document_id, h.area_id, h.chunk_index, h.page, h.text, 0.0, r), float(s))
                for r, (s, h) in enumerate(found[:k])]


def test_expansion_reaches_the_fulltext_leg_and_the_lexical_gate():
    store = TextStore()
    store.add(1, 1, 0, "How to configure the OpenTelemetry collector for observability.", unit(0.3))
    store.add(2, 1, 0, "Navigation Startseite Impressum Kontakt.", unit(0.9))
    question = "Wie richte ich den Sammler ein?"
    plain = build_context(question, [1], embedder=HashEmbedder(), store=store,
                          settings=RetrievalSettings.original(mode="hybrid"))
    assert [c.hit.document_id for c in plain.chunks] == []  # German words: no lexical match
    expander = LLMQueryExpander(FakeLLM("configure OpenTelemetry collector"), "English")
    context = build_context(question, [1], embedder=HashEmbedder(), store=store,
                            settings=RetrievalSettings.original(mode="hybrid"), expander=expander)
    # the expansion, then the how-to question's third-person verb form (``verbforms.py``) and its
    # separable verb joined ("richte ... ein": ``separable.py``)
    assert store.fulltext_queries[-1] == f"{question} configure OpenTelemetry collector richtet einrichten"
    assert [c.hit.document_id for c in context.chunks] == [1]
    assert context.candidates[0].hit.document_id == 1
    assert context.timings["expand"] > 0 and terms("configure collector") <= context.terms


def test_reranker_runs_after_the_fusion_in_every_mode_and_is_timed():
    store = TextStore()
    for n, text in enumerate(TEXTS):
        store.add(n, 1, 0, text, unit(0.9 - n * 0.1))
    judge = LLMReranker(FakeLLM("3"), top_n=4)
    for mode in ("vector", "fulltext", "hybrid"):
        ranked, timings = rank_candidates("OpenTelemetry Observability Banner Navigation Paketverwaltung", [1],
                                          embedder=HashEmbedder(), store=store,
                                          settings=RetrievalSettings.original(mode=mode), reranker=judge)
        before, _ = rank_candidates("OpenTelemetry Observability Banner Navigation Paketverwaltung", [1],
                                    embedder=HashEmbedder(), store=store, settings=RetrievalSettings.original(mode=mode))
        assert ranked[0].document_id == before[2].document_id and timings["rerank"] > 0, mode
    none, _ = rank_candidates("OpenTelemetry", [], embedder=HashEmbedder(), store=store,
                              settings=RetrievalSettings.original(), reranker=judge)
    assert none == []


def test_reranked_scores_stay_cosines():
    store = FakeStore()
    for n, text in enumerate(TEXTS):
        store.add(n, 1, 0, text, unit(0.9 - n * 0.1))
    ask = dict(embedder=HashEmbedder(), store=store, settings=RetrievalSettings.original(min_match_terms=1))
    plain = build_context("OpenTelemetry Observability konfiguriert", [1], **ask)
    context = build_context("OpenTelemetry Observability konfiguriert", [1], **ask,
                            reranker=EmbedderReranker(HashEmbedder(), top_n=4, weight=1.0))
    assert context.candidates[0].hit.document_id == 2 != plain.candidates[0].hit.document_id
    scores = {c.hit.document_id: c.hit.score for c in plain.candidates}
    assert all(np.isclose(c.hit.score, scores[c.hit.document_id]) for c in context.candidates)
