"""A passage marked navigation at import ranks below body text and never becomes answer text (issue 37 item 2).

The marked passage is ordinary prose here, so the mark alone decides (the answer's own unit
filter, ``extractive.navigation``, would drop dot leaders anyway); the control asks the same
with the mark off.
"""
from __future__ import annotations

from irisrag.models import Document
from irisrag.services.asking import asking
from irisrag.vectors.store import ChunkIn

QUESTION = "Wie viele Tage Urlaub gibt es im Kalenderjahr?"
MARKED = "Urlaub im Kalenderjahr: wie viele Tage es gibt, steht im Kapitel Urlaub unter Tage im Kalenderjahr."
BODY = "Alle Beschäftigten haben Anspruch auf 30 Tage Urlaub."


def _ask(library, ctx, marked: bool) -> tuple[int, object]:
    document = Document.create(area=library.alpha, name="handbuch.pdf", directory="a", status="done", chunk_count=2)
    chunks = [ChunkIn(0, MARKED, 1, "", marked), ChunkIn(1, BODY, 2)]
    ctx.store.replace_document(document.id, library.alpha, chunks, ctx.embedder.embed_documents([MARKED, BODY]))
    return document.id, asking.ask(library.users["alice"], QUESTION, None)


def test_a_marked_passage_ranks_below_the_body_and_is_never_quoted(library, ctx):
    handbook, result = _ask(library, ctx, marked=True)
    chunks = [(c.document_id, c.chunk_index) for c in result.context]
    assert chunks.index((handbook, 1)) < chunks.index((handbook, 0))
    assert "30 Tage Urlaub" in result.shown_text and "steht im Kapitel" not in result.shown_text
    assert all((c.document_id, c.chunk_index) != (handbook, 0) for c in result.citations)


def test_the_same_passage_unmarked_ranks_first_and_is_quoted(library, ctx):
    handbook, result = _ask(library, ctx, marked=False)
    chunks = [(c.document_id, c.chunk_index) for c in result.context]
    assert chunks.index((handbook, 0)) < chunks.index((handbook, 1))
    assert "steht im Kapitel" in result.shown_text
