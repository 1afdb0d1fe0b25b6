"""Replay context-gate rules on retrieval legs collected once per set (how GATE_RULE's default was chosen).

    python -m bench.gate_replay collect DATASET_DIR LANGUAGE OUT.pkl [--negatives DIR ...]
    python -m bench.gate_replay report OUT.pkl [OUT.pkl ...]
    python -m bench.gate_replay grid OUT.pkl [OUT.pkl ...] [--top-documents 5] [--half even|odd|all]
    python -m bench.gate_replay subset DATASET_DIR OUT_DIR [--others 1200]

``subset`` writes a smaller copy of a BEIR set (SciFact: 5,183 abstracts, too slow to embed
on the shared 2-core machine): every document judged for its test questions plus ``--others``
documents drawn at random (seed 0), the test questions and judgements unchanged.

``collect`` builds the eval's scratch store (``irisrag.evaluation.runner``: the product's
chunker, the USE embedder, LanceDB full text in LANGUAGE), asks every test question of the
set and every test question of each ``--negatives`` set (off-topic controls) through both
legs once, and pickles the vector leg (key, cosine), the full-text leg (key, BM25, cosine),
the product's fused order (``retrieve.fuse_candidates``, default fusion) and the chunk texts.

``report`` runs the product's gate (``retrieve.gate_candidates``) with each rule of
``RULES`` on those legs and prints, per set, context_recall and offtopic_empty_rate for the
tuning half (query ids whose SHA-256 starts with an even byte, ``evaluation.tune.half``),
the held-out half and all questions, next to R@10 of the fused ranking. The gate and the
caps are the product's code; only the legs are cached, so a rerun with the same legs gives
the same numbers (the legs reproduce ``flask rag eval``: same store, same settings).

``grid`` scores the evidence rule's weights and thresholds on one half (see ``grid``).
"""
from __future__ import annotations

import argparse
import pickle
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from irisrag.evaluation import beir, runner
from irisrag.evaluation.metrics import documents_by_best_chunk, recall_at
from irisrag.evaluation.tune import half
from irisrag.rag import bridge, gate, retrieve
from irisrag.rag.lexical import match, terms
from irisrag.rag.retrieve import GateSettings, RetrievalSettings
from irisrag.vectors.store import Hit

CACHE = Path("instance/tmp/eval/cache")
K = 256


def _ask(store, question: str, vector, settings: RetrievalSettings) -> dict:
    dense = store.search(vector, [runner.SCRATCH_AREA], K)
    text = store.search_fulltext(question, [runner.SCRATCH_AREA], K, vector=vector)
    fused = retrieve.fuse_candidates(dense, text, terms(question), settings)
    return {"dense": [((h.document_id, h.chunk_index), h.score) for h in dense],
            "lexical": [((t.hit.document_id, t.hit.chunk_index), t.bm25, t.hit.score) for t in text],
            "fused": [((h.document_id, h.chunk_index), h.score) for h in fused]}


