"""``flask rag eval --followups``: the follow-up set of a BEIR set, scored with and without the conversation."""
from __future__ import annotations

from pathlib import Path

import click

from irisrag import components
from irisrag.evaluation import followups, runner
from irisrag.evaluation.beir import Dataset
from irisrag.llm import auto as llm_auto
from irisrag.rag.followup import KEY_TERMS, REWRITTEN


def run(dataset: Dataset, limit: int, options: runner.EvalOptions, folder: Path) -> tuple[runner.Report, dict]:
    """Build the pairs, score the three variants, and return the report and the settings that decide it."""
    comps = components.get()
    pairs = followups.pairs(dataset, limit)
    if not pairs:
        raise click.ClickException(f"{dataset.name} has no two questions on one document that share a key word.")
    llm = llm_auto.chat_model(comps.llm)
    rule = f"{REWRITTEN} by {getattr(llm, 'name', type(llm).__name__)}" if llm else f"{KEY_TERMS} (no language model)"
    progress = lambda line: click.echo(line, err=True)  # noqa: E731
    progress(f"{len(pairs)} pairs; with context: {rule}")
    report = followups.evaluate(dataset, pairs, comps.embedder, options, folder, llm=llm, progress=progress,
                                timeout=float(comps.config["FOLLOWUP_REWRITE_SECONDS"]))
    params = {"followups": {"pairs": len(pairs), "rule": rule, "mode": options.settings.mode},
              "chunk_size": options.chunk_size, "chunk_overlap": options.chunk_overlap,
              "fts_language": options.fts_language, "candidates": options.settings.candidates}
    return report, params
