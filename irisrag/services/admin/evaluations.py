"""Evaluation runs for the admin page: each run with its change against the previous comparable one."""
from __future__ import annotations

from dataclasses import dataclass

from irisrag.models import EvalRun

SHOWN = ("ndcg@10", "recall@10", "recall@100", "mrr@10", "context_recall", "sources_recall", "nearest_recall",
         "empty_context_rate", "offtopic_empty_rate")


@dataclass(frozen=True)
class RunView:
    run: EvalRun
    metrics: dict[str, float]
    change: dict[str, float | None]  # against the previous comparable run; None when there is none


def recent_runs(limit: int = 200) -> list[RunView]:
    """Return the newest runs, each compared with the comparable run before it."""
    runs = list(EvalRun.select().order_by(EvalRun.created_at.desc(), EvalRun.id.desc()).limit(limit))
    views = []
    for index, run in enumerate(runs):
        earlier = next((r for r in runs[index + 1:] if _comparable(r, run)), None)
        metrics = run.metrics
        before = earlier.metrics if earlier else {}
        change = {k: (round(metrics[k] - before[k], 4) + 0.0 if k in metrics and k in before else None) for k in SHOWN}
        views.append(RunView(run, metrics, change))
    return views


def _comparable(a: EvalRun, b: EvalRun) -> bool:
    """Tell whether two runs measured the same thing: data, mode, embedder, query count and settings."""
    return ((a.dataset, a.split, a.mode, a.embedder_key, a.queries, a.params)
            == (b.dataset, b.split, b.mode, b.embedder_key, b.queries, b.params))
