"""Grid the term bridge (TERM_BRIDGE, BRIDGE_*) and the evidence threshold on the product's path.

    python -m bench.bridge_replay DATASET_DIR LANGUAGE [--negatives DIR ...] [--limit N]
                                  [--similarity 0.75,0.8] [--chunks 20] [--evidence 0.36] [--json OUT]

Builds the eval's scratch store once (``irisrag.evaluation.runner``: the product's chunker,
the USE embedder, LanceDB full text in LANGUAGE) and asks every test question, and every
test question of each ``--negatives`` set (off-topic controls), through
``retrieve.build_context`` (the product's ranking, term bridge, gate, caps and sources) once
per combination of the bridge's similarity and chunk count and GATE_MIN_EVIDENCE, plus once
with the bridge off. Each row prints nDCG@10, context_recall, sources_recall and
offtopic_empty_rate on the tuning half (query ids whose SHA-256 starts with an even byte,
``evaluation.tune.half``), the held-out half and all questions. Both legs' first searches are
the same in every row, so they are memoised per process (the scores are unchanged; only the
timings would be, so none are printed).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from irisrag.evaluation import beir, runner
from irisrag.evaluation.tune import half
from irisrag.rag.bridge import BridgeSettings

CACHE = Path("instance/tmp/eval/cache")
METRICS = ("ndcg@10", "context_recall", "sources_recall", "empty_context_rate")


class Memo:
    """The store with its searches memoised (a search's answer depends only on its arguments here)."""

    def __init__(self, store) -> None:
        self.store, self.seen = store, {}

    def search(self, vector, areas, k):
        key = ("v", vector.tobytes(), tuple(areas), k)
        if key not in self.seen:
            self.seen[key] = self.store.search(vector, areas, k)
        return self.seen[key]

    def search_fulltext(self, text, areas, k, *, vector=None):
        key = ("t", text, tuple(areas), k)
        if key not in self.seen:
            self.seen[key] = self.store.search_fulltext(text, areas, k, vector=vector)
        return self.seen[key]


def _subset(questions: runner.Questions, part: str) -> runner.Questions:
    # off-topic ids are "n:id": halve them by their own id, as bench/gate_replay.py does
    keep = [i for i, q in enumerate(questions.queries) if half(q.split(":", 1)[-1]) == part]
    ids = [list(questions.queries)[i] for i in keep]
    return runner.Questions({q: questions.queries[q] for q in ids},
                            {q: questions.qrels[q] for q in ids if q in questions.qrels},
                            questions.vectors[keep], 0.0)


def _row(dataset, embedder, options, store, judged, off, settings) -> dict:
    """The metrics of one setting on the tuning half, the held-out half and all questions."""
    result, sizes = {}, {}
    for part in ("even", "odd"):
        questions, negatives = _subset(judged, part), _subset(off, part) if off else None
        modes = runner.evaluate(dataset, embedder, replace(options, settings=settings), store, questions,
                                ["hybrid"], negatives=negatives)
        result[part] = modes["hybrid"].metrics
        sizes[part] = (len(questions.queries), len(negatives.queries) if negatives else 0)
    result["all"] = {}
    for name in result["even"]:
        n = [sizes[p][1 if name == "offtopic_empty_rate" else 0] for p in ("even", "odd")]
        result["all"][name] = (result["even"][name] * n[0] + result["odd"][name] * n[1]) / max(sum(n), 1)
    return result


def _print(label: str, row: dict) -> None:
    cells = []
    for name in (*METRICS, "offtopic_empty_rate"):
        values = [row[p].get(name) for p in ("even", "odd", "all")]
        if values[0] is not None:
            cells.append(f"{name.split('@')[0][:8]} " + "/".join(f"{v:.3f}" for v in values))
    print(f"{label:<34} " + "  ".join(cells), flush=True)


def main(argv: list[str] | None = None) -> None:
    from irisrag.embeddings import UseEmbedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory")
    parser.add_argument("language")
    parser.add_argument("--negatives", action="append", default=[])
    parser.add_argument("--limit", type=int)
    parser.add_argument("--similarity", default="0.8")
    parser.add_argument("--chunks", default="20")
    parser.add_argument("--evidence", default="0.36")
    parser.add_argument("--credit", default="1", help="BRIDGE_EVIDENCE values: the gate's credit for bridged words")
    parser.add_argument("--dictionary", default="", help="BRIDGE_DICTIONARY: a word list's path ('' for none)")
    parser.add_argument("--dictionary-gate", default="0", help="BRIDGE_DICTIONARY_GATE values (0, 1)")
    parser.add_argument("--dictionary-credit", default="1", help="BRIDGE_DICTIONARY_EVIDENCE values")
    parser.add_argument("--no-baseline", action="store_true", help="leave out the row with the bridge off")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    dataset = beir.load(args.directory, "test", args.limit)
    embedder = UseEmbedder()
    from irisrag.embeddings import UseEmbedder
    from irisrag.rag.bridge import WordVectors

    base = runner.EvalOptions.original(fts_language=args.language, words=WordVectors(UseEmbedder().embed_documents))
    base = replace(base, settings=replace(base.settings, mode="hybrid",
                                          gate=replace(base.settings.gate, rule="evidence")))
    scratch = Path(tempfile.mkdtemp(prefix="irisrag-bridge-"))
    rows = {}
    try:
        store, chunks, _ = runner.build_store(dataset, embedder, base, scratch / "lancedb", CACHE,
                                              lambda m: print(m, file=sys.stderr))
        store = Memo(store)
        judged = runner.questions_of(dataset, embedder, CACHE)
        others = [runner.questions_of(beir.load(p, "test"), embedder, CACHE, judged=False) for p in args.negatives]
        off = runner.Questions({f"{i}:{q}": t for i, o in enumerate(others) for q, t in o.queries.items()}, {},
                               np.concatenate([o.vectors for o in others]), 0.0) if others else None
        print(f"{dataset.name}: {chunks} chunks, {len(judged.queries)} questions; "
              "tune / held-out / all", flush=True)
        for evidence in [float(e) for e in args.evidence.split(",")]:
            gate = replace(base.settings.gate, min_evidence=evidence)
            variants = [("none", BridgeSettings.plain())] * (not args.no_baseline) + [
                (f"sim {s} chunks {c} credit {g}" + (f" dict gate {k} credit {d}" if args.dictionary else ""),
                 BridgeSettings.plain("embedder", int(c), float(s), float(g), dictionary=args.dictionary,
                                dictionary_evidence=float(d), dictionary_gate=k == "1", dictionary_cache=str(CACHE)))
                for s in args.similarity.split(",") for c in args.chunks.split(",")
                for g in args.credit.split(",") for d in args.dictionary_credit.split(",")
                for k in args.dictionary_gate.split(",")]
            for label, bridge in variants:
                settings = replace(base.settings, gate=gate, bridge=bridge)
                row = _row(dataset, embedder, base, store, judged, off, settings)
                rows[f"evidence {evidence} {label}"] = row
                _print(f"ev {evidence} {label}", row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
