"""Admin API keys (Users tab): create a key for a user (shown once), list, revoke.

Routes are registered on the ``admin`` blueprint; the section is rendered at the end of
the Users tab and reads the key list through ``api_key_rows()``.
"""
from __future__ import annotations

from flask import request
from flask_babel import gettext as _

from irisrag.errors import IrisRagError
from irisrag.services.admin import api_keys
from irisrag.web.admin_console import bp, render_tab, run_action
from irisrag.web.params import id_field, id_fields
from irisrag.web.security import admin_required

TAB = "users"


@bp.context_processor
def _api_key_rows() -> dict:
    # A function, so the list is only read when the Users tab is rendered.
    return {"api_key_rows": api_keys.list_keys}


@bp.route("/api-keys", methods=["POST"])
@admin_required
def create_api_key():
    user_id = id_field(request.form, "user")
    if user_id is None:
        return render_tab(TAB, 400, api_key_error=_("Please choose a user."))
    areas = id_fields(request.form, "areas")
    try:
        created = api_keys.create_key(user_id, name=request.form.get("name", ""), areas=areas)
    except IrisRagError as exc:
        return render_tab(TAB, exc.status, api_key_error=exc.translated(_))
    # Rendered directly (no redirect) for forms without htmx too: the key is shown only here.
    return render_tab(TAB, message=_("API key created."), new_api_key=created.plain)


@bp.route("/api-keys/<id:key_id>/revoke", methods=["POST"])
@admin_required
def revoke_api_key(key_id: int):
    return run_action(TAB, lambda: api_keys.revoke_key(key_id), _("API key revoked."))
