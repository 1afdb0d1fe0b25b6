"""What the term bridge costs a question: cold (no word vector cached) and warm, against the rest.

    python -m bench.bridge_bench [DATASET_DIR] [--language German] [--queries 40]

Builds the eval's scratch store of a BEIR set (default ``../shared/eval/xquad/de-en``, German
questions over English paragraphs: the bridge's case) and asks its first questions through
``retrieve.build_context`` (hybrid, the app's defaults) five ways, interleaved per question:
the bridge off; on with an empty word-vector cache (every word embedded: a fresh process, a
new collection); on with the cache the earlier questions filled (a process that has answered
questions over the collection); then the same question again, every word cached, with
and without BRIDGE_VECTOR_SEARCH (the bridged question's second embedding and vector search;
the two in alternating order). Prints per-question milliseconds (median and 90th percentile)
of the ``bridge`` stage and of the whole context building, and the ratios to the bridge-off
run of the same question. The question embedding is included (``embed`` stage) in every way.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from irisrag.evaluation import beir, runner
from irisrag.rag import bridge
from irisrag.rag.bridge import BridgeSettings
from irisrag.rag.retrieve import GateSettings, build_context

CACHE = Path("instance/tmp/eval/cache")


def _p90(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.9 * len(values)) - 1)]


def _ask(question, embedder, store, settings, words) -> dict[str, float]:
    context = build_context(question, [runner.SCRATCH_AREA], embedder=embedder, store=store, settings=settings,
                            words=words)
    return {"bridge": 1000 * context.timings["bridge"], "total": 1000 * context.timings["total"],
            "bridged": len(context.bridge.words)}


def main(argv: list[str] | None = None) -> None:
    from irisrag.embeddings import UseEmbedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", default="../shared/eval/xquad/de-en")
    parser.add_argument("--language", default="German")
    parser.add_argument("--queries", type=int, default=40)
    args = parser.parse_args(argv)
    dataset = beir.load(args.directory, "test", args.queries)
    embedder = UseEmbedder()
    options = runner.EvalOptions.original(fts_language=args.language)
    on = replace(options.settings, mode="hybrid", gate=GateSettings.of(), bridge=BridgeSettings.plain("embedder"))
    off = replace(on, bridge=BridgeSettings.plain())
    words_only = replace(on, bridge=replace(on.bridge, vector_search=False))
    scratch = Path(tempfile.mkdtemp(prefix="irisrag-bridge-bench-"))
    rows: dict[str, list[dict[str, float]]] = {"off": [], "cold": [], "warm": [], "repeated": [],
                                               "repeated, no vector search": []}
    try:
        store, chunks, _ = runner.build_store(dataset, embedder, options, scratch / "lancedb", CACHE,
                                              lambda m: print(m, file=sys.stderr))
        warm = bridge.WordVectors(embedder.embed_documents)
        for question in dataset.queries.values():
            rows["off"].append(_ask(question, embedder, store, off, warm))
            cold = bridge.WordVectors(embedder.embed_documents)   # nothing cached
            rows["cold"].append(_ask(question, embedder, store, on, cold))
            rows["warm"].append(_ask(question, embedder, store, on, warm))
            pair = [("repeated", on), ("repeated, no vector search", words_only)]
            for way, settings in pair if len(rows["off"]) % 2 else reversed(pair):  # alternate the order
                rows[way].append(_ask(question, embedder, store, settings, warm))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    base = [r["total"] for r in rows["off"]]
    bridged = sum(1 for r in rows["warm"] if r["bridged"])
    print(f"\n{dataset.name}: {chunks} chunks, {len(base)} questions, {bridged} of them bridged\n")
    print("| way | bridge stage ms (median / p90) | context ms (median / p90) | context / bridge off (median) |")
    print("|---|---|---|---|")
    for way, values in rows.items():
        stage, total = [r["bridge"] for r in values], [r["total"] for r in values]
        ratio = statistics.median(t / b for t, b in zip(total, base, strict=True))
        print(f"| {way} | {statistics.median(stage):.1f} / {_p90(stage):.1f} | "
              f"{statistics.median(total):.1f} / {_p90(total):.1f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
