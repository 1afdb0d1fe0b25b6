"""Admin documents tab (SPEC 3, 6): list, imports (upload, path, URL), live progress, rebuild, delete, coverage.

Routes are registered on the ``admin`` blueprint. Each view parses its input, calls one
service and renders the tab (or one row); typed errors become messages in the tab, per
imported item where one request imports several.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from werkzeug.exceptions import RequestEntityTooLarge

from irisrag.errors import IrisRagError, NotFound
from irisrag.ids import parse_ids
from irisrag.ingest.stage import size_text
from irisrag.services.documents import coverage as coverage_service
from irisrag.services.documents import document_bulk, import_progress
from irisrag.services.documents import documents as document_service
from irisrag.services.documents.document_list import DocumentQuery
from irisrag.web.admin_console import bp, render_tab, run_action
from irisrag.web.htmx import is_htmx, respond
from irisrag.web.logging import quiet
from irisrag.web.params import id_field
from irisrag.web.security import admin_required

log = logging.getLogger(__name__)
TAB = "documents"
MAX_URL_LINES = 100


@dataclass(frozen=True)
class Outcome:
    """One item of an import request: queued, or refused with a reason."""

    label: str
    ok: bool
    message: str = ""
    detail: str = ""
    status: int = 200


def _keep() -> dict:
    """Return the list's query-string arguments of this request (actions return to the same page)."""
    return DocumentQuery.from_args(request.args).args()


def _visible(status: int) -> int:
    # htmx (base.html responseHandling) swaps 2xx and 4xx only; a 5xx message would never be seen.
    return status if status < 500 else 200


def _import_each(items: Iterable[tuple[str, Any]], call: Callable[[Any], Any]) -> list[Outcome]:
    """Import every item on its own, so some may be queued while others are refused."""
    outcomes = []
    for label, value in items:
        try:
            doc = call(value)
        except IrisRagError as exc:
            log.info("import_refused item=%r code=%s", label[:200], exc.code)
            outcomes.append(Outcome(label, False, exc.translated(_), exc.detail, exc.status))
        else:
            outcomes.append(Outcome(doc.name, True))
    return outcomes


def _show_outcomes(outcomes: list[Outcome], entered: dict):
    """Render the tab with one line per imported item and a summary."""
    failed = [o for o in outcomes if not o.ok]
    queued = len(outcomes) - len(failed)
    message = ngettext("%(num)d import queued.", "%(num)d imports queued.", queued) if queued else None
    error = ngettext("%(num)d item was refused.", "%(num)d items were refused.", len(failed)) if failed else None
    status = 200 if queued else _visible(failed[0].status)
    return render_tab(TAB, status, outcomes=outcomes, message=message, error=error,
                      entered=entered if failed else {"area": entered.get("area")})


def _refuse(message: str, entered: dict, status: int = 400):
    return render_tab(TAB, status, error=message, entered=entered)


def _act(action: Callable[[], Any], message: Callable[[Any], str], row: int | None = None):
    """Run a document action; show its outcome in the tab (an error next to its row)."""
    try:
        result = action()
    except IrisRagError as exc:
        shown = {"row_errors": {row: exc.translated(_)}} if row is not None else {}
        return render_tab(TAB, _visible(exc.status), error=exc.translated(_), **shown)
    if not is_htmx():
        return redirect(url_for("admin.index", tab=TAB, **_keep()))
    return render_tab(TAB, message=message(result))


# --- imports ------------------------------------------------------------------

@bp.route("/documents/upload", methods=["POST"])
@admin_required
def upload_documents():
    area = id_field(request.form, "area")
    entered = {"area": area}
    files = [f for f in request.files.getlist("files") if f.filename]
    if area is None or not files:
        return _refuse(_("Please choose an area.") if area is None else _("Please choose at least one file."), entered)
    return _show_outcomes(_import_each(
        ((f.filename, f) for f in files), lambda f: document_service.import_upload(area, f.filename, f.stream),
    ), entered)


@bp.route("/documents/path", methods=["POST"])
@admin_required
def import_path_document():
    area, path = id_field(request.form, "area"), request.form.get("path", "")
    entered = {"area": area, "path": path}
    if area is None:
        return _refuse(_("Please choose an area."), entered)
    return _show_outcomes(_import_each([(path.strip(), path)],
                                       lambda p: document_service.import_path(area, p)), entered)


@bp.route("/documents/urls", methods=["POST"])
@admin_required
def import_url_documents():
    area, text = id_field(request.form, "area"), request.form.get("urls", "")
    entered, urls = {"area": area, "urls": text}, [line.strip() for line in text.splitlines() if line.strip()]
    if area is None or not urls:
        return _refuse(_("Please choose an area.") if area is None else _("Please enter at least one web address."),
                       entered)
    if len(urls) > MAX_URL_LINES:
        return _refuse(_("Please enter at most %(num)d web addresses at once.", num=MAX_URL_LINES), entered)
    outcomes = _import_each(((u, u) for u in urls), lambda u: document_service.import_url(area, u))
    # the box keeps only what was refused (each named with its reason above): the queued ones are done
    return _show_outcomes(outcomes, {**entered, "urls": "\n".join(o.label for o in outcomes if not o.ok)})


