"""``flask rag eval-answers``: answer quality on a BEIR dataset with answers.jsonl, or on a library of real documents.

A folder with ``docs/`` and ``questions.jsonl`` (``eval/real-de``) is a library: its documents
are imported into a temporary instance and asked as a dashboard user of a fresh install
(``evaluation.library_answers``); any other folder is a BEIR set with gold answers.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click
from flask import current_app

from irisrag import components
from irisrag.cli import command
from irisrag.evaluation import answers, beir, library, library_answers
from irisrag.evaluation.runner import EvalOptions
from irisrag.llm import auto as llm_auto
from irisrag.rag.answer import llm_name


def _lines(data: dict) -> list[str]:
    timings = "  ".join(f"{stage} {ms:.1f}" for stage, ms in data["timings"].items())
    return [f"{data['dataset']}: {data['questions']} questions, answers by {data['llm']}",
            f"answer contains the gold answer   {data['answer_contains_gold']:.3f}",
            f"median answer length (characters) {data['median_answer_chars']}",
            f"passages contain the gold answer  {data['passages_contain_gold']:.3f}  (the ceiling)",
            f"milliseconds per question: {timings}"]


@command("eval-answers")
@click.argument("dataset_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N questions.")
@click.option("--offset", type=click.IntRange(0), default=0, help="Skip the first N questions (held-out halves).")
@click.option("--no-llm", is_flag=True, help="Measure the extractive answer even when a model is configured.")
@click.option("--scratch", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Scratch folder (default: <instance>/tmp/eval); keeps only the embedding cache.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--dump", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Library only: write every question, its shown answer and its scores to this JSONL file.")
def eval_answers_command(dataset_dir: Path, limit: int | None, offset: int, no_llm: bool, scratch: Path | None,
                         as_json: bool, dump: Path | None) -> None:
    """Measure answers on a BEIR dataset with answers.jsonl, or on a library of real documents.

    BEIR: the corpus is imported into a scratch LanceDB as ``flask rag eval`` does; each question
    goes through the product's retrieval (gate and caps included) and answer; the share containing
    the gold answer and the median length are reported. Library (docs/ and questions.jsonl): the
    documents are imported into a temporary instance and each question is asked as a dashboard
    user without a language model; right, clean, right and clean, off-topic refused and
    follow-ups right are reported.
    """
    folder = scratch or Path(current_app.instance_path) / "tmp" / "eval"
    if library.is_library(dataset_dir):
        _library(dataset_dir, folder, as_json, dump)
        return
    comps = components.get()
    config = comps.config
    if not (dataset_dir / "answers.jsonl").is_file():
        raise click.ClickException(f"{dataset_dir} has no answers.jsonl (gold answers).")
    dataset = beir.load(dataset_dir, "test", None if limit is None else offset + limit)
    dataset = replace(dataset, queries=dict(list(dataset.queries.items())[offset:]))
    options = EvalOptions.from_config(config, words=comps.word_vectors)
    llm = None if no_llm else llm_auto.chat_model(comps.llm)  # auto: what it finds now
    report = answers.evaluate(dataset, answers.load_answers(dataset_dir), comps.embedder, options, folder, llm,
                              llm_name(llm) if llm is not None else "extractive",
                              progress=lambda line: click.echo(line, err=True))
    data = report.to_json()
    click.echo(json.dumps(data, indent=2) if as_json else "\n".join(_lines(data)))


def _library(directory: Path, folder: Path, as_json: bool, dump: Path | None) -> None:
    """Evaluate a document library and print its report; with ``dump``, write the per-question rows."""
    report = library_answers.evaluate(current_app._get_current_object(), library.load(directory), folder,
                                      progress=lambda line: click.echo(line, err=True))
    if dump is not None:
        dump.write_text("".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in report.rows),
                        encoding="utf-8")
    click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False) if as_json else "\n".join(report.lines()))
