"""Replay the evidence gate's weights and threshold on the product's path, term bridge included.

    python -m bench.evidence_replay collect DATASET_DIR LANGUAGE OUT.pkl [--negatives DIR ...] [--embedder use|e5]
    python -m bench.evidence_replay grid OUT.pkl [OUT.pkl ...] [--off NAME ...] [--documents 5 8] [--top 8]
    python -m bench.evidence_replay report OUT.pkl [OUT.pkl ...] --setting bridged,8,0.85,0.3,0.43 [...]

``collect`` builds the eval's scratch store (``irisrag.evaluation.runner``) with the embedder
(``--embedder``: ``use``, the default, or ``e5``; the term bridge's words are USE's either way), asks every test
question of the set and of each ``--negatives`` set (off-topic controls) through
``retrieve.build_context`` with the app's defaults (hybrid, term bridge with its vector
search, gate ``evidence``) and keeps what the gate saw: each candidate's document, lexical
verdict, and the evidence parts of the first documents (their cosine, with and without the
bridge's cosines, their coverage and their missing share), taken from ``gate.document_evidence``
itself (evidence is linear in GATE_COVERAGE_WEIGHT and GATE_MISSING_WEIGHT). It checks that
the replay of the app's settings gives the context the product built, question by question.

``grid`` replays every combination of the weights (``--coverage``, ``--missing``), the cosine
(``asked``: the question's own; ``bridged``: the better of it and the question in the
documents' words, BRIDGE_VECTOR_SEARCH) and the threshold, and prints context_recall and
offtopic_empty_rate on the tuning half (query ids whose SHA-256 starts with an even byte,
``evaluation.tune.half``), the held-out half and all questions. The choice rule: per weight
pair the smallest threshold at which every off-topic control reaches 0.90 on the tuning
half; among those, the rows within 0.005 of the smallest summed shortfall of context_recall
under its goal (``--goal SET=VALUE``, the issue's 0.95 x R@10) on the tuning half, and of
them the one with the highest off-topic minimum on the tuning half (then the smaller shortfall).
``report`` prints the same rates for named settings.
"""
from __future__ import annotations

import argparse
import itertools
import pickle
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

from irisrag.evaluation import beir, runner
from irisrag.evaluation.tune import half
from irisrag.rag import gate, retrieve
from irisrag.rag.bridge import BridgeSettings
from irisrag.rag.retrieve import GateSettings

CACHE = Path("instance/tmp/eval/cache")
MAX_DOCUMENTS = 10   # the first documents whose evidence parts are kept (GATE_TOP_DOCUMENTS up to this)
DEFAULT_GOALS = {"xquad/de-en": 0.919, "xquad/de": 0.943, "xquad/en": 0.947, "scifact-subset": 0.832}


def _parts(pairs, ranks, question_terms, credit, cosines) -> dict:
    """The evidence of each of the first MAX_DOCUMENTS documents split into its parts.

    Per document: its rank, its cosine, its cosine with the bridge's cosines, its coverage
    share and its missing share.
    """
    hits, matches = [h for h, _ in pairs], [m for _, m in pairs]
    rank_of = dict(zip((h.document_id for h in hits), ranks, strict=True))

    def evidence(coverage: float, missing: float, with_cosines: bool):
        weights = GateSettings.of(top_documents=MAX_DOCUMENTS, coverage_weight=coverage, missing_weight=missing)
        return gate.document_evidence(hits, matches, ranks, question_terms, weights, credit,
                                      cosines if with_cosines else None)
    asked, bridged = evidence(0, 0, False), evidence(0, 0, True)
    covered, missing = evidence(1, 0, False), evidence(0, 1, False)
    return {d: (rank_of[d], asked[d], bridged[d], covered[d] - asked[d], asked[d] - missing[d]) for d in asked}


