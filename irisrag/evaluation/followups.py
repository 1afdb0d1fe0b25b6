"""A follow-up question set made from a BEIR set with several questions per document (XQuAD), and its scores.

How the set is made (deterministic; ``pairs``):

1. The questions judged relevant to exactly one document are grouped by that document, in the
   order of ``queries.jsonl``.
2. Each question and the next one on the same document form a pair (first, second) when the
   second shares a key word with the first: a capitalised word, not the question's first word
   (a noun or a name: "Panthers", "Super Bowl", "Verteidigung"), whose term
   (``lexical.normal_form``: stop words dropped, stemmed) occurs in the first question.
3. The second question becomes a follow-up: every run of its key words shared with the
   first question (an article right before such a run goes with it) is cut out; the first run
   is replaced by a pronoun (``es`` for German questions, ``it`` for English ones), the others
   are dropped. "Wie viele Punkte gab die Verteidigung der Panthers ab?" followed by "Wie viele
   Interceptions wurden der Verteidigung der Panthers im Jahr 2015 angerechnet?" gives "Wie
   viele Interceptions wurden es im Jahr 2015 angerechnet?". A pair is kept only when the
   follow-up still has a term of its own (otherwise it asks nothing).
4. The first ``limit`` pairs in corpus order are used.

What is scored (``evaluate``), Recall@5 and the other ranking metrics of the second question
against its document, each in the configured retrieval mode:

``as asked``        the original second question (what a standalone question reaches)
``follow-up``       the follow-up without the conversation (what IrisRAG did before)
``follow-up+ctx``   the follow-up's search query with the first question as the previous turn
                    (``rag.followup.search_query``: rewritten by the language model when one
                    is given, else the key-terms rule)
``new topic+ctx``   the control: the original second question after a first question about
                    another document (the first question of the pair half the list away), so
                    a change of topic shows what the previous turn costs a standalone question

The cut-out words are shared with the first question by construction, which is what a real
pronoun follow-up is like but also what the key-terms rule restores; the set measures whether
the rule and the rewrite bring back what the pronoun hides, not general question answering.
"""
from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path

from irisrag.embeddings import Embedder
from irisrag.evaluation import runner
from irisrag.evaluation.beir import Dataset
from irisrag.rag import lexical
from irisrag.rag.followup import PreviousTurn, search_query

ARTICLES = frozenset("der die das den dem des ein eine einer eines einem einen the a an".split())
ASKED, ALONE, WITH_CONTEXT, SWITCH = "as asked", "follow-up", "follow-up+ctx", "new topic+ctx"


@dataclass(frozen=True)
class Pair:
    """Two questions on one document: the first, the second as asked, and the second as a follow-up."""

    document_id: str
    first_id: str
    first: str
    second_id: str
    second: str
    follow_up: str


def pronoun_for(dataset_name: str) -> str:
    """Return the pronoun of the set's question language: ``it`` for an English set, else ``es``."""
    return "it" if dataset_name.rstrip("/").endswith("en") and not dataset_name.endswith("de-en") else "es"


def follow_up(first: str, second: str, pronoun: str) -> str | None:
    """Return the second question with the first's words cut out (the rule above), or None if it does not qualify."""
    shared = lexical.terms(first)
    words = list(lexical.tokens(second))
    cut = [i > 0 and w.group()[0].isupper() and lexical.normal_form(w.group()) in shared
           for i, w in enumerate(words)]
    for i in range(len(words) - 1):  # an article before a cut word goes with it
        if words[i].group().casefold() in ARTICLES and cut[i + 1]:
            cut[i] = True
    kept_terms = {lexical.normal_form(w.group()) for w, c in zip(words, cut, strict=True) if not c} - {None}
    if not any(cut) or not kept_terms:
        return None
    return _rebuild(second, words, cut, pronoun)