@bp.errorhandler(RequestEntityTooLarge)
def upload_too_large(exc: RequestEntityTooLarge):
    """Refuse a request over the total size limit next to the upload form, leaving the tab as it is."""
    # The body stays unread, so the tab (whose forms would read it) cannot be rendered here.
    limit = size_text(current_app.config["MAX_CONTENT_LENGTH"])
    message = _("The upload is larger than %(limit)s in all. Upload fewer files at once.", limit=limit)
    if request.content_length is not None and request.content_length <= current_app.config["MAX_CONTENT_LENGTH"]:
        parts = current_app.config.get("MAX_FORM_PARTS") or 1000  # werkzeug refused the number of parts
        message = _("Too many files at once (at most about %(num)d). Upload fewer files at once.", num=parts)
    if request.endpoint != "admin.upload_documents" or not is_htmx():
        return render_template("error.html", code=413, message=message), 413
    return respond(render_template("admin/_upload_error.html", error=message), 413, retarget="#upload-error",
                   reswap="outerHTML")


# --- one document, all documents ---------------------------------------------

@bp.route("/documents/<id:document_id>/row")
@quiet
@admin_required
def document_row(document_id: int):
    """Return one row; it keeps polling itself only while its import runs."""
    if not is_htmx():
        return render_tab(TAB)
    try:
        doc = document_service.get_document(document_id)
    except NotFound:
        return ""  # deleted meanwhile: the row disappears
    return render_template("admin/_document_row.html", d=doc, row_errors={}, keep=_keep())


@bp.route("/documents/progress")
@quiet
@admin_required
def document_progress():
    """Return the overall bar and the asked-for rows (out of band): one poll per open tab, backing off."""
    if not is_htmx():
        return render_tab(TAB)
    ids = parse_ids(request.args.get("ids", "").split(","))
    answer = import_progress.poll(ids, request.args.get("sig", ""), request.args.get("wait", 0.0, type=float))
    return render_template("admin/_progress_poll.html", poll=answer, keep=_keep(), row_errors={})


@bp.route("/documents/bulk", methods=["POST"])
@admin_required
def bulk_documents():
    """Delete, rebuild or move the selected documents; say how many, and which were refused and why."""
    picked = set(parse_ids(request.form.getlist("ids")))  # still ticked afterwards
    try:
        ids = document_bulk.parse_ids(request.form.getlist("ids"))
        result = document_bulk.apply(request.form.get("action", ""), ids, id_field(request.form, "target"))
    except IrisRagError as exc:
        return render_tab(TAB, _visible(exc.status), bulk=BulkResult(error=exc.translated(_)), picked=picked)
    if not is_htmx():
        return redirect(url_for("admin.index", tab=TAB, **_keep()))
    refused = [Outcome(r.name, False, r.error.translated(_), r.error.detail) for r in result.refused]
    message = _bulk_message(request.form["action"], result.done) if result.done else None
    error = ngettext("%(num)d document was refused.", "%(num)d documents were refused.",
                     len(refused)) if refused else None
    return render_tab(TAB, bulk=BulkResult(message, error, refused), picked=picked)


@dataclass(frozen=True)
class BulkResult:
    """What a bulk action did, shown next to the bulk bar (templates/admin/_bulk_result.html)."""

    message: str | None = None
    error: str | None = None
    refused: list[Outcome] = field(default_factory=list)


def _bulk_message(action: str, done: int) -> str:
    if action == "delete":
        return ngettext("%(num)d document deleted with its chunks.", "%(num)d documents deleted with their chunks.", done)
    if action == "rebuild":
        return ngettext("%(num)d document queued for a rebuild.", "%(num)d documents queued for a rebuild.", done)
    return ngettext("%(num)d document moved.", "%(num)d documents moved.", done)


@bp.route("/areas/<id:ident>/delete-with-documents", methods=["POST"])
@admin_required
def delete_area_with_documents(ident: int):
    """Delete an area with its documents once its name is typed (the plain delete refuses while it holds any)."""
    return run_action("areas", lambda: document_bulk.delete_area_with_documents(ident, request.form.get("confirm", "")),
                      _("Area deleted with its documents."), row=ident)


@bp.route("/documents/<id:document_id>/rebuild", methods=["POST"])
@admin_required
def rebuild_document(document_id: int):
    return _act(lambda: document_service.rebuild(document_id),
                lambda doc: _("“%(name)s” is queued for a rebuild.", name=doc.name), row=document_id)


@bp.route("/documents/rebuild", methods=["POST"])
@admin_required
def rebuild_all_documents():
    return _act(document_service.rebuild_all,
                lambda docs: ngettext("%(num)d document queued for a rebuild.",
                                      "%(num)d documents queued for a rebuild.", len(docs)))


@bp.route("/documents/<id:document_id>/cancel", methods=["POST"])
@admin_required
def cancel_document(document_id: int):
    return _act(lambda: document_service.cancel_import(document_id),
                lambda doc: _("“%(name)s” cancelled; its old chunks stay.", name=doc.name), row=document_id)


@bp.route("/documents/<id:document_id>/delete", methods=["POST"])
@admin_required
def delete_document(document_id: int):
    return _act(lambda: document_service.delete_document(document_id),
                lambda name: _("“%(name)s” deleted with its chunks.", name=name), row=document_id)


@bp.route("/documents/coverage")
@admin_required
def document_coverage():
    """Return the chunk coverage overview (loaded by the tab after it is shown)."""
    if not is_htmx():
        return render_tab(TAB)
    area_filter = id_field(request.args, "area")
    try:
        rows, error = coverage_service.chunk_coverage(area_filter), None
    except IrisRagError as exc:
        rows, error = [], exc.translated(_)
    return render_template("admin/_coverage.html", rows=rows, error=error, area_filter=area_filter)
