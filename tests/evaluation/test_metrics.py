"""Metrics against values computed by hand, and the BEIR loader."""
from __future__ import annotations

import json
import math

import pytest

from irisrag.errors import ValidationError
from irisrag.evaluation import beir
from irisrag.evaluation.metrics import (
    documents_by_best_chunk,
    mean_metrics,
    mrr_at,
    ndcg_at,
    precision_at,
    query_metrics,
    recall_at,
)


def test_metrics_one_query_by_hand():
    relevant = {"d1": 1, "d3": 2}
    ranking = ["d2", "d1", "d3", "d4"]
    dcg = 1 / math.log2(3) + 2 / math.log2(4)          # ranks 2 and 3
    idcg = 2 / math.log2(2) + 1 / math.log2(3)         # the grade-2 document first
    assert ndcg_at(ranking, relevant, 10) == pytest.approx(dcg / idcg)
    assert ndcg_at(ranking, relevant, 10) == pytest.approx(0.6199, abs=1e-4)
    assert ndcg_at(ranking, relevant, 2) == pytest.approx((1 / math.log2(3)) / idcg)
    assert recall_at(ranking, relevant, 2) == 0.5 and recall_at(ranking, relevant, 5) == 1.0
    assert mrr_at(ranking, relevant, 10) == 0.5 and mrr_at(ranking, relevant, 1) == 0.0
    assert precision_at(ranking, relevant, 5) == pytest.approx(0.4)
    assert ndcg_at(["d3", "d1"], relevant, 10) == pytest.approx(1.0)


def test_metrics_mean_over_queries_counts_missing_rankings_as_empty():
    qrels = {"q1": {"d1": 1, "d3": 2}, "q2": {"d9": 1}, "q3": {}}
    rankings = {"q1": ["d2", "d1", "d3"]}
    means = mean_metrics(rankings, qrels)
    assert means["ndcg@10"] == pytest.approx(0.6199 / 2, abs=1e-4)
    assert means["recall@5"] == pytest.approx(0.5)
    assert means["mrr@10"] == pytest.approx(0.25)
    assert means["p@5"] == pytest.approx(0.2)
    assert set(means) == set(query_metrics([], {"x": 1}))


def test_metrics_recall_at_100_and_best_chunk_ranking():
    ranking = [f"n{i}" for i in range(99)] + ["hit", "late"]
    assert recall_at(ranking, {"hit": 1, "late": 1}, 100) == 0.5
    assert documents_by_best_chunk([7, 3, 7, 5, 3]) == [7, 3, 5]


def write_dataset(root, corpus, queries, qrels, split="test"):
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus), encoding="utf-8")
    (root / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in queries), encoding="utf-8")
    (root / "qrels").mkdir(exist_ok=True)
    lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t{s}" for q, d, s in qrels]
    (root / "qrels" / f"{split}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_beir_loader_reads_split_titles_and_limit(tmp_path):
    path = write_dataset(
        tmp_path / "sets" / "tiny",
        [{"_id": "a", "title": "Titel", "text": "Text A"}, {"_id": "b", "text": "Text B"}],
        [{"_id": "q1", "text": "eins"}, {"_id": "q2", "text": "zwei"}, {"_id": "q3", "text": "ohne Urteil"}],
        [("q1", "a", 1), ("q2", "b", 2), ("q2", "a", 0), ("q1", "zzz", 1)])
    data = beir.load(path)
    assert data.name == "tiny" and data.split == "test"
    assert data.corpus == {"a": "Titel\n\nText A", "b": "Text B"}
    assert data.queries == {"q1": "eins", "q2": "zwei"}          # q3 has no judgement
    assert data.qrels == {"q1": {"a": 1}, "q2": {"b": 2}}        # score 0 and unknown documents dropped
    assert list(beir.load(path, limit=1).queries) == ["q1"]
    write_dataset(tmp_path / "sets" / "other", [{"_id": "x", "text": "x"}], [], [])
    assert beir.load(path).name == "sets/tiny"  # a sibling dataset: the parent names the family
    with pytest.raises(ValidationError):
        beir.load(path, split="train")