def _rebuild(text: str, words: list[re.Match[str]], cut: list[bool], pronoun: str) -> str:
    """Replace the first run of cut words by the pronoun and drop the other runs (spaces tidied)."""
    parts, position, replaced, previous_cut = [], 0, False, False
    for word, is_cut in zip(words, cut, strict=True):
        if is_cut:
            parts.append(text[position:word.start()] if not previous_cut else "")
            if not replaced:
                parts.append(pronoun)
                replaced = True
        else:
            parts.append(text[position:word.start()] if not previous_cut else " ")
            parts.append(word.group())
        position, previous_cut = word.end(), is_cut
    parts.append(text[position:])
    return re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", "".join(parts))).strip()


def pairs(dataset: Dataset, limit: int = 200, pronoun: str | None = None) -> list[Pair]:
    """Return the first ``limit`` follow-up pairs of a dataset (the rule in the module docstring)."""
    pronoun = pronoun or pronoun_for(dataset.name)
    by_document: dict[str, list[tuple[str, str]]] = {}
    for query_id, text in dataset.queries.items():
        relevant = list(dataset.qrels.get(query_id, {}))
        if len(relevant) == 1:
            by_document.setdefault(relevant[0], []).append((query_id, text))
    found = []
    for document_id in dataset.corpus:
        questions = by_document.get(document_id, [])
        for (first_id, first), (second_id, second) in pairwise(questions):
            rewritten = follow_up(first, second, pronoun)
            if rewritten is not None:
                found.append(Pair(document_id, first_id, first, second_id, second, rewritten))
    return found[:limit]


def question_sets(pairs_: Sequence[Pair], llm: object | None = None,
                  timeout: float = 10.0) -> dict[str, dict[str, str]]:
    """Return the three question sets scored (second question id -> text), by variant name."""
    return {
        ASKED: {p.second_id: p.second for p in pairs_},
        ALONE: {p.second_id: p.follow_up for p in pairs_},
        WITH_CONTEXT: {p.second_id: search_query(p.follow_up, [PreviousTurn(p.first, "")], llm, timeout).text
                       for p in pairs_},
        SWITCH: {p.second_id: search_query(p.second, [PreviousTurn(other.first, "")], llm, timeout).text
                 for p, other in zip(pairs_, _elsewhere(pairs_), strict=True)},
    }


def _elsewhere(pairs_: Sequence[Pair]) -> list[Pair]:
    """Return for each pair the first pair from half the list on that is about another document."""
    n = len(pairs_)
    return [next((pairs_[(i + n // 2 + k) % n] for k in range(n)
                  if pairs_[(i + n // 2 + k) % n].document_id != p.document_id), p) for i, p in enumerate(pairs_)]


def evaluate(dataset: Dataset, pairs_: Sequence[Pair], embedder: Embedder, options: runner.EvalOptions,
             scratch: Path, *, llm: object | None = None, progress: runner.Progress | None = None,
             timeout: float = 10.0) -> runner.Report:
    """Score the second questions of the pairs in each variant (one scratch store, the configured mode)."""
    qrels = {p.second_id: {p.document_id: 1} for p in pairs_}
    sets = question_sets(pairs_, llm, timeout)
    lancedb_dir = scratch / "followups"
    try:
        store, chunks, prepare = runner.build_store(dataset, embedder, options, lancedb_dir, scratch / "cache",
                                                    progress)
        modes = {}
        for name, queries in sets.items():
            questions = runner.questions_of(replace(dataset, queries=queries, qrels=qrels), embedder, scratch / "cache")
            variant = runner.Variant(name, options.settings.mode)
            modes.update(runner.evaluate(dataset, embedder, options, store, questions, [variant], progress=progress))
    finally:
        shutil.rmtree(lancedb_dir, ignore_errors=True)
    return runner.Report(f"{dataset.name} follow-ups", dataset.split, len(pairs_), len(dataset.corpus), chunks,
                         embedder.key, modes, prepare, options.fts_language)
