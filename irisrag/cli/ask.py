"""Asking from the terminal: ``ask``, the benchmarks, and the embedding and LLM checks."""
from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence

import click

from irisrag import components
from irisrag.cli import ID, command
from irisrag.errors import LLMUnavailable
from irisrag.i18n import english_stored
from irisrag.llm import auto as llm_auto
from irisrag.llm.auto import AutoLLM
from irisrag.models import Area, User
from irisrag.rag.answer_types import SourceView
from irisrag.rag.render import to_terminal
from irisrag.services.admin import admin as admin_service
from irisrag.services.asking import asking, conversations
from irisrag.services.asking.answer_json import terminal_json
from irisrag.services.operations import llm_check
from irisrag.vectors.store import table_name

_AREA_HELP = "Area name (repeatable); default: all areas the user may query."


def _user_id(name: str) -> int:
    return admin_service.get(User, name).id


def _area_ids(names: Sequence[str]) -> list[int] | None:
    return [admin_service.get(Area, name).id for name in names] if names else None


def _echo_result(result: asking.AskResult) -> None:
    if result.error:
        click.echo(f"Note: {english_stored(result.error)}" + (f" ({result.error_detail})" if result.error_detail else ""), err=True)
    click.echo(to_terminal(result.answer_text))
    click.echo("")
    if not result.sources:
        click.echo(asking.NO_SOURCES)
    else:
        click.echo("Sources:")
    _echo_sources(result.listed_sources)
    if result.other_matches:
        click.echo("Other matches (not cited in the answer):")
        _echo_sources(result.other_matches)
    if result.nearest:
        click.echo("Closest documents (none matched the question well enough; they may not answer it):")
    for n, source in enumerate(result.nearest, start=1):
        click.echo(f"  {n}. {to_terminal(source.name)}  [{to_terminal(source.area_name)}]  cosine {source.score:.2f}")
    click.echo(f"\n({result.llm}, {result.timings.get('total', 0.0):.2f} s)")


def _echo_sources(listed: Sequence[SourceView]) -> None:
    """Print found sources numbered 1..n, each with its area, score and origin."""
    for n, source in enumerate(listed, start=1):
        click.echo(f"  {n}. {to_terminal(source.name)}  [{to_terminal(source.area_name)}]  score {source.score:.2f}")
        where = source.source_url or source.original_path
        if where:
            click.echo(f"     {to_terminal(where)}")


@command("ask")
@click.argument("question")
@click.option("--user", "username", required=True, help="Ask as this user; only their areas are searched.")
@click.option("--area", "areas", multiple=True, help=_AREA_HELP)
@click.option("--no-llm", is_flag=True, help="Do not call the language model: extractive answer.")
@click.option("--conversation", "conversation_id", type=ID, default=None,
              help="Continue this conversation of USER's (its id, as in /c/<id>): a follow-up is searched "
                   "with what it refers to, and the question is recorded in it.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def ask_command(question: str, username: str, areas: tuple[str, ...], no_llm: bool, conversation_id: int | None,
                as_json: bool) -> None:
    """Answer QUESTION from the documents USER may query (foreign areas are refused)."""
    user_id = _user_id(username)
    previous = conversations.previous_turns(user_id, conversation_id) if conversation_id is not None else ()
    result = asking.ask(user_id, question, _area_ids(areas), strict=True, use_llm=not no_llm,
                        previous=previous, conversation_id=conversation_id)
    if as_json:
        recorded = conversations.conversation_of(user_id, result.question_id) if result.question_id else None
        click.echo(json.dumps({**terminal_json(result), "conversation_id": recorded}, indent=2, ensure_ascii=False))
    else:
        _echo_result(result)


# --- benchmarks -------------------------------------------------------------------


def timing_table(runs: Sequence[dict[str, float]]) -> list[str]:
    """Return the lines of a per-stage min/median/max table (seconds)."""
    stages: list[str] = []
    for run in runs:
        stages.extend(stage for stage in run if stage not in stages)
    lines = [f"{'stage':<10} {'min':>9} {'median':>9} {'max':>9}   ({len(runs)} runs, seconds)"]
    for stage in stages:
        values = [run.get(stage, 0.0) for run in runs]
        lines.append(f"{stage:<10} {min(values):>9.4f} {statistics.median(values):>9.4f} {max(values):>9.4f}")
    return lines


def _runs_option(default: int):
    return click.option("--runs", default=default, show_default=True, type=click.IntRange(1, 10_000),
                        help="How often to repeat.")


@command("bench-ask")
@click.argument("question")
@click.option("--user", "username", required=True, help="Ask as this user.")
@click.option("--area", "areas", multiple=True, help=_AREA_HELP)
@_runs_option(5)
@click.option("--no-llm", is_flag=True, help="Leave the language model out.")
def bench_ask(question: str, username: str, areas: tuple[str, ...], runs: int, no_llm: bool) -> None:
    """Time a whole answer to QUESTION, repeated RUNS times."""
    user_id, area_ids = _user_id(username), _area_ids(areas)
    results = [asking.ask(user_id, question, area_ids, use_llm=not no_llm) for _ in range(runs)]
    last = results[-1]
    click.echo(f"{len(last.context)} context chunks, {len(last.sources)} sources, llm {last.llm}"
               + (" (extractive)" if last.extractive else ""))
    click.echo("\n".join(timing_table([r.timings for r in results])))