def collect(directory: str, language: str, out: str, negatives: list[str]) -> None:
    """Build the scratch store once and keep both legs and the fused order of every question."""
    from irisrag.embeddings import UseEmbedder

    dataset = beir.load(directory, "test")
    embedder = UseEmbedder()
    options = runner.EvalOptions.original(fts_language=language, words=bridge.WordVectors(embedder.embed_documents))
    scratch = Path(tempfile.mkdtemp(prefix="irisrag-gate-"))
    try:
        store, chunks, _ = runner.build_store(dataset, embedder, options, scratch / "lancedb", CACHE, print)
        texts = {(doc, c.index): c.text for doc, cs in runner.chunk_corpus(dataset, 700, 150) for c in cs}
        sets = {"judged": runner.questions_of(dataset, embedder, CACHE)}
        for path in negatives:
            other = beir.load(path, "test")
            sets[other.name] = runner.questions_of(other, embedder, CACHE, judged=False)
        rows = {}
        for label, questions in sets.items():
            rows[label] = [{"id": query_id, "question": question, **_ask(store, question, vector, options.settings)}
                           for (query_id, question), vector in zip(questions.queries.items(), questions.vectors,
                                                                   strict=True)]
            print(f"{dataset.name} {label}: {len(rows[label])} questions", file=sys.stderr)
        with open(out, "wb") as handle:
            pickle.dump({"name": dataset.name, "corpus": list(dataset.corpus), "qrels": dataset.qrels,
                         "chunks": chunks, "texts": texts, "rows": rows}, handle)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def subset(directory: str, out: str, others: int) -> None:
    """Write the judged documents plus ``others`` random ones of a BEIR set, with its test split."""
    import json
    import random

    source, target = Path(directory), Path(out)
    records = [json.loads(line) for line in (source / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    judged = {d for docs in beir.read_qrels(source / "qrels" / "test.tsv").values() for d in docs}
    rest = [r for r in records if str(r["_id"]) not in judged]
    keep = judged | {str(r["_id"]) for r in random.Random(0).sample(rest, min(others, len(rest)))}
    (target / "qrels").mkdir(parents=True, exist_ok=True)
    with open(target / "corpus.jsonl", "w", encoding="utf-8") as handle:
        for record in records:
            if str(record["_id"]) in keep:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    shutil.copy(source / "queries.jsonl", target / "queries.jsonl")
    shutil.copy(source / "qrels" / "test.tsv", target / "qrels" / "test.tsv")
    print(f"{len(keep)} documents ({len(judged)} judged) in {target}")


def hits_of(data: dict, row: dict) -> list[Hit]:
    """Rebuild the fused candidate list of a collected question (the product's Hit objects)."""
    return [Hit(doc, runner.SCRATCH_AREA, chunk, None, data["texts"][(doc, chunk)], cos, rank)
            for rank, ((doc, chunk), cos) in enumerate(row["fused"])]


def _prepared(data: dict, row: dict) -> tuple[list[Hit], list, frozenset[str]]:
    """The candidates, their lexical matches and the question's terms (computed once per question)."""
    if "_prepared" not in row:
        hits = hits_of(data, row)
        question_terms = terms(row["question"])
        row["_prepared"] = (hits, [match(question_terms, h.text) for h in hits], question_terms)
    return row["_prepared"]


def context_documents(data: dict, row: dict, settings: RetrievalSettings) -> list[int]:
    """Gate and cap a collected question with the product's code; return the documents in its context."""
    hits, matches, question_terms = _prepared(data, row)
    candidates = retrieve.gate_candidates(hits, matches, question_terms, settings)
    return list(dict.fromkeys(c.hit.document_id for c in candidates if c.kept))


def score_set(data: dict, settings: RetrievalSettings) -> dict[str, dict[str, float]]:
    """Return per half ("even": tuning, "odd": held-out, "all") R@10, context_recall and each off-topic empty rate."""
    corpus = data["corpus"]
    values: dict[str, dict[str, list[float]]] = {"even": {}, "odd": {}}
    for label, rows in data["rows"].items():
        for row in rows:
            cell = values[half(row["id"])]
            documents = context_documents(data, row, settings)
            if label == "judged":
                relevant = data["qrels"][row["id"]]
                ranked = [corpus[d] for d in documents_by_best_chunk(k[0] for k, _ in row["fused"])]
                cell.setdefault("R@10", []).append(recall_at(ranked, relevant, 10))
                cell.setdefault("context_recall", []).append(
                    recall_at([corpus[d] for d in documents], relevant, len(documents)))
            else:
                cell.setdefault(f"off:{label}", []).append(0.0 if documents else 1.0)
    values["all"] = {k: values["even"].get(k, []) + values["odd"].get(k, []) for k in values["even"]}
    return {which: {k: float(np.mean(v)) for k, v in cell.items()} for which, cell in values.items()}


RULES: dict[str, GateSettings] = {
    "lexical (the original)": GateSettings.of(rule="lexical"),
    "ranked, top 3, cosine >= 0.35 (the previous default)": GateSettings.of(rule="ranked", top_documents=3),
    **{f"evidence, min {t:.2f}{' (default)' if t == GateSettings.of().min_evidence else ''}":
       GateSettings.of(min_evidence=t) for t in (0.26, 0.28, 0.30, 0.32, 0.34, 0.36)},
}


def report(files: list[str], rules: dict[str, GateSettings]) -> None:
    """Print each rule's numbers per set: tuning half, held-out half, all."""
    sets = [pickle.load(open(f, "rb")) for f in files]
    for name, rule in rules.items():
        settings = replace(RetrievalSettings.original(), gate=rule)
        print(f"\n## {name}: {rule}", flush=True)
        for data in sets:
            numbers = score_set(data, settings)
            cells = [" ".join(f"{k} {v:.3f}" for k, v in numbers[which].items()) for which in ("even", "odd", "all")]
            print(f"{data['name']:<15} tune: {cells[0]} | held-out: {cells[1]} | all: {cells[2]}", flush=True)


def _features(data: dict, row: dict, top_documents: int):
    """Per first document: best cosine and coverage (``gate.term_weights``); and the question's known share."""
    hits, matches, question_terms = _prepared(data, row)
    weights, found = gate.term_weights(question_terms, matches)
    total = sum(weights.values()) or 1.0
    cosine: dict[int, float] = {}
    covered: dict[int, set[str]] = {}
    for hit, found_terms in zip(hits, matches, strict=True):
        if hit.document_id not in cosine and len(cosine) >= top_documents:
            continue
        cosine[hit.document_id] = max(cosine.get(hit.document_id, -1.0), hit.score)
        covered.setdefault(hit.document_id, set()).update(found_terms.terms)
    coverage = np.array([sum(weights[t] for t in covered[d] if t in weights) / total for d in cosine])
    return np.array(list(cosine.values())), coverage, sum(weights[t] for t in found) / total


def _gains(data: dict, rows: list[dict], top_documents: int) -> np.ndarray:
    """Each question's context recall when every chunk of its first documents may pass (GATE_MIN_EVIDENCE -inf)."""
    always = replace(RetrievalSettings.original(), gate=GateSettings.of(top_documents=top_documents, min_evidence=-1e9))
    return np.array([recall_at([data["corpus"][d] for d in context_documents(data, r, always)],
                               data["qrels"][r["id"]], 10_000) for r in rows])


def grid(files: list[str], top_documents: int, which: str = "even") -> None:
    """Print the evidence rule's numbers over a grid of weights and thresholds (numpy, same formula as gate.py).

    The question-level decision (off-topic or not, hence every off-topic rate) is exact. The
    context recall is an upper bound: it lets every chunk of the first documents of an
    on-topic question pass (taken once per question from the product's gate), where the
    product lets only the documents that reach the threshold pass; ``report`` gives the
    exact numbers of chosen settings.
    """
    columns = []
    for data in (pickle.load(open(f, "rb")) for f in files):
        for label, rows in data["rows"].items():
            chosen = [r for r in rows if which in ("all", half(r["id"]))]
            features = [_features(data, r, top_documents) for r in chosen]
            gains, bound = None, 0.90
            if label == "judged":
                gains = _gains(data, chosen, top_documents)
                bound = 0.95 * np.mean([recall_at([data["corpus"][d] for d in documents_by_best_chunk(
                    k[0] for k, _ in r["fused"])], data["qrels"][r["id"]], 10) for r in chosen])
            columns.append((f"{data['name']}<-{label}" if label != "judged" else data["name"], features, gains, bound))
    print("coverage missing threshold  " +
          "  ".join(f"{name} (goal {bound:.3f})" for name, _, _, bound in columns), flush=True)
    for alpha in (0.25, 0.5, 0.65, 0.8, 1.0, 1.25):
        for beta in (0.0, 0.2, 0.4, 0.6, 0.8):
            for threshold in np.arange(0.26, 0.56, 0.02):
                on = [np.array([bool(len(c)) and float(np.max(c + alpha * v - beta * (k - v))) >= threshold
                                for c, v, k in features]) for _, features, _, _ in columns]
                cells = [float(np.mean(o * g)) if g is not None else float(np.mean(~o))
                         for o, (_, _, g, _) in zip(on, columns, strict=True)]
                print(f"{alpha:.2f} {beta:.2f} {threshold:.2f}  " + "  ".join(f"{v:.3f}" for v in cells), flush=True)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gate_replay")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("directory")
    c.add_argument("language")
    c.add_argument("out")
    c.add_argument("--negatives", nargs="*", default=[])
    r = sub.add_parser("report")
    r.add_argument("files", nargs="+")
    s = sub.add_parser("subset")
    s.add_argument("directory")
    s.add_argument("out")
    s.add_argument("--others", type=int, default=1200)
    g = sub.add_parser("grid")
    g.add_argument("files", nargs="+")
    g.add_argument("--top-documents", type=int, default=5)
    g.add_argument("--half", default="even", choices=("even", "odd", "all"))
    args = parser.parse_args(argv)
    if args.command == "grid":
        grid(args.files, args.top_documents, args.half)
    elif args.command == "subset":
        subset(args.directory, args.out, args.others)
    elif args.command == "collect":
        collect(args.directory, args.language, args.out, args.negatives)
    else:
        report(args.files, RULES)


if __name__ == "__main__":
    main(sys.argv[1:])
