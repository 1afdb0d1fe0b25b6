"""Hybrid context at 1M chunks: where its time goes, and what a change does to the FINAL context (issue 41, item 4).

``.venv/bin/python -m bench.million_context [--questions 100] [--variants unbounded,app,...] [--legs] [--size N]``

The table is ``bench.context_bench``'s cached 1M table (``$IRISRAG_BENCH_DATA/tables``, built
once by ``bench/run.sh million``). Per question, after one untimed ``build_context`` that fills
the term bridge's word-vector cache (embedding is excluded from the goal; the bridge's words
are embedded once per app and kept), interleaved in rotating order: NumPy's exact masked top 256
(the baseline), then hybrid ``build_context`` (question vector passed in, the app's settings)
under each variant. Every variant's final context (the numbered chunks the prompt gets, at most
CONTEXT_CHUNKS) and found sources are compared with the first variant's (the reference) for the
same question; the app can run twice ("app again") to show that the comparison itself is stable.

Reported per variant: median and p95 of the hybrid total less the embedding calls inside it (the
term bridge embeds the question in the documents' words; the goal excludes embedding), of the
total with them, and of each ``Context.timings`` stage,
× NumPy, recall@256 of the vector leg (its first ``search`` of the question) against NumPy's
exact top 256, and the share of questions whose context (and sources) equal the app's.
``--legs`` adds the raw LanceDB queries of the two legs with fewer columns, to split the
fetch of the rows from the search.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace

import numpy as np

from bench import context_bench
from bench.common import load_average, log, machine, median, ms, percentile, table, write_report

SIZE = 1_000_000
STAGES = ("search", "fulltext", "bridge", "fuse", "lexical", "select", "sources", "total")
GOAL = "total_no_embedding"   # the goal's measure: the hybrid total less the embedding calls inside it


@dataclass(frozen=True)
class Variant:
    name: str
    describe: str
    patch: Callable[[], Iterator[None]]   # a context manager that applies the change in this process


def _tuned(minimum: int, maximum: int, refine: int | None):
    """Patch the app's probe/refine parameters (``index.tune_query``) for the duration."""
    @contextmanager
    def patch():
        from irisrag.vectors import index as upkeep

        saved = upkeep.tune_query

        def tune(query):
            query = query.minimum_nprobes(minimum).maximum_nprobes(maximum)
            return query if refine is None else query.refine_factor(refine)
        upkeep.tune_query = tune
        try:
            yield
        finally:
            upkeep.tune_query = saved
    return patch


@contextmanager
def _unchanged():
    yield


@contextmanager
def _bridge_by_match():
    """The term bridge's unknown-word check as before 2026-12-07: a full ``lexical.match`` per candidate."""
    from irisrag.rag import bridge, retrieve
    from irisrag.rag.lexical import match

    saved = retrieve.bridge_terms

    def bridge_terms(question, question_terms, dense, lexical, settings, words=None):
        known = [match(question_terms, hit.text).terms for hit in [*dense, *(t.hit for t in lexical)]]
        return bridge.bridge(question, bridge.unknown_words(question, known), dense, settings, words)
    retrieve.bridge_terms = bridge_terms
    try:
        yield
    finally:
        retrieve.bridge_terms = saved


@contextmanager
def _sequential():
    """The searches one after the other, as before 2026-12-08 (``rag/legs.py`` runs the vector leg beside the
    full-text leg, and the bridge's second vector search beside its second full-text search)."""
    from irisrag.rag import legs

    saved = legs.beside

    def beside(call, *args, alone=False):
        return saved(call, *args, alone=True)
    legs.beside = beside
    try:
        yield
    finally:
        legs.beside = saved


def _both(*patches: Callable[[], Iterator[None]]):
    """Apply several patches together."""
    @contextmanager
    def patch():
        with ExitStack() as stack:
            for each in patches:
                stack.enter_context(each())
            yield
    return patch


