"""Admin feedback view: recent questions with a thumbs down, with the answer, comment and cited chunk ids.

The route is registered on the ``admin`` blueprint; it is a page of its own next to the five
SPEC tabs (``admin/_tabnav.html`` links it), so it renders ``admin/index.html`` with ``tab="feedback"``.
"""
from __future__ import annotations

from irisrag.services.asking import history
from irisrag.web.htmx import render

TAB = "feedback"


def list_feedback():
    return render("admin/index.html", "admin/_feedback.html", tab=TAB, message=None, error=None,
                  rows=history.negative_feedback())
