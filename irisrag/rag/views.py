"""The views of an answer (sources, context entries, citations, closest documents) from its context and Document rows.

``documents`` maps document ids to their rows (``models.answer_documents.documents_in``);
a source or citation whose row is missing (deleted meanwhile, or outside the areas) is left
out or named by its id.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from irisrag.rag.answer_types import CitationView, ContextEntry, PassageView, SourceView
from irisrag.rag.citations import CheckedAnswer, chunk_id
from irisrag.rag.sources import Source, cited_sources, highlight

if TYPE_CHECKING:
    from irisrag.rag.retrieve import Context, ContextChunk

CITED_TEXT_CHARS = 2000
Documents = Mapping[int, Any]  # document id -> models.Document (with its Area)


def document_ids(context: Context) -> Iterable[int]:
    """Return the ids of the documents the context names: its chunks, sources and nearest documents."""
    return ({c.hit.document_id for c in context.chunks} | {s.document_id for s in context.sources}
            | {h.document_id for h in context.nearest})


def source_views(context: Context, documents: Documents, cited: Iterable[int] = (),
                 best_n: int = 1) -> tuple[SourceView, ...]:
    """Return the found sources joined with their Document rows (sources without a row are left out).

    ``cited``: the ids of the documents the answer cites; one the found sources lack is added
    from its context chunks with its ``best_n`` best passages (``rag.sources.cited_sources``).
    """
    found = cited_sources(context.sources, context.chunks, cited, context.terms, best_n)
    return tuple(_source_view(s, documents[s.document_id]) for s in found if s.document_id in documents)


def nearest_views(context: Context, documents: Documents) -> tuple[SourceView, ...]:
    """Return the nearest documents of an empty context (``rag.sources.nearest_documents``) with their rows."""
    return tuple(SourceView(d.id, d.display_name, d.area.id, d.area.name, d.source_url, d.original_path,
                            round(float(hit.score), 4), (), hit.chunk_index)
                 for hit in context.nearest if (d := documents.get(hit.document_id)) is not None)


def _source_view(source: Source, document: Any) -> SourceView:
    passages = tuple(
        PassageView(p.chunk_index, p.page, round(p.score, 4), tuple(highlight(p.text, p.terms)))
        for p in source.passages
    )
    return SourceView(document.id, document.display_name, document.area.id, document.area.name,
                      document.source_url, document.original_path, round(source.score, 4), passages)


def context_entries(context: Context, documents: Documents) -> tuple[ContextEntry, ...]:
    """Return the context chunks as numbered in the prompt, each with the hash of its document version."""
    return tuple(context_entry(c, documents) for c in context.chunks)


def context_entry(chunk: ContextChunk, documents: Documents) -> ContextEntry:
    """Return the view of one context chunk, with the hash of its document version."""
    hit = chunk.hit
    document = documents.get(hit.document_id)
    sha256 = document.sha256 if document is not None else ""
    return ContextEntry(chunk.position, hit.document_id, hit.area_id, hit.chunk_index, hit.page,
                        round(float(hit.score), 4), float(chunk.match.score), sha256,
                        chunk_id(hit.document_id, hit.chunk_index, sha256))


def citation_views(checked: CheckedAnswer, context: Context, documents: Documents) -> tuple[CitationView, ...]:
    """Return the cited passages of a checked answer in number order."""
    by_number = {c.position: c for c in context.chunks}
    flagged = checked.unsupported_numbers
    views = []
    for citation in checked.citations:
        hit = by_number[citation.number].hit
        document = documents.get(citation.document_id)
        views.append(CitationView(
            citation.number, citation.chunk_id, citation.document_id, citation.chunk_index,
            citation.document_sha256, citation.page, hit.area_id,
            document.display_name if document is not None else f"#{citation.document_id}",
            hit.text.strip()[:CITED_TEXT_CHARS], citation.number in flagged,
            document.sha256 if document is not None else None,
        ))
    return tuple(views)
