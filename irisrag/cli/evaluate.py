"""``flask rag eval``: retrieval quality on a BEIR dataset, per mode, compared with the last run."""
from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TextIO

import click
from flask import current_app

from irisrag import components
from irisrag.cli import command, eval_followups
from irisrag.evaluation import beir, runner
from irisrag.evaluation.metrics import METRICS
from irisrag.models import EvalRun
from irisrag.rag.expand import build_expander
from irisrag.rag.rerank import build_reranker
from irisrag.rag.retrieve import MODES
from irisrag.vectors.store import FTS_LANGUAGES

_HEAD = {"ndcg@10": "nDCG@10", "recall@5": "R@5", "recall@10": "R@10", "recall@100": "R@100",
         "mrr@10": "MRR@10", "p@5": "P@5", "context_recall": "ctx_R", "sources_recall": "src_R", "nearest_recall": "near_R",
         "empty_context_rate": "empty", "offtopic_empty_rate": "off_empty"}
PATH = ("context_recall", "sources_recall", "nearest_recall", "empty_context_rate", "offtopic_empty_rate")


def _columns(report: runner.Report) -> list[str]:
    shown = [*METRICS, *PATH]
    return [m for m in shown if any(m in r.metrics for r in report.modes.values())]


def _save(report: runner.Report, params: dict) -> dict[str, EvalRun | None]:
    """Store one EvalRun per mode; return the previous run of each mode with the same settings."""
    previous = {}
    params_json = json.dumps(params, sort_keys=True)
    for mode, result in report.modes.items():
        previous[mode] = EvalRun.previous(report.dataset, report.split, mode, report.embedder, report.queries,
                                          params_json)
        EvalRun.create(dataset=report.dataset, split=report.split, mode=mode, embedder_key=report.embedder,
                       queries=report.queries, metrics_json=json.dumps(result.metrics),
                       timings_json=json.dumps(result.timings), params_json=params_json)
    return previous


def _change(now: float, before: float) -> float:
    return runner.clean(now - before)


def table_lines(report: runner.Report, previous: dict[str, EvalRun | None]) -> list[str]:
    """Return the text report: one metrics row per mode, its change against the last run, timings."""
    columns = _columns(report)
    lines = [f"{report.dataset} ({report.split}): {report.queries} queries, {report.documents} documents, "
             f"{report.chunks} chunks, embedder {report.embedder}, full text {report.fts_language}",
             f"{'mode':<14}" + "".join(f"{_HEAD[m]:>10}" for m in columns)]
    for mode, result in report.modes.items():
        lines.append(f"{mode:<14}" + "".join(f"{result.metrics.get(m, 0.0):>10.4f}" for m in columns))
        before = previous.get(mode)
        if before is not None:
            lines.append(f"{'  change':<14}" + "".join(
                f"{_change(result.metrics.get(m, 0.0), before.metrics[m]):>+10.4f}" if m in before.metrics
                else f"{'':>10}" for m in columns) + f"   (vs {before.created_at:%Y-%m-%d %H:%M}, same settings)")
    if report.negatives:
        lines.append("off-topic questions: " + ", ".join(f"{n} ({q})" for n, q in report.negatives.items()))
    lines.append("milliseconds per query:")
    for mode, result in report.modes.items():
        lines.append(f"  {mode:<14}" + "  ".join(f"{stage} {ms:.1f}" for stage, ms in result.timings.items()))
    prep = report.prepare
    lines.append(f"corpus: chunk {prep['chunk']:.1f} s, embed {prep['embed']:.1f} s (cached after the first run), "
                 f"write {prep['write']:.1f} s, index {prep['index']:.1f} s")
    return lines


def _json(report: runner.Report, previous: dict[str, EvalRun | None]) -> dict:
    data = report.to_json()
    for mode, before in previous.items():
        if before is not None:
            data["modes"][mode]["change"] = {m: _change(data["modes"][mode][m], before.metrics[m])
                                             for m in before.metrics if m in data["modes"][mode]}
    return data


def _params(options: runner.EvalOptions, limit: int | None, negatives: list[str]) -> dict:
    settings = options.settings
    return {"chunk_size": options.chunk_size, "chunk_overlap": options.chunk_overlap,
            "fts_language": options.fts_language, "candidates": settings.candidates,
            "fusion": asdict(settings.fusion), "gate": asdict(settings.gate),
            "bridge": {**asdict(settings.bridge), "word_list_found": settings.bridge.word_list() is not None},
            "fulltext": options.search_text.as_dict(), "limit": limit, "negatives": negatives,
            "caps": {"context_chunks": settings.context_chunks,
                     "max_chunks_per_document": settings.max_chunks_per_document,
                     "context_spread": settings.context_spread},
            "sources": {"min_source_score": settings.min_source_score,
                        "found_sources_chunks": settings.found_sources_chunks,
                        "source_score_ratio": settings.source_score_ratio}}


