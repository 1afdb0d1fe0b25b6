"""Admin sources (issue 40): the sources page, one source's page (its documents and sync runs), create, edit,
delete, "sync now" and the runs' live progress. Admins only, on every route; forms carry the CSRF token.

Each view parses its input, calls one service and renders the page or its runs fragment.
"""
from __future__ import annotations

from flask import redirect, render_template, request, url_for
from flask_babel import gettext as _

from irisrag.errors import IrisRagError, NotFound
from irisrag.jobs import sync as sync_jobs
from irisrag.models import Area
from irisrag.models.sources import INTERVALS, KINDS
from irisrag.services.documents.import_progress import FIRST_WAIT, MAX_WAIT
from irisrag.services.sources import sources
from irisrag.services.sources.sources import SourceInput
from irisrag.web.admin_console import bp
from irisrag.web.htmx import is_htmx, render
from irisrag.web.params import id_field
from irisrag.web.security import admin_required

TAB = "sources"


def _entered(form, kind: str | None = None) -> SourceInput:
    return SourceInput(kind=kind or form.get("kind", ""), start_url=form.get("start_url", ""),
                       url_prefix=form.get("url_prefix", ""), depth=form.get("depth", 3, type=int),
                       page_limit=form.get("page_limit", 200, type=int), folder_path=form.get("folder_path", ""),
                       interval=form.get("interval", "off"))


def _choices() -> dict:
    return {"areas": list(Area.select().order_by(Area.name)), "kinds": KINDS, "intervals": tuple(INTERVALS)}


def list_sources(status: int = 200, hx: dict | None = None, **extra):
    """The sources page: every source with its last run, and the form for a new one."""
    context = {"tab": TAB, "message": None, "error": None, "entered": {}, "field_errors": {}, **extra}
    return render("admin/index.html", "admin/_sources.html", status, hx=hx,
                  source_list=sources.list_sources(), **_choices(), **context)


def _show(source_id: int, status: int = 200, hx: dict | None = None, **extra):
    try:
        source = sources.get_source(source_id)
    except NotFound as exc:
        return list_sources(404, error=exc.translated(_))
    context = {"tab": TAB, "message": None, "error": None, "field_errors": {}, "after": None, **extra}
    return render("admin/source.html", "admin/_source.html", status, hx=hx, source=source,
                  documents=sources.source_documents(source.id), runs=sources.source_runs(source.id),
                  syncing=_syncing(source.id), **_choices(), **context)


def _syncing(source_id: int) -> bool:
    try:
        return sync_jobs.is_syncing(source_id)
    except IrisRagError:
        return False


@bp.route("/sources", methods=["POST"])
@admin_required
def create_source():
    entered = _entered(request.form)
    try:
        source = sources.create_source(id_field(request.form, "area") or 0, entered)
    except IrisRagError as exc:
        field = getattr(exc, "field", None) or "area"
        return list_sources(exc.status, entered=request.form, field_errors={field: exc.translated(_)},
                            error=exc.translated(_))
    if not is_htmx():
        return redirect(url_for("admin.show_source", source_id=source.id))
    return _show(source.id, hx={"push_url": url_for("admin.show_source", source_id=source.id)},
                 message=_("Source saved. Use “Sync now” for its first sync."))


@bp.route("/sources/<id:source_id>")
@admin_required
def show_source(source_id: int):
    return _show(source_id)


@bp.route("/sources/<id:source_id>/edit", methods=["POST"])  # its own path: beside GET, an id beyond a bigint answered 405
@admin_required
def edit_source(source_id: int):
    try:
        sources.update_source(source_id, _entered(request.form, "keep"))
    except IrisRagError as exc:
        field = getattr(exc, "field", None) or "start_url"
        return _show(source_id, exc.status, field_errors={field: exc.translated(_)}, error=exc.translated(_))
    return _show(source_id, message=_("Source saved."))


@bp.route("/sources/<id:source_id>/delete", methods=["POST"])
@admin_required
def delete_source(source_id: int):
    try:
        label = sources.delete_source(source_id)
    except IrisRagError as exc:
        return list_sources(exc.status, error=exc.translated(_))
    if not is_htmx():
        return redirect(url_for("admin.list_sources"))
    return list_sources(message=_("Source %(name)s deleted; its documents stay.", name=label),
                        hx={"push_url": url_for("admin.list_sources")})


@bp.route("/sources/<id:source_id>/sync", methods=["POST"])
@admin_required
def sync_source_now(source_id: int):
    """Queue a sync; the page then follows its run live."""
    try:
        sources.get_source(source_id)
        latest = sources.source_runs(source_id, 1)
        sync_jobs.enqueue_sync(source_id)
    except IrisRagError as exc:
        return _show(source_id, exc.status if exc.status < 500 else 200, error=exc.translated(_))
    return _show(source_id, message=_("Sync queued."), after=latest[0].id if latest else 0)


@bp.route("/sources/<id:source_id>/runs")
@admin_required
def source_runs(source_id: int):
    """The runs fragment: polls itself, backing off, while a run is queued or running."""
    if not is_htmx():
        return _show(source_id)
    after = request.args.get("after", type=int)
    runs = sources.source_runs(source_id)
    wait = request.args.get("wait", FIRST_WAIT, type=float)
    return render_template("admin/_source_runs.html", source_id=source_id, runs=runs, after=after,
                           wait=min(max(wait, 1.0) * 1.5, MAX_WAIT))
