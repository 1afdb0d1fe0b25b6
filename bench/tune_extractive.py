"""Tune the extractive answer's weights and length on one half of the XQuAD questions, check on the other.

    .venv/bin/python bench/tune_extractive.py ../shared/eval/xquad/de ../shared/eval/xquad/en [--questions 300] [--embedder e5]

Builds each scratch store once (the product's chunker, embedder, retrieval settings), keeps
every question's context units with their features, then scores weight grids offline:
containment of the gold answer and median answer length, tune half (even questions) vs
check half (odd questions). The answer's length follows the ranking's confidence
(``extractive.adaptive_budget``: ``sure`` characters when the best unit leads by ``gap`` or
more; below, from ``unsure_low`` growing to ``unsure_high`` on a tie); a fixed budget (the
earlier answer) is the row with all three equal. Only rows with a median of at most 300
characters on every tune half are ranked (the check medians show whether that holds).
Prints a table; the product's defaults are the first row, the earlier fixed 300 characters
the second.
"""
from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from irisrag import create_app  # noqa: E402
from irisrag.evaluation import answers, beir  # noqa: E402
from irisrag.evaluation.runner import EvalOptions, build_store, embed_queries  # noqa: E402
from irisrag.rag import extractive  # noqa: E402
from irisrag.rag.retrieve import RetrievalSettings, build_context  # noqa: E402


def features(directory: Path, limit: int, app) -> list[tuple[list, list[str]]]:
    """Return, per question, [(unit, position, similarity, lexical)] and its gold answers."""
    comps = app.extensions["irisrag"]
    config = comps.config
    gold = answers.load_answers(directory)
    dataset = beir.load(directory, "test", limit)
    options = EvalOptions.original(RetrievalSettings.from_config(config), int(config["CHUNK_SIZE"]),
                          int(config["CHUNK_OVERLAP"]), config["FTS_LANGUAGE"])
    scratch = Path(app.instance_path) / "tmp" / "eval"
    with tempfile.TemporaryDirectory() as tmp:
        store, _, _ = build_store(dataset, comps.embedder, options, Path(tmp) / "db", scratch / "cache")
        questions = list(dataset.queries.values())
        vectors, _ = embed_queries(comps.embedder, questions, Path(tmp) / "q.npz")
        rows = []
        for (qid, question), vector in zip(dataset.queries.items(), vectors, strict=True):
            context = build_context(question, [1], embedder=comps.embedder, store=store, settings=options.settings,
                                    query_vector=vector, words=comps.word_vectors)
            found = extractive.candidates(context)
            sims = extractive.semantic(question, [u.text for u, _ in found], comps.embedder)
            qterms = context.terms
            rows.append(([(u, p, float(s), extractive.lexical_share(qterms, u.text), qterms)
                          for (u, p), s in zip(found, sims, strict=False)],
                         gold.get(qid, [])))
    return rows


def answer_text(units, params) -> str:
    """Return the extractive answer's text for one question, as ``extractive.compose`` builds it."""
    sem, lex, rank, partial, sure, unsure_low, unsure_high, gap = params
    scored = sorted((extractive.Scored(u, p, sem * s + lex * x + rank / p - (partial if u.partial else 0))
                     for u, p, s, x, _ in units), key=lambda i: -i.score)
    qterms = units[0][4] if units else frozenset()
    budget = extractive.adaptive_budget(scored, sure, (unsure_low, unsure_high), gap)
    return " ".join(extractive.shorten(c.unit.text, qterms, limit) for c, limit in extractive.select(scored, budget))


def measure(rows, *params) -> tuple[float, int]:
    """Return the share of answers holding a gold answer and their median length in characters."""
    texts = [answer_text(units, params) for units, _ in rows]
    hits = sum(answers.contains(text, gold) for text, (_, gold) in zip(texts, rows, strict=True))
    return hits / max(len(rows), 1), int(statistics.median(map(len, texts))) if texts else 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--embedder", default="use", help="the EMBEDDER setting the answers are scored with")
    args = parser.parse_args()
    app = create_app({"LLM": "none", "EMBEDDER": args.embedder})
    with app.app_context():
        data = {d.name: features(d, args.questions, app) for d in args.datasets}
    weights = (extractive.SEMANTIC, extractive.LEXICAL, extractive.RANK, extractive.PARTIAL_PENALTY)
    defaults = (*weights, extractive.SURE_CHARS, *extractive.UNSURE_CHARS, extractive.SURE_GAP)
    fixed = (*weights, extractive.BUDGET_CHARS, extractive.BUDGET_CHARS, extractive.BUDGET_CHARS, 1.0)
    lengths = [(sure, low, high, gap) for sure, low, high, gap
               in itertools.product((250, 275, 300), (300, 400, 500), (500, 650, 800), (0.2, 0.3, 0.4)) if low <= high]
    grid = [(*weights, *length) for length in lengths]
    grid += [(1.0, lex, rank, 0.25, *defaults[4:]) for lex in (0.6, 1.0, 1.4) for rank in (0.05, 0.15, 0.3)]
    results = []
    for params in [defaults, fixed, *grid]:
        tune = [measure(rows[0::2], *params) for rows in data.values()]
        check = [measure(rows[1::2], *params) for rows in data.values()]
        results.append((params, tune, check))
    names = list(data)
    print(f"{'sem lex rank part sure unsure gap':<40}" + "".join(f"{'tune ' + n:>18}{'check ' + n:>18}" for n in names))
    within = [r for r in results[2:] if max(length for _, length in r[1]) <= 300]  # the goal: median <= 300
    best = sorted(within, key=lambda r: -min(c for c, _ in r[1]))[:12]
    for params, tune, check in [*results[:2], *best]:
        print(f"{' '.join(f'{p:g}' for p in params):<40}"
              + "".join(f"{t[0]:>11.3f} {t[1]:>5}{c[0]:>12.3f} {c[1]:>5}" for t, c in zip(tune, check, strict=False)))


if __name__ == "__main__":
    main()
