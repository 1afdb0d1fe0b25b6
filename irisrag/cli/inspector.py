"""`flask rag inspect`: the retrieval inspector in the terminal."""
from __future__ import annotations

import json
from dataclasses import asdict

import click

from irisrag.cli import ID, command
from irisrag.services.asking import inspector


@command("inspect")
@click.argument("question")
@click.option("--document", "document_id", type=ID, required=True, help="Document id to trace.")
@click.option("--user", default=None, help="Search the areas this user's question would search.")
@click.option("--area", "areas", multiple=True, help="Area name (repeatable); without --user: the areas to search.")
@click.option("--previous", default="", help="The previous question: trace QUESTION as its follow-up.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def inspect_command(question: str, document_id: int, user: str | None, areas: tuple[str, ...], previous: str,
                    as_json: bool) -> None:
    """Show every chunk of a document with its ranks, lexical score and the gate that dropped it."""
    search = inspector.search(question, previous) if previous.strip() else None
    trace = inspector.trace(search.text if search else question, document_id, user_ident=user,
                            area_idents=list(areas))
    if as_json:
        data = {**asdict(trace), **({"search": asdict(search)} if search else {})}
        for chunk in data["chunks"]:
            chunk["text"] = chunk["text"][:200]
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if search:
        timing = f" rewrite={search.seconds:.2f}s" if search.seconds is not None else ""
        click.echo(f"searched for: {search.text} ({search.rule}{timing}{'; ' + search.failure if search.failure else ''})")
    click.echo(f"mode={trace.mode} window={trace.candidates} areas={list(trace.area_ids)}")
    if trace.fulltext_weight is not None:
        click.echo(f"fusion: full-text weight {trace.fulltext_weight:.2f}, document share {trace.document_share:.2f} "
                   "(a document's best chunk: (1 - share) x its own fusion + share x the document's, "
                   "from its best chunk of each leg; its other chunks: their own)")
    if trace.bridged:
        click.echo("term bridge: " + ", ".join(f"{q} -> {d}" for q, d in trace.bridged)
                   + " (question words no candidate holds, searched as these document words)")
    if trace.looked_up:
        click.echo("word list: " + ", ".join(f"{q} -> {d}" for q, d in trace.looked_up)
                   + " (translations the first candidates hold, added to the full-text search)")
    if trace.translated:
        cosine = "" if trace.translated_cosine is None else f"; this document's cosine {trace.translated_cosine:.3f}"
        click.echo(f"asked in the documents' words: {trace.translated} (the gate's cosine{cosine})")
    if trace.evidence_needed is not None:
        lowered = " (lowered by GATE_TRANSLATED_ALLOWANCE: the word list translated the question)"
        click.echo(f"evidence needed: {trace.evidence_needed:.2f}{lowered if trace.translated_question else ''}")
    if trace.agreement_bonus is not None:
        click.echo(f"both searches rank this document first: +{trace.agreement_bonus:.2f} evidence (GATE_AGREEMENT_BONUS)")
    click.echo("chunk  vector  fulltext  fused  lexical  evidence  gate")
    for c in trace.chunks:
        gate = c.gate or f"in context [{c.position}]"
        evidence = "-" if c.evidence is None else f"{c.evidence:.3f}"
        click.echo(f"{c.chunk_index:>5}  {c.vector_rank or '-':>6}  {c.fulltext_rank or '-':>8}  "
                   f"{c.fused_rank or '-':>5}  {c.lexical_score:>7}  {evidence:>8}  {gate}")