def variants() -> list[Variant]:
    from irisrag.vectors import index as upkeep

    app_probes = (f"nprobes {upkeep.SEARCH_MIN_NPROBES}..{getattr(upkeep, 'SEARCH_MAX_NPROBES', 0) or 'unbounded'}, "
                  f"refine {upkeep.SEARCH_REFINE_FACTOR}")
    return [
        Variant("app", f"app: {app_probes}", _unchanged),
        Variant("app_again", "app again (the comparison's own noise)", _unchanged),
        Variant("unbounded", "nprobes 20..unbounded, refine 2 (the app until 2026-12-07)", _tuned(20, 0, 2)),
        Variant("cap60", "probes 20..60, refine 2", _tuned(20, 60, 2)),
        Variant("cap40", "probes 20..40, refine 2", _tuned(20, 40, 2)),
        Variant("cap80", "probes 20..80, refine 2", _tuned(20, 80, 2)),
        Variant("norefine", "probes 20..unbounded, no refine", _tuned(20, 0, None)),
        Variant("refine1", "probes 20..unbounded, refine 1", _tuned(20, 0, 1)),
        Variant("before", "the app before 2026-12-07: nprobes 20..unbounded, refine 2, the bridge's check by "
                "lexical.match", _both(_tuned(20, 0, 2), _bridge_by_match)),
        Variant("bridge_match", "app, the bridge's unknown-word check by lexical.match (before 2026-12-07)",
                _bridge_by_match),
        Variant("cap60_norefine", "probes 20..60, no refine", _tuned(20, 60, None)),
        Variant("cap60_refine1", "probes 20..60, refine 1", _tuned(20, 60, 1)),
        Variant("cap30", "probes 20..30, refine 2", _tuned(20, 30, 2)),
        Variant("sequential", "app, the searches one after the other (before 2026-12-08)", _sequential),
    ]


class _Recorder:
    """A store proxy that keeps the first vector search of a question (the vector leg; the bridge may search again)."""

    def __init__(self, store) -> None:
        self._store = store
        self.first = None

    def search(self, vector, area_ids, k):
        hits = self._store.search(vector, area_ids, k)
        if self.first is None:
            self.first = hits
        return hits

    def __getattr__(self, name):
        return getattr(self._store, name)


class _TimedEmbedder:
    """The embedder, timing its query embeddings (the term bridge embeds the question in the documents' words)."""

    def __init__(self, embedder) -> None:
        self._embedder = embedder
        self.seconds = 0.0

    def embed_query(self, text):
        started = time.perf_counter()
        try:
            return self._embedder.embed_query(text)
        finally:
            self.seconds += time.perf_counter() - started

    def __getattr__(self, name):
        return getattr(self._embedder, name)


def _keys(hits) -> tuple[tuple[int, int], ...]:
    return tuple((h.document_id, h.chunk_index) for h in hits)


def _leg_calls(store, embedder) -> dict[str, Callable]:
    """Raw LanceDB queries of the two legs, with the app's columns and with the keys only (``--legs``)."""
    from lancedb.query import MatchQuery

    from irisrag.vectors import index as upkeep
    from irisrag.vectors.store import QUERY_WORDS, SEARCH_COLUMN

    table = store.table()
    where = f"area_id IN ({', '.join(map(str, context_bench.SELECTED))})"
    app_columns = store._columns()
    keys = ["document_id", "chunk_index"]

    def vector(columns):
        def call(question, vector):
            query = (table.search(vector, vector_column_name="vector").distance_type("cosine")
                     .where(where, prefilter=True).select([*columns, "_distance"]).limit(context_bench.K))
            return upkeep.tune_query(query).to_arrow()
        return call

    def fulltext(columns):
        def call(question, vector):
            words = store.search_text.query_words(QUERY_WORDS.findall(question))
            return (table.search(MatchQuery(" ".join(words), SEARCH_COLUMN), query_type="fts")
                    .where(where, prefilter=True).select([*columns, "_score"]).limit(context_bench.K).to_arrow())
        return call

    return {"vector leg, app columns (to_arrow)": vector(app_columns),
            "vector leg, keys only": vector(keys),
            "full-text leg, app columns + vector": fulltext([*app_columns, "vector"]),
            "full-text leg, app columns": fulltext(app_columns),
            "full-text leg, keys only": fulltext(keys)}


