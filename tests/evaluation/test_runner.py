"""The evaluation runner on a tiny BEIR dataset whose rankings are known, metrics by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

from irisrag.evaluation import beir, runner
from irisrag.rag.retrieve import RetrievalSettings

from .shared import SHARED_EVAL
from .test_metrics import write_dataset

DIM = 8
D_FIRST, D_SECOND = "Delta opens the document with words.", "Zeta closes the document here."


def _axis(*pairs: tuple[int, float]) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    for i, value in pairs:
        vector[i] = value
    return vector


class CountingTableEmbedder:
    """Known vectors for known texts, a far-away axis for the rest; counts embedded texts."""

    key = "fake-eval-8"
    dim = DIM

    def __init__(self) -> None:
        self.embedded = 0
        self.table = {
            "beta gamma": _axis((0, 1.0)),                   # A: the closest to q1, not relevant
            "alpha words": _axis((0, 0.6), (1, 0.8)),        # B: relevant to q1, vector rank 2
            "epsilon": _axis((2, 1.0)),                      # C: relevant to q2, vector rank 1
            D_FIRST: _axis((7, 1.0)),
            D_SECOND: _axis((3, 1.0)),                       # D's second chunk is q3's best match
            "alpha": _axis((0, 1.0)), "omega": _axis((2, 1.0)), "zeta": _axis((3, 1.0)),
        }

    def embed_documents(self, texts):
        self.embedded += len(texts)
        return np.stack([self.table.get(t, _axis((6, 1.0))) for t in texts]) if texts else np.zeros((0, DIM))

    def embed_query(self, text):
        return self.table[text]


@pytest.fixture
def dataset(tmp_path):
    path = write_dataset(
        tmp_path / "tiny",
        [{"_id": "A", "text": "beta gamma"}, {"_id": "B", "text": "alpha words"}, {"_id": "C", "text": "epsilon"},
         {"_id": "D", "text": f"{D_FIRST}\n\n{D_SECOND}"}],
        [{"_id": "q1", "text": "alpha"}, {"_id": "q2", "text": "omega"}, {"_id": "q3", "text": "zeta"}],
        [("q1", "B", 1), ("q2", "C", 1), ("q3", "D", 1)])
    return beir.load(path)


def test_runner_metrics_match_hand_computed_values(dataset, tmp_path):
    embedder = CountingTableEmbedder()
    options = runner.EvalOptions.original(settings=RetrievalSettings.original(), chunk_size=40, chunk_overlap=0, fts_language="English")
    report = runner.run(dataset, embedder, options, tmp_path / "scratch")
    assert (report.queries, report.documents, report.chunks) == (3, 4, 5)
    vector = report.modes["vector"].metrics
    # q1: B second (nDCG 1/log2(3), RR 1/2); q2: C first; q3: D first through its second chunk.
    assert vector["ndcg@10"] == pytest.approx((1 / math.log2(3) + 1 + 1) / 3)
    assert vector["mrr@10"] == pytest.approx((0.5 + 1 + 1) / 3)
    assert vector["recall@5"] == vector["recall@100"] == 1.0
    assert vector["p@5"] == pytest.approx(0.2)
    fulltext = report.modes["fulltext"].metrics
    # q1 "alpha" only in B; q2 "omega" nowhere (nothing ranked); q3 "zeta" only in D.
    assert fulltext["ndcg@10"] == pytest.approx(2 / 3)
    assert fulltext["recall@10"] == pytest.approx(2 / 3)
    assert fulltext["p@5"] == pytest.approx(2 / 15)
    assert report.modes["hybrid"].metrics["ndcg@10"] >= max(vector["ndcg@10"], fulltext["ndcg@10"]) - 1e-9
    assert {"embed", "search", "fulltext", "fuse", "total"} <= set(report.modes["hybrid"].timings)
    assert "embed" not in report.modes["fulltext"].timings
    data = report.to_json()
    assert {"dataset", "split", "queries", "documents", "chunks", "embedder", "fts_language", "prepare_seconds",
            "modes"} <= set(data)
    assert set(data["modes"]["vector"]) == {"ndcg@10", "recall@5", "recall@10", "recall@100", "mrr@10", "p@5",
                                            "context_recall", "sources_recall", "nearest_recall", "empty_context_rate",
                                                "timings"}


def test_runner_leaves_only_the_embedding_cache(dataset, tmp_path):
    embedder = CountingTableEmbedder()
    options = runner.EvalOptions.original(chunk_size=40, chunk_overlap=0, fts_language="English")
    first = runner.run(dataset, embedder, options, tmp_path / "scratch", modes=["vector"])
    assert embedder.embedded == 5
    assert [p.name for p in (tmp_path / "scratch").iterdir()] == ["cache"]  # the scratch LanceDB is gone
    second = runner.run(dataset, embedder, options, tmp_path / "scratch", modes=["vector"])
    assert embedder.embedded == 5  # chunk vectors came from the cache
    assert second.modes["vector"].metrics == first.modes["vector"].metrics
    assert list(second.modes) == ["vector"]
    runner.run(dataset, embedder, runner.EvalOptions.original(chunk_size=60, chunk_overlap=0), tmp_path / "scratch",
               modes=["vector"])
    assert embedder.embedded > 5  # other chunking: other cache entry
    with pytest.raises(ValueError, match="semantic"):
        runner.run(dataset, embedder, options, tmp_path / "scratch", modes=["semantic"])


SHARED_XQUAD_DE = SHARED_EVAL / "xquad" / "de"


@pytest.mark.skipif(not (SHARED_XQUAD_DE / "corpus.jsonl").is_file(), reason="../shared/eval is not there")
def test_runner_on_a_subset_of_the_shared_german_set(tmp_path):
    """40 XQuAD-de questions, the real German full-text index, the fake embedder (fast, weak)."""
    from irisrag.embeddings import FakeEmbedder

    dataset = beir.load(SHARED_XQUAD_DE, limit=40)
    report = runner.run(dataset, FakeEmbedder(), runner.EvalOptions.original(fts_language="German"), tmp_path)
    assert report.documents == 240 and report.queries == 40
    scores = {mode: result.metrics["ndcg@10"] for mode, result in report.modes.items()}
    assert scores["fulltext"] > 0.9                      # BM25 with German stemming: about 0.94 on the whole set
    assert scores["hybrid"] >= scores["vector"] + 0.3    # the hashed fake alone is poor (about 0.3)
    assert scores["hybrid"] >= scores["fulltext"] - 0.02


def test_runner_reranks_like_the_product_embedding_only_the_top_passages(tmp_path):
    """The reranking embedder sees each question's top RERANK_TOP_N passages, never the whole corpus."""
    from irisrag.embeddings import FakeEmbedder
    from irisrag.rag.rerank import EmbedderReranker

    from .test_vectors import CountingEmbedder

    corpus = [{"_id": f"d{i}", "text": f"document {i} about topic{i} and more words {i}"} for i in range(12)]
    path = write_dataset(tmp_path / "twelve", corpus, [{"_id": "q1", "text": "topic3 words"},
                                                      {"_id": "q2", "text": "topic7 document"}],
                         [("q1", "d3", 1), ("q2", "d7", 1)])
    dataset, scratch = beir.load(path), tmp_path / "scratch"
    options = runner.EvalOptions.original(fts_language="English")
    inner = CountingEmbedder()
    variant = runner.Variant("hybrid+rerank", "hybrid",
                             reranker=EmbedderReranker(runner.lazy_rerank_embedder(inner, scratch / "cache"), top_n=3))
    first = runner.run(dataset, FakeEmbedder(), options, scratch, [variant])
    assert inner.documents <= 1 + 2 + 2 * 3 < 12  # warm-up, two questions, three passages each
    assert first.modes["hybrid+rerank"].timings["rerank"] > 0
    variant.reranker.embedder.cache.flush()
    again = CountingEmbedder()
    rerun = runner.Variant("hybrid+rerank", "hybrid",
                           reranker=EmbedderReranker(runner.lazy_rerank_embedder(again, scratch / "cache"), top_n=3))
    second = runner.run(dataset, FakeEmbedder(), options, scratch, [rerun])
    assert again.documents == 1  # the warm-up only: passages and questions came from the cache
    assert second.modes["hybrid+rerank"].metrics == first.modes["hybrid+rerank"].metrics


def test_the_eval_store_searches_each_chunk_with_its_records_title(tmp_path):
    long_text = " ".join(["Filler words about nothing in particular."] * 40) + " The end."
    path = write_dataset(tmp_path / "titled",
                         [{"_id": "T", "title": "Cerebral white matter", "text": long_text},
                          {"_id": "U", "text": "Unrelated text."}],
                         [{"_id": "q", "text": "alpha"}], [("q", "T", 1)])
    dataset = beir.load(path)
    assert dataset.titles == {"T": "Cerebral white matter", "U": ""}
    store, chunks, _ = runner.build_store(dataset, CountingTableEmbedder(), runner.EvalOptions.original(),
                                          tmp_path / "lance", tmp_path / "cache")
    found = store.search_fulltext("white matter", [runner.SCRATCH_AREA], 10)
    assert chunks > 2 and len(found) == chunks - 1                     # every chunk of T, none of U
    shown = {t.hit.chunk_index for t in found if "white matter" in t.hit.text}
    assert shown == {0}                     # the title is in the first chunk's text only: shown without it
