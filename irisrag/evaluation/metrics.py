"""Ranking metrics (as BEIR / trec_eval compute them) and document ranking by best chunk.

For one query with ranked document ids ``r`` and judgements ``rel`` (relevance > 0):

* nDCG@k   = DCG@k / IDCG@k with DCG = sum over ranks i = 1..k of rel(r_i) / log2(i + 1)
             (linear gain, as trec_eval and pytrec_eval); IDCG sorts all judgements.
* Recall@k = |relevant among the first k| / |relevant|
* MRR@k    = 1 / rank of the first relevant document within the first k, else 0
* P@k      = |relevant among the first k| / k

Queries without a relevant document are skipped; the dataset value is the mean over queries.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

METRICS = ("ndcg@10", "recall@5", "recall@10", "recall@100", "mrr@10", "p@5")


def ndcg_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Return nDCG@k with linear gains."""
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranking[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(gain / math.log2(i + 2) for i, gain in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Return the share of the relevant documents found in the first k."""
    return sum(1 for doc in ranking[:k] if doc in relevant) / len(relevant) if relevant else 0.0


def mrr_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Return the reciprocal rank of the first relevant document within the first k."""
    return next((1.0 / (i + 1) for i, doc in enumerate(ranking[:k]) if doc in relevant), 0.0)


def precision_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Return the share of the first k ranks that hold a relevant document."""
    return sum(1 for doc in ranking[:k] if doc in relevant) / k


def query_metrics(ranking: Sequence[str], relevant: Mapping[str, int]) -> dict[str, float]:
    """Return every metric of METRICS for one query."""
    return {
        "ndcg@10": ndcg_at(ranking, relevant, 10),
        "recall@5": recall_at(ranking, relevant, 5),
        "recall@10": recall_at(ranking, relevant, 10),
        "recall@100": recall_at(ranking, relevant, 100),
        "mrr@10": mrr_at(ranking, relevant, 10),
        "p@5": precision_at(ranking, relevant, 5),
    }


def mean_metrics(rankings: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]) -> dict[str, float]:
    """Return each metric averaged over the judged queries (a missing ranking counts as empty)."""
    judged = [q for q, rel in qrels.items() if rel]
    totals = dict.fromkeys(METRICS, 0.0)
    for query in judged:
        for name, value in query_metrics(rankings.get(query, ()), qrels[query]).items():
            totals[name] += value
    return {name: (total / len(judged) if judged else 0.0) for name, total in totals.items()}


def documents_by_best_chunk(document_ids: Iterable[int]) -> list[int]:
    """Rank documents by their best chunk: the order of first appearance in a ranked chunk list."""
    return list(dict.fromkeys(document_ids))