def measure(store, arrays, questions, qvecs, embedder, settings, chosen: list[Variant], legs: bool) -> dict:
    from bench.s3_bench import words_of
    from irisrag.rag.retrieve import build_context

    matrix, row_areas, keys = arrays
    selected = np.array(context_bench.SELECTED)
    words = words_of(embedder)
    out: dict = {v.name: {"timings": {s: [] for s in (*STAGES, GOAL)}, "recall": [], "context": [], "sources": [],
                          "candidates": [], "bridged": 0} for v in chosen}
    out["numpy"] = []
    raw = _leg_calls(store, embedder) if legs else {}
    out["legs"] = {name: [] for name in raw}
    for n, (question, vector) in enumerate(zip(questions, qvecs, strict=True)):
        build_context(question, context_bench.SELECTED, embedder=embedder, store=store, settings=settings,
                      query_vector=vector, mode="hybrid", words=words)   # fills the bridge's word cache
        started = time.perf_counter()
        exact = set(keys[context_bench.numpy_topk(matrix, row_areas, selected, vector, context_bench.K)].tolist())
        numpy_s = time.perf_counter() - started
        shift = n % len(chosen)
        for v in chosen[shift:] + chosen[:shift]:
            recorder, timed = _Recorder(store), _TimedEmbedder(embedder)
            with v.patch():
                context = build_context(question, context_bench.SELECTED, embedder=timed, store=recorder,
                                        settings=settings, query_vector=vector, mode="hybrid", words=words)
            if n < context_bench.WARMUP:
                continue
            entry = out[v.name]
            for stage in STAGES:
                entry["timings"][stage].append(context.timings.get(stage, 0.0))
            entry["timings"][GOAL].append(context.timings["total"] - timed.seconds)
            found = {h.document_id * context_bench.KEY_SHIFT + h.chunk_index for h in recorder.first or ()}
            entry["recall"].append(len(found & exact) / len(exact))
            entry["context"].append(_keys(c.hit for c in context.chunks))
            entry["sources"].append(tuple(s.document_id for s in context.sources))
            entry["candidates"].append(_keys(c.hit for c in context.candidates[:16]))
            entry["bridged"] += bool(context.bridge)
            entry.setdefault("bridged_questions", []).append(bool(context.bridge))
        for name, call in raw.items():
            started = time.perf_counter()
            call(question, vector)
            if n >= context_bench.WARMUP:
                out["legs"][name].append(time.perf_counter() - started)
        if n >= context_bench.WARMUP:
            out["numpy"].append(numpy_s)
        if n % 10 == 0:
            log(f"question {n + 1}/{len(questions)} (load {load_average()})")
    return out


def _agreement(result: dict, name: str, field: str) -> float:
    ref, got = result[result["reference"]][field], result[name][field]
    return sum(a == b for a, b in zip(ref, got, strict=True)) / len(ref)


def _answered_agreement(result: dict, name: str) -> str:
    """The same, over the questions whose reference context is not empty (the gate found something), and
    how many of those the variant left empty."""
    pairs = [(a, b) for a, b in zip(result[result["reference"]]["context"], result[name]["context"], strict=True) if a]
    same = sum(a == b for a, b in pairs)
    emptied = sum(not b for _, b in pairs)
    return f"{same}/{len(pairs)} ({same / max(len(pairs), 1):.1%}); {emptied} emptied"


