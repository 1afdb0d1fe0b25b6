"""Blueprint ``viewer``: a cited document for a user who may read its area (404 for everybody else).

``/documents/<id>[?chunk=n]``: a PDF opens inline at the chunk's page (a redirect to its file
with ``#page=N``); any other kind is shown as indexed text with chunk n highlighted (Markdown
and HTML as extracted rendered as safe Markdown; static/app.js scrolls to the cited chunk). ``/documents/<id>/file``: the staged file itself,
PDFs inline, everything else as an attachment, always with a safe file name.
"""
from __future__ import annotations

from flask import Blueprint, Response, redirect, render_template, request, send_file, url_for
from flask_login import current_user

from irisrag.rag.lexical import terms
from irisrag.rag.sources import highlight
from irisrag.services.documents import viewer
from irisrag.web import document_markdown
from irisrag.web.params import int_field
from irisrag.web.security import user_required

bp = Blueprint("viewer", __name__)


def _chunk() -> int | None:
    return int_field(request.args, "chunk")


@bp.get("/documents/<id:document_id>")
@user_required
def show_document(document_id: int):
    chunk = _chunk()
    doc = viewer.for_user(current_user.id, document_id)
    if doc.kind == viewer.PDF:
        page = viewer.page_of(doc, chunk)
        anchor = f"#page={page}" if page else ""
        return redirect(url_for("viewer.document_file", document_id=doc.id) + anchor)
    view = viewer.document_view(current_user.id, document_id, chunk)
    response = Response(render_template("viewer/document.html", view=view))
    response.headers["Cache-Control"] = "private, no-store"
    return response


def file_response(doc) -> Response:
    """Return the staged file of a document with a safe Content-Disposition and no sniffing."""
    path = viewer.staged_file(doc)
    inline = doc.kind == viewer.PDF
    response = send_file(path, mimetype="application/pdf" if inline else "application/octet-stream",
                         as_attachment=not inline, download_name=viewer.download_name(doc), max_age=0)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "private, no-store"
    return response


@bp.get("/documents/<id:document_id>/file")
@user_required
def document_file(document_id: int):
    return file_response(viewer.for_user(current_user.id, document_id))


@bp.app_template_filter("document_markdown")
def markdown_filter(text: str):
    """Render a stored Markdown segment as safe HTML (see web/document_markdown.py)."""
    return document_markdown.render(text)


@bp.app_template_global("renders_markdown")
def renders_markdown(doc) -> bool:
    """Say whether the viewer shows this document as rendered Markdown."""
    return document_markdown.is_markdown(doc.kind or "", doc.name)


@bp.app_template_filter("passage_segments")
def passage_segments(text: str, question: str = "") -> list[tuple[str, bool]]:
    """Split a passage into (text, matched) segments for the template to escape and mark."""
    return highlight(text or "", terms(question))
