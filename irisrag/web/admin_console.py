"""Blueprint ``admin``: the console with its five tabs (SPEC 6) and the helpers every admin route module uses.

The route modules (``admin``, ``admin_api_keys``, ``admin_directory``, ``admin_documents``,
``admin_system``) import ``bp`` from here and add their routes; ``admin_pages`` adds the
pages with views of their own and the tab bar. The app factory imports them all before it
registers ``bp`` (``irisrag.web._register_blueprints``).
"""
from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, abort, redirect, url_for
from flask_babel import gettext as _

from irisrag.errors import IrisRagError
from irisrag.web.admin_tabs import BY_KEY
from irisrag.web.htmx import is_htmx, render

bp = Blueprint("admin", __name__, url_prefix="/admin")


def render_tab(tab: str, status: int = 200, **extra):
    """Render a console tab (see ``admin_tabs``): the fragment for htmx, the whole console otherwise."""
    if tab not in BY_KEY:
        abort(404)
    context = {"tab": tab, "message": None, "error": None, "row_errors": {}, **BY_KEY[tab].context(), **extra}
    return render("admin/index.html", f"admin/_{tab}.html", status=status, **context)


def run_action(tab: str, action: Callable[[], object], message: str, *, form=None, form_key: str | None = None,
               row: int | None = None):
    """Run a service call; answer with the tab showing the outcome next to the right input."""
    if form is not None and not form.validate_on_submit():
        return render_tab(tab, 400, **{form_key: form})
    try:
        action()
    except IrisRagError as exc:
        if form is not None and getattr(exc, "field", None) in form:
            form[exc.field].errors = [exc.translated(_)]
            return render_tab(tab, exc.status, **{form_key: form})
        if form is not None and exc.detail in form and form_key:
            form[exc.detail].errors = [exc.translated(_)]
            return render_tab(tab, exc.status, **{form_key: form})
        if row is not None:
            return render_tab(tab, exc.status, row_errors={row: exc.translated(_)})
        return render_tab(tab, exc.status, error=exc.translated(_))
    if not is_htmx():
        return redirect(url_for("admin.index", tab=tab))
    return render_tab(tab, message=message)
