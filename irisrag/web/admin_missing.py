"""Admin page "Missing answers": the recent questions the library could not answer, grouped (issue 40 item 4).

Registered on the ``admin`` blueprint behind ``admin_required`` by ``admin_pages``; the
grouping is ``services.admin.missing_answers``.
"""
from __future__ import annotations

from flask_babel import gettext as _

from irisrag.errors import IrisRagError
from irisrag.services.admin import missing_answers
from irisrag.web.htmx import render

TAB = "missing"


def list_missing():
    report, error = None, None
    try:
        report = missing_answers.missing_answers()
    except IrisRagError as exc:  # the embedder (Ollama, OpenAI) cannot be reached
        error = exc.translated(_)
    return render("admin/index.html", "admin/_missing.html", status=502 if error else 200, tab=TAB, message=None,
                  error=error, report=report, NO_INFORMATION=missing_answers.NO_INFORMATION,
                  THUMBS_DOWN=missing_answers.THUMBS_DOWN)
