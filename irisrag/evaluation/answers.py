"""Answer quality on a BEIR dataset with gold answers (``answers.jsonl``): containment and length.

Protocol: the corpus is imported into a scratch LanceDB exactly as ``flask rag eval`` does
(``runner.build_store``: the product's chunker, embedder, store and indexes; cached
embeddings). Each question is then asked as the product asks it: ``build_context`` with the
app's retrieval settings (mode, fusion, lexical gate, per-document and total caps), then
``rag.answer.answer`` (the language model, or the extractive answer without one). The answer
text is read as a user reads it (Markdown markup and citations removed) and counts as
containing the gold answer when one of the gold strings appears in it (case-insensitive,
white space collapsed). ``passages_contain_gold`` asks the same of the context passages the
answer cites from: the ceiling of any answer built from them.
"""
from __future__ import annotations

import json
import re
import shutil
import statistics
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from irisrag.embeddings import Embedder
from irisrag.evaluation.beir import Dataset
from irisrag.evaluation.runner import SCRATCH_AREA, EvalOptions, _key, build_store, embed_queries
from irisrag.rag.answer import answer
from irisrag.rag.citations import markers
from irisrag.rag.render import to_terminal
from irisrag.rag.retrieve import Context, build_context

Progress = Callable[[str], None]
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class AnswerRow:
    """One question: its answer text, whether it holds the gold answer, whether the passages do."""

    query_id: str
    answer: str
    contains: bool
    passages_contain: bool
    extractive: bool


@dataclass(frozen=True)
class AnswerReport:
    dataset: str
    llm: str
    rows: list[AnswerRow]
    timings: dict[str, float] = field(default_factory=dict)   # ms per question, stage means

    def to_json(self) -> dict:
        """Return the ``--json`` document."""
        n = max(len(self.rows), 1)
        return {
            "dataset": self.dataset, "questions": len(self.rows), "llm": self.llm,
            "answer_contains_gold": round(sum(r.contains for r in self.rows) / n, 4),
            "median_answer_chars": int(statistics.median([len(r.answer) for r in self.rows])) if self.rows else 0,
            "passages_contain_gold": round(sum(r.passages_contain for r in self.rows) / n, 4),
            "timings": {k: round(v, 1) for k, v in self.timings.items()},
        }


def load_answers(directory: Path) -> dict[str, list[str]]:
    """Read ``answers.jsonl``: query id -> gold answer strings."""
    path = Path(directory) / "answers.jsonl"
    gold: dict[str, list[str]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                gold[str(record["_id"])] = [str(a) for a in record.get("answers") or [] if str(a).strip()]
    return gold


def normalised(text: str) -> str:
    """Lower-case text with white space collapsed (what containment compares)."""
    return _SPACE.sub(" ", text).strip().lower()


def readable(answer_text: str) -> str:
    """Return the answer as a reader sees it: markup and citation markers removed."""
    found = markers(answer_text)
    for marker in reversed(found):
        answer_text = answer_text[:marker.start] + answer_text[marker.end:]
    return to_terminal(answer_text).replace("…", " ")


def contains(text: str, gold: Sequence[str]) -> bool:
    """Tell whether any gold string occurs in the text."""
    haystack = normalised(text)
    return any(normalised(g) in haystack for g in gold)


def ask_one(question: str, vector: np.ndarray, embedder: Embedder, store: object, options: EvalOptions,
            llm: object | None) -> tuple[str, Context, bool, dict[str, float]]:
    """Ask one question as the product does; return the answer text, its context, extractive, timings."""
    start = time.perf_counter()
    context = build_context(question, [SCRATCH_AREA], embedder=embedder, store=store, settings=options.settings,
                            query_vector=vector)
    middle = time.perf_counter()
    reply = answer(question, context, llm, embedder=embedder)
    end = time.perf_counter()
    return reply.text, context, reply.extractive, {"context": middle - start, "answer": end - middle}


def evaluate(dataset: Dataset, gold: dict[str, list[str]], embedder: Embedder, options: EvalOptions,
             scratch: Path, llm: object | None, llm_name: str, progress: Progress | None = None) -> AnswerReport:
    """Ask every question of the dataset that has gold answers; only the embedding cache stays in ``scratch``."""
    queries = {q: t for q, t in dataset.queries.items() if gold.get(q)}
    lancedb_dir = scratch / f"answers-{uuid.uuid4().hex[:12]}"
    rows: list[AnswerRow] = []
    totals: dict[str, float] = {}
    try:
        store, _, _ = build_store(dataset, embedder, options, lancedb_dir, scratch / "cache", progress)
        questions = list(queries.values())
        vectors, embed_seconds = embed_queries(embedder, questions, scratch / "cache" /
                                               f"queries-{_key(embedder.key, *questions)}.npz")
        for (query_id, question), vector in zip(queries.items(), vectors, strict=True):
            text, context, extractive, timings = ask_one(question, vector, embedder, store, options, llm)
            for stage, seconds in timings.items():
                totals[stage] = totals.get(stage, 0.0) + seconds
            passages = "\n".join(c.hit.text for c in context.chunks)
            shown = readable(text)
            rows.append(AnswerRow(query_id, shown, contains(shown, gold[query_id]),
                                  contains(passages, gold[query_id]), extractive))
    finally:
        shutil.rmtree(lancedb_dir, ignore_errors=True)
    n = max(len(rows), 1)
    timings = {"embed": 1000 * embed_seconds, **{k: 1000 * v / n for k, v in totals.items()}}
    return AnswerReport(dataset.name, llm_name, rows, timings)
