"""Tune the hybrid fusion on cached retrieval legs (how the first default in ``fusion.py`` was chosen;
the current one, per document: ``bench/fusion_replay.py``).

    python -m irisrag.evaluation.tune collect DATASET_DIR SPLIT LANGUAGE OUT.pkl [--half even|odd|all]
    python -m irisrag.evaluation.tune grid TUNE.pkl [TUNE.pkl ...] --report REPORT.pkl [...]

``collect`` runs both legs once per query (the runner's scratch store, USE embedder) and
keeps them; ``grid`` scores fusion settings on the tuning files (scifact's train split,
the even half of each XQuAD set) and prints the best ones with their scores on the report
files (scifact test, the odd halves). Tuning selects by the worst margin to the better
single leg over the tuning sets, so one setting has to serve every set.
"""
from __future__ import annotations

import hashlib
import itertools
import pickle
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from irisrag.evaluation import beir
from irisrag.evaluation.metrics import documents_by_best_chunk, mean_metrics
from irisrag.evaluation.runner import SCRATCH_AREA, EvalOptions, build_store
from irisrag.evaluation.vectors import embed_queries
from irisrag.rag import fusion
from irisrag.rag.lexical import terms


def half(query_id: str) -> str:
    """Return the deterministic half ("even" or "odd") a query belongs to."""
    return "even" if hashlib.sha256(query_id.encode()).digest()[0] % 2 == 0 else "odd"


def collect(directory: str, split: str, language: str, out: str, which: str = "all") -> None:
    """Run both legs for every query of the split (or one half) and pickle them."""
    from irisrag.embeddings import UseEmbedder

    dataset = beir.load(directory, split)
    if which != "all":
        keep = {q: t for q, t in dataset.queries.items() if half(q) == which}
        dataset = replace(dataset, queries=keep, qrels={q: dataset.qrels[q] for q in keep})
    embedder, options = UseEmbedder(), EvalOptions.original(fts_language=language)
    scratch = Path(tempfile.mkdtemp(prefix="irisrag-tune-"))
    cache = Path("instance/tmp/eval/cache")
    try:
        store, _, _ = build_store(dataset, embedder, options, scratch / "lancedb", cache, print)
        vectors, _ = embed_queries(embedder, list(dataset.queries.values()),
                                   cache / f"tune-{dataset.fingerprint[:12]}-{split}-{which}.npz")
        corpus_ids = list(dataset.corpus)
        rows = []
        for (query_id, question), vector in zip(dataset.queries.items(), vectors, strict=True):
            dense = store.search(vector, [SCRATCH_AREA], 256)
            lexical = store.search_fulltext(question, [SCRATCH_AREA], 256, vector=vector)
            rows.append({
                "id": query_id, "terms": terms(question),
                "dense": [((h.document_id, h.chunk_index), h.score) for h in dense],
                "lexical": [((t.hit.document_id, t.hit.chunk_index), t.bm25) for t in lexical],
                "coverage": fusion.term_coverage(terms(question), (t.hit.text for t in lexical)),
            })
        with open(out, "wb") as handle:
            pickle.dump({"name": f"{dataset.name}:{split}:{which}", "corpus": corpus_ids,
                         "qrels": dataset.qrels, "rows": rows}, handle)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def score(data: dict, settings: fusion.FusionSettings | str) -> float:
    """Return nDCG@10 of a fusion setting (or of the leg "dense" / "lexical") on collected legs."""
    rankings = {}
    for row in data["rows"]:
        if settings in ("dense", "lexical"):
            keys = [k for k, _ in row[settings]]
        else:
            weight = fusion.lexical_weight(settings, row["coverage"])
            keys = fusion.fuse(row["dense"], row["lexical"], weight, settings)[:256]
        rankings[row["id"]] = [data["corpus"][d] for d in documents_by_best_chunk(k[0] for k in keys)]
    return mean_metrics(rankings, data["qrels"])["ndcg@10"]


def candidates() -> list[fusion.FusionSettings]:
    """Return the grid of fusion settings tried (constant weights: floor = full = 0)."""
    grid = []
    spans = ((0.0, 0.0), (0.2, 0.6), (0.3, 0.7), (0.4, 0.8), (0.5, 0.9), (0.3, 0.9), (0.5, 1.0), (0.6, 1.0))
    for method, weight, (floor, full) in itertools.product(("rrf", "convex"), (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                                                           spans):
        grid.append(fusion.FusionSettings.of(method=method, lexical_weight=weight, coverage_floor=floor,
                                             coverage_full=full, weight_from="all", document_share=0.0))
    return grid


def grid(tune_files: list[str], report_files: list[str], top: int = 15) -> None:
    """Print the best settings by worst margin to the better leg on the tuning sets."""
    tune = [pickle.load(open(f, "rb")) for f in tune_files]
    report = [pickle.load(open(f, "rb")) for f in report_files]
    best_leg = {d["name"]: max(score(d, "dense"), score(d, "lexical")) for d in tune + report}
    for d in tune + report:
        print(f"{d['name']:<32} dense {score(d, 'dense'):.4f} lexical {score(d, 'lexical'):.4f}")
    results = []
    for settings in candidates():
        margins = [score(d, settings) - best_leg[d["name"]] for d in tune]
        results.append((min(margins), sum(margins), settings, margins))
    results.sort(key=lambda r: (-r[0], -r[1]))
    for worst, total, settings, margins in results[:top]:
        held = [score(d, settings) - best_leg[d["name"]] for d in report]
        print(f"worst {worst:+.4f} sum {total:+.4f} tuning {' '.join(f'{m:+.4f}' for m in margins)} "
              f"held-out {' '.join(f'{m:+.4f}' for m in held)}  {settings}")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "collect":
        collect(*args)
    else:
        split_at = args.index("--report")
        grid(args[:split_at], args[split_at + 1:])
