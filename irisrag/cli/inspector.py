"""`flask rag inspect`: the retrieval inspector in the terminal."""
from __future__ import annotations

import json
from dataclasses import asdict

import click

from irisrag.cli import command
from irisrag.services import inspector


@command("inspect")
@click.argument("question")
@click.option("--document", "document_id", type=int, required=True, help="Document id to trace.")
@click.option("--user", default=None, help="Search the areas this user's question would search.")
@click.option("--area", "areas", multiple=True, help="Area name (repeatable); without --user: the areas to search.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def inspect_command(question: str, document_id: int, user: str | None, areas: tuple[str, ...], as_json: bool) -> None:
    """Show every chunk of a document with its ranks, lexical score and the gate that dropped it."""
    trace = inspector.trace(question, document_id, user_ident=user, area_idents=list(areas))
    if as_json:
        data = asdict(trace)
        for chunk in data["chunks"]:
            chunk["text"] = chunk["text"][:200]
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    click.echo(f"mode={trace.mode} window={trace.candidates} areas={list(trace.area_ids)}")
    click.echo("chunk  vector  fulltext  fused  lexical  gate")
    for c in trace.chunks:
        gate = c.gate or f"in context [{c.position}]"
        click.echo(f"{c.chunk_index:>5}  {c.vector_rank or '-':>6}  {c.fulltext_rank or '-':>8}  "
                   f"{c.fused_rank or '-':>5}  {c.lexical_score:>7}  {gate}")