def _bench_context(question: str, areas: tuple[str, ...], runs: int, k: int | None, reuse_vector: bool) -> None:
    area_ids = _area_ids(areas)
    vector = None
    if reuse_vector:
        start = time.perf_counter()
        vector = asking.embed_question(question)
        click.echo(f"question embedded once in {time.perf_counter() - start:.4f} s")
    contexts = [asking.context_for(question, area_ids, k=k, query_vector=vector) for _ in range(runs)]
    last = contexts[-1]
    click.echo(f"{len(last.candidates)} candidates, {len(last.chunks)} context chunks, {len(last.sources)} sources")
    click.echo("\n".join(timing_table([c.timings for c in contexts])))


_K_OPTION = click.option("--k", "k", type=click.IntRange(1, 100_000), default=None,
                         help="Candidates to consider (default: the retrieval profile's CONTEXT_CANDIDATES).")
_BENCH_AREA = click.option("--area", "areas", multiple=True, help="Area name (repeatable); default: all areas.")


@command("bench-context")
@click.argument("question")
@_BENCH_AREA
@_runs_option(10)
@_K_OPTION
def bench_context(question: str, areas: tuple[str, ...], runs: int, k: int | None) -> None:
    """Time context building for QUESTION (embedding, search, filters, sources)."""
    _bench_context(question, areas, runs, k, reuse_vector=False)


@command("bench-context-no-embedding")
@click.argument("question")
@_BENCH_AREA
@_runs_option(10)
@_K_OPTION
def bench_context_no_embedding(question: str, areas: tuple[str, ...], runs: int, k: int | None) -> None:
    """Time context building without the embedding call (the question vector is computed once)."""
    _bench_context(question, areas, runs, k, reuse_vector=True)


# --- checks -----------------------------------------------------------------------


def _endpoint(adapter: object) -> str:
    return str(getattr(adapter, "url", None) or getattr(adapter, "base_url", None) or "(local)")


@command("check-embeddings")
def check_embeddings() -> None:
    """Show the embedding configuration and check that the service answers with the configured dimension."""
    comps = components.get()
    embedder = comps.embedder
    click.echo(f"embedder:   {comps.config['EMBEDDER']} (key {embedder.key})")
    click.echo(f"model:      {getattr(embedder, 'model', embedder.key)}")
    click.echo(f"endpoint:   {_endpoint(embedder)}")
    click.echo(f"dimension:  {embedder.dim}")
    click.echo(f"batch size: {comps.config['EMBEDDING_BATCH_SIZE']}")
    click.echo(f"lancedb:    {comps.lancedb_uri()} (table {table_name(embedder.key)})")
    start = time.perf_counter()
    vectors = embedder.embed_documents(["IrisRAG embedding check", "Wie wird der Dienst konfiguriert?"])
    elapsed = time.perf_counter() - start
    if tuple(vectors.shape) != (2, embedder.dim):
        raise click.ClickException(f"The embedder answered with shape {tuple(vectors.shape)}, "
                                   f"expected (2, {embedder.dim}).")
    click.echo(f"OK: {embedder.dim}-dimensional vectors in {elapsed:.3f} s")


@command("check-llm")
def check_llm() -> None:
    """Reach the chat endpoint and report the model and the latency (with ``auto``: what it found and why)."""
    configured = components.get().llm
    if isinstance(configured, AutoLLM):
        found = configured.discovery()
        click.echo(f"auto:     {found.kind}{f' ({found.model})' if found.model else ''}: {found.reason}")
    llm = llm_auto.chat_model(configured)
    if llm is None and isinstance(configured, AutoLLM):
        click.echo("No language model found; answers are assembled from the documents (extractive).")
        return
    if llm is None:
        raise click.ClickException("No language model is configured (IRISRAG_LLM=none); answers are extractive.")
    click.echo(f"model:    {llm.name}")
    click.echo(f"endpoint: {_endpoint(llm)}")
    try:
        found = llm_check.check(llm)
    except LLMUnavailable as exc:
        raise click.ClickException(f"{exc.message} ({exc.detail})" if exc.detail else exc.message) from exc
    first = f"{found.first_token:.2f} s" if found.first_token is not None else "no text"
    click.echo(f"server:   model {found.model or '(not named)'}; first word after {first}, "
               f"all in {found.total:.2f} s")
    click.echo(f"reply:    {to_terminal(found.reply)[:200]!r}")
    if not found.ok:
        raise click.ClickException(f"The model did not reply as asked ({llm_check.PROMPT!r}).")
    click.echo("OK: the model replied as asked.")