@command("eval")
@click.argument("dataset_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--split", default="test", show_default=True, help="Which qrels/<split>.tsv to use.")
@click.option("--mode", "mode", type=click.Choice([*MODES, "all"]), default="all", show_default=True)
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N queries of the split.")
@click.option("--fts-language", type=click.Choice(FTS_LANGUAGES, case_sensitive=False), default=None,
              help="Full-text stemming language (default: IRISRAG_FTS_LANGUAGE).")
@click.option("--scratch", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Scratch folder (default: <instance>/tmp/eval); keeps only the embedding cache.")
@click.option("--negatives", "negatives", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A BEIR set whose test questions are asked against this corpus as off-topic controls "
                   "(offtopic_empty_rate); repeatable.")
@click.option("--per-query", "per_query", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              default=None, help="Write one JSON line per question and mode: leg ranks, fused rank, gate verdicts.")
@click.option("--name", default=None, help="Dataset name in the report (default: from its path).")
@click.option("--rerank", type=click.Choice(["embedder", "llm"]), default=None,
              help="Also score hybrid with this reranker (RERANK_* settings) as mode hybrid+rerank.")
@click.option("--expand", is_flag=True, help="Also score hybrid with LLM query expansion as mode hybrid+expand.")
@click.option("--followups", is_flag=True,
              help="Score follow-up questions made from this set (pairs of questions on one document, the second "
                   "with a pronoun; README: follow-up questions) with and without the conversation; --limit counts "
                   "pairs (default 200).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def eval_command(dataset_dir: Path, split: str, mode: str, limit: int | None, fts_language: str | None,
                 scratch: Path | None, negatives: tuple[Path, ...], per_query: Path | None, name: str | None,
                 rerank: str | None, expand: bool, followups: bool, as_json: bool) -> None:
    """Measure retrieval on a BEIR dataset (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv).

    Every question goes through the product's context building (ranking, gate, caps, found
    sources) in a scratch LanceDB; the app's areas and tables are not touched. Each mode's
    metrics are kept, and the next run with the same settings shows the change.
    """
    comps = components.get()
    config = comps.config
    options = eval_options(comps, fts_language)
    folder = scratch or Path(current_app.instance_path) / "tmp" / "eval"
    if followups:
        report, params = eval_followups.run(beir.load(dataset_dir, split, name=name), limit or 200, options, folder)
        _report(report, params, as_json)
        return
    dataset = beir.load(dataset_dir, split, limit, name=name)
    if not dataset.queries:
        raise click.ClickException(f"No judged queries in split {split!r} of {dataset_dir}.")
    off_topic = [beir.load(path, "test") for path in negatives]
    modes: list = list(MODES) if mode == "all" else [mode]
    progress = lambda line: click.echo(line, err=True)  # noqa: E731
    params = _params(options, limit, [d.name for d in off_topic])
    if rerank:
        def rerank_embedder(kind: str):
            return runner.lazy_rerank_embedder(comps.rerank_embedder_of(kind), folder / "cache")

        reranker = build_reranker({**config, "RERANKER": rerank}, llm=comps.llm, embedder_factory=rerank_embedder)
        modes.append(runner.Variant("hybrid+rerank", "hybrid", reranker=reranker))
        params["reranker"] = {"name": reranker.name, "top_n": reranker.top_n,
                              "weight": getattr(reranker, "weight", None)}
    if expand:
        expander = build_expander({**config, "QUERY_EXPANSION": "llm", "FTS_LANGUAGE": options.fts_language},
                                  llm=comps.llm)
        modes.append(runner.Variant("hybrid+expand", "hybrid", expander=expander))
        params["expander"] = expander.name
    try:
        with _open(per_query) as lines:
            report = runner.run(dataset, comps.embedder, options, folder, modes, progress=progress,
                                negatives=off_topic, per_query=lines, settings=params)
    finally:  # an interrupted run keeps what the reranker embedded so far
        _flush_rerank_cache(modes)
    _report(report, params, as_json)


def eval_options(comps: components.Components, fts_language: str | None = None) -> runner.EvalOptions:
    """The eval's options: the app's own settings and word vectors, as every question's (``Components.retriever``)."""
    return runner.EvalOptions.from_config(comps.config, words=comps.word_vectors, fts_language=fts_language)


def _report(report: runner.Report, params: dict, as_json: bool) -> None:
    """Store the report's runs and print it with the change against the last run of the same settings."""
    previous = _save(report, params)
    if as_json:
        click.echo(json.dumps(_json(report, previous), indent=2))
    else:
        click.echo("\n".join(table_lines(report, previous)))


@contextmanager
def _open(path: Path | None) -> Iterator[TextIO | None]:
    if path is None:
        yield None
        return
    with path.open("w", encoding="utf-8") as handle:
        yield handle


def _flush_rerank_cache(modes: list) -> None:
    for variant in modes:
        cache = getattr(getattr(getattr(variant, "reranker", None), "embedder", None), "cache", None)
        if cache is not None:
            cache.flush()
