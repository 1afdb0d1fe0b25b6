"""Admin system page: queue length, workers, failed jobs (requeue), index state, disk use.

Routes are registered on the ``admin`` blueprint; like the feedback view it is a page of its
own next to the SPEC tabs (``admin/_tabnav.html`` links it) and renders ``admin/index.html``
with ``tab="system"``.
"""
from __future__ import annotations

from flask import redirect, url_for
from flask_babel import gettext as _

from irisrag import components
from irisrag.errors import IrisRagError
from irisrag.llm import auto as llm_auto
from irisrag.services.operations import system
from irisrag.web.admin_console import bp
from irisrag.web.htmx import is_htmx, render
from irisrag.web.security import admin_required

TAB = "system"


def _page(status: int = 200, message: str | None = None, error: str | None = None):
    comps = components.get()
    return render("admin/index.html", "admin/_system.html", status=status, tab=TAB, message=message,
                  error=error, view=system.system_view(), llm=llm_auto.status(comps.llm, comps.config["LLM"]))


def show_system():
    return _page()


@bp.route("/system/failed/<job_id:job_id>/requeue", methods=["POST"])
@admin_required
def requeue_failed_job(job_id: str):
    try:
        what = system.requeue_failed(job_id)
    except IrisRagError as exc:
        return _page(exc.status if exc.status < 500 else 200, error=exc.translated(_))
    if not is_htmx():
        return redirect(url_for("admin.show_system"))
    return _page(message=_("Requeued: %(what)s.", what=what))