def collect(directory: str, language: str, out: str, negatives: list[str], embedder_name: str = "use") -> None:
    from irisrag.embeddings import build_embedder
    from irisrag.rag.bridge import WordVectors

    dataset, embedder = beir.load(directory, "test"), build_embedder({"EMBEDDER": embedder_name})
    settings = replace(runner.EvalOptions.original().settings, mode="hybrid", gate=GateSettings.of(),
                       bridge=BridgeSettings.plain("embedder"))
    seen: list[dict] = []
    words = WordVectors(build_embedder({"EMBEDDER": "use"}).embed_documents)   # the bridge's words: USE's
    product = gate._passing   # the gate lives in rag/gate.py

    def spy(pairs, ranks, question_terms, settings, credit=None, cosines=None, *rest):
        seen.append({"parts": _parts(pairs, ranks, question_terms, credit, cosines),
                     "candidates": [(h.document_id, gate.passes_lexical(m, question_terms, settings))
                                    for h, m in pairs]})
        return product(pairs, ranks, question_terms, settings, credit, cosines, *rest)

    scratch = Path(tempfile.mkdtemp(prefix="irisrag-evidence-"))
    gate._passing = spy
    try:
        options = runner.EvalOptions.original(settings=settings, fts_language=language)
        store, chunks, _ = runner.build_store(dataset, embedder, options, scratch / "lancedb", CACHE,
                                              lambda m: print(m, file=sys.stderr))
        corpus = list(dataset.corpus)
        sets = [("judged", runner.questions_of(dataset, embedder, CACHE))]
        sets += [("off", runner.questions_of(beir.load(p, "test"), embedder, CACHE, judged=False)) for p in negatives]
        result: dict = {"name": dataset.name, "judged": [], "off": []}
        for kind, questions in sets:
            for (query_id, text), vector in zip(questions.queries.items(), questions.vectors, strict=True):
                seen.clear()
                context = retrieve.build_context(text, [runner.SCRATCH_AREA], embedder=embedder, store=store,
                                                 settings=settings, query_vector=vector, words=words)
                relevant = {corpus.index(d) for d in questions.qrels.get(query_id, {}) if d in dataset.corpus}
                result[kind].append({"id": query_id, "seen": seen[0] if seen else None, "relevant": relevant,
                                     "context": {c.hit.document_id for c in context.chunks}})
            print(f"{kind}: {len(questions.queries)} questions", file=sys.stderr, flush=True)
    finally:
        gate._passing = product
        shutil.rmtree(scratch, ignore_errors=True)
    _check(result, settings.gate)
    Path(out).write_bytes(pickle.dumps(result))


def context_documents(seen: dict | None, coverage: float, missing: float, threshold: float, bridged: bool,
                      documents: int = 5, chunks: int = 9, per_document: int = 4) -> set[int]:
    """The documents with a chunk in the context under these settings (``retrieve.gate_candidates``)."""
    if seen is None:
        return set()
    evidence = {d: (b if bridged else a) + coverage * c - missing * m
                for d, (rank, a, b, c, m) in seen["parts"].items() if rank < documents}
    if not any(e >= threshold for e in evidence.values()):
        return set()
    kept: Counter = Counter()
    for document, lexical in seen["candidates"]:
        if (evidence.get(document, -9.0) >= threshold or lexical) and kept[document] < per_document \
                and sum(kept.values()) < chunks:
            kept[document] += 1
    return set(kept)


def _check(result: dict, settings: GateSettings) -> None:
    """The replay of the product's own settings must give the product's context, question by question."""
    wrong = sum(context_documents(q["seen"], settings.coverage_weight, settings.missing_weight,
                                  settings.min_evidence, True, settings.top_documents) != q["context"]
                for q in result["judged"] + result["off"])
    if wrong:
        raise SystemExit(f"replay differs from the product for {wrong} questions")


def _rates(data: dict, args: tuple) -> dict[str, tuple[float, float]]:
    rates = {}
    for part in ("even", "odd", "all"):
        judged = [q for q in data["judged"] if part == "all" or half(q["id"]) == part]
        off = [q for q in data["off"] if part == "all" or half(q["id"]) == part]
        found = [r in context_documents(q["seen"], *args) for q in judged for r in q["relevant"]]
        empty = [not context_documents(q["seen"], *args) for q in off]
        rates[part] = (sum(found) / max(len(found), 1), sum(empty) / len(empty) if empty else None)
    return rates