def _first_difference(result: dict, name: str) -> str:
    """Where the contexts that differ from the app's first differ (1-based position), e.g. '3, 9, 9'."""
    spots = []
    for a, b in zip(result[result["reference"]]["context"], result[name]["context"], strict=True):
        if a != b:
            spots.append(next((i + 1 for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                              min(len(a), len(b)) + 1))
    return ", ".join(map(str, sorted(spots))) or "–"


def render(chosen: list[Variant], result: dict, rss_mib: float, size: int = SIZE) -> str:
    base = median(result["numpy"])
    rows = [["NumPy exact top 256, area mask (baseline)", ms(base), ms(percentile(result["numpy"], 95)), "1.0×",
             *["–"] * 9]]
    for v in chosen:
        r = result[v.name]
        total, goal = r["timings"]["total"], r["timings"][GOAL]
        rows.append([v.describe, ms(median(goal)), ms(percentile(goal, 95)), f"{median(goal) / base:.2f}×",
                     f"{ms(median(total))} / {ms(percentile(total, 95))}",
                     ms(median(r["timings"]["search"])),
                     f"{np.mean(r['recall']):.3f} ({min(r['recall']):.3f})",
                     f"{_agreement(result, v.name, 'context'):.1%}", _answered_agreement(result, v.name),
                     f"{_agreement(result, v.name, 'sources'):.1%}",
                     f"{_agreement(result, v.name, 'candidates'):.1%}", _first_difference(result, v.name),
                     str(r["bridged"])])
    stage_rows = [[v.describe, *(f"{ms(median(result[v.name]['timings'][s]))} / "
                                 f"{ms(percentile(result[v.name]['timings'][s], 95))}" for s in (*STAGES, GOAL))]
                  for v in chosen]
    legs = ""
    if result["legs"]:
        legs = ("\n\nThe legs' raw LanceDB queries (app probe settings), same loop:\n\n"
                + table(["query", "median ms", "p95 ms", "× NumPy"],
                        [[name, ms(median(t)), ms(percentile(t, 95)), f"{median(t) / base:.2f}×"]
                         for name, t in result["legs"].items()]))
    return (f"## Hybrid context at {context_bench.size_label(size)} chunks: stages and the final context per variant"
            f"\n\n{machine()}\n\n"
            f"Load average at the end: {load_average()}. {len(result['numpy'])} questions (after "
            f"{context_bench.WARMUP} warm-up), variants interleaved in rotating order; hybrid `build_context` "
            "with the question vector passed in, the bridge's word vectors cached; ms. Hybrid median / p95 leave "
            "out the embedding calls inside (the term bridge embeds the question in the documents' words; "
            "embedding is excluded from the goal), the next column has them. Context = the numbered "
            "chunks of the prompt (≤ CONTEXT_CHUNKS), equal in order to the first row's (the reference); sources = "
            "the found sources' documents in order; top 16 = the first 16 fused candidates. RSS growth over the "
            f"questions: {rss_mib:,.0f} MiB.\n\n"
            + table(["variant", "hybrid median", "hybrid p95", "× NumPy", "with the bridge's embedding: median / p95",
                     "vector leg median",
                     "recall@256 mean (min)", "context = reference", "non-empty contexts = reference",
                     "sources = reference", "top 16 = reference",
                     "first differing position", "questions bridged"], rows)
            + "\n\nMedian / p95 ms per stage (`Context.timings`):\n\n"
            + table(["variant", *STAGES, "total less embedding"], stage_rows) + legs + "\n")


def _rss_mib() -> float:
    from bench.million_bench import _rss_mib as rss

    return rss()


def run(n_questions: int, names: list[str] | None, legs: bool, size: int = SIZE, skip: int = 0) -> str:
    from irisrag.config import DEFAULTS
    from irisrag.embeddings import UseEmbedder
    from irisrag.rag.retrieve import RetrievalSettings
    from irisrag.vectors.store import VectorStore

    embedder = UseEmbedder()
    docs, vectors, _ = context_bench.inputs(False, size, embedder)
    source, *_ = context_bench.cached_table(size, docs, vectors, embedder, keep=False)
    log("generating the NumPy matrix (the baseline)")
    arrays = context_bench._generate(docs, vectors, size, keep=True)
    questions = context_bench.load_questions(n_questions + skip)[skip:]
    qvecs = [embedder.embed_query(q) for q in questions]
    settings = replace(RetrievalSettings.from_config(DEFAULTS), mode="hybrid")
    chosen = [v for v in variants() if names is None or v.name in names]
    if names:   # the first name is the reference of the agreement columns
        chosen.sort(key=lambda v: names.index(v.name))
    store = VectorStore(source, embedder.key, embedder.dim, read_consistency_seconds=2.0)
    store.warm()
    before = _rss_mib()
    result = measure(store, arrays, questions, qvecs, embedder, settings, chosen, legs)
    result["reference"] = chosen[0].name
    report = render(chosen, result, _rss_mib() - before, size)
    write_report("million-context", "Hybrid context at 1M chunks: stages and final context", [report], result)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--variants", help="comma-separated names: " + ", ".join(v.name for v in variants()))
    parser.add_argument("--legs", action="store_true", help="also time the legs' raw LanceDB queries")
    parser.add_argument("--size", type=int, default=SIZE, help="rows of the cached table (default 1,000,000)")
    parser.add_argument("--skip", type=int, default=0, help="start after this many SciFact questions")
    args = parser.parse_args(argv)
    print(run(args.questions, args.variants.split(",") if args.variants else None, args.legs, args.size, args.skip))
    return 0


if __name__ == "__main__":
    sys.exit(main())
