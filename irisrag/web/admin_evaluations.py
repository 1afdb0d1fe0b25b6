"""Admin list of evaluation runs (`flask rag eval`)."""
from __future__ import annotations

from irisrag.services.admin.evaluations import SHOWN, recent_runs
from irisrag.web.htmx import render


def list_evaluations():
    return render("admin/evaluations.html", "admin/_evaluations.html", runs=recent_runs(), metrics=SHOWN,
                  tab="evaluations")