def grid(paths: list[str], args: argparse.Namespace) -> None:
    sets = [pickle.loads(Path(p).read_bytes()) for p in paths]
    goals = {**DEFAULT_GOALS, **dict(g.split("=") for g in args.goal)}
    controls = set(args.off) if args.off else {s["name"] for s in sets if s["off"]}
    rows = []
    for cosine, coverage, missing, documents in itertools.product(args.cosine, args.coverage, args.missing,
                                                                  args.documents):
        for threshold in args.threshold:
            rates = {s["name"]: _rates(s, (coverage, missing, threshold, cosine == "bridged", documents))
                     for s in sets}
            off = [rates[n]["even"][1] for n in controls if rates[n]["even"][1] is not None]
            if min(off) >= 0.90:
                short = sum(max(0.0, float(goals.get(n, 0)) - r["even"][0]) for n, r in rates.items())
                rows.append((short, -min(off), f"{cosine} documents {documents}", coverage, missing, threshold,
                             rates))
                break
    best = min(row[0] for row in rows)
    near = sorted((row for row in rows if row[0] <= best + 0.005), key=lambda row: (row[1], row[0]))
    rows = near + sorted((row for row in rows if row[0] > best + 0.005), key=lambda row: row[0])
    print(f"chosen: the first row ({len(near)} within 0.005 of the smallest shortfall)")
    for short, off, cosine, coverage, missing, threshold, rates in rows[: args.top]:
        print(f"{cosine} coverage {coverage} missing {missing} threshold {threshold}: tuning shortfall "
              f"{short:.3f}, tuning off-topic minimum {-off:.3f}")
        for name, r in rates.items():
            _print_rates(name, r)


def report(paths: list[str], settings: list[str]) -> None:
    """Print the rates of named settings (COSINE,DOCUMENTS,COVERAGE,MISSING,THRESHOLD), whatever they reach."""
    sets = [pickle.loads(Path(p).read_bytes()) for p in paths]
    for setting in settings:
        cosine, documents, coverage, missing, threshold = setting.split(",")
        print(f"{cosine} documents {documents} coverage {coverage} missing {missing} threshold {threshold}")
        args = (float(coverage), float(missing), float(threshold), cosine == "bridged", int(documents))
        for data in sets:
            _print_rates(data["name"], _rates(data, args))


def _print_rates(name: str, r: dict) -> None:
    cells = [f"{r[p][0]:.3f}" for p in ("even", "odd", "all")]
    off_cells = [f"{r[p][1]:.3f}" for p in ("even", "odd", "all") if r[p][1] is not None]
    print(f"    {name:<16} context {'/'.join(cells)}" + (f"  off-topic {'/'.join(off_cells)}" if off_cells else ""))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("collect")
    one.add_argument("directory")
    one.add_argument("language")
    one.add_argument("out")
    one.add_argument("--negatives", action="append", default=[])
    one.add_argument("--embedder", default="use", choices=["use", "e5"], help="the app's EMBEDDER (default use)")
    many = sub.add_parser("grid")
    many.add_argument("paths", nargs="+")
    many.add_argument("--off", action="append", default=[], help="sets whose off-topic rate must reach 0.90")
    many.add_argument("--goal", action="append", default=[], help="SET=VALUE: a set's context_recall goal")
    many.add_argument("--coverage", type=float, nargs="+", default=[0.65, 0.7, 0.75, 0.8, 0.85, 0.9])
    many.add_argument("--missing", type=float, nargs="+", default=[0.2, 0.25, 0.3, 0.35, 0.4])
    many.add_argument("--threshold", type=float, nargs="+", default=[x / 100 for x in range(34, 50)])
    many.add_argument("--cosine", nargs="+", default=["asked", "bridged"], choices=["asked", "bridged"])
    many.add_argument("--documents", type=int, nargs="+", default=[5], help="GATE_TOP_DOCUMENTS values (up to 10)")
    many.add_argument("--top", type=int, default=8)
    named = sub.add_parser("report")
    named.add_argument("paths", nargs="+")
    named.add_argument("--setting", action="append", required=True,
                       help="COSINE,DOCUMENTS,COVERAGE,MISSING,THRESHOLD, e.g. bridged,8,0.85,0.3,0.43")
    args = parser.parse_args(argv)
    if args.command == "collect":
        collect(args.directory, args.language, args.out, args.negatives, args.embedder)
    elif args.command == "report":
        report(args.paths, args.setting)
    else:
        grid(args.paths, args)


if __name__ == "__main__":
    main()
