"""Admin tab *Directory groups*: which LDAP/OIDC groups put people into which IrisRAG groups.

A page of its own in the admin tab list (``admin_pages.pages``, which registers the GET view);
the form posts are registered here on the ``admin`` blueprint. Mappings from the settings are
shown read-only.
"""
from __future__ import annotations

from flask import current_app, request
from flask_babel import gettext as _

from irisrag.errors import IrisRagError
from irisrag.models import Group
from irisrag.services.signin import external_accounts
from irisrag.web.admin_console import bp
from irisrag.web.htmx import render
from irisrag.web.params import id_field
from irisrag.web.security import admin_required

TAB = "directory"


def _page(status: int = 200, **extra):
    context = {"tab": TAB, "message": None, "error": None,
               "stored": external_accounts.console_mappings(),
               "configured": external_accounts.setting_mappings(current_app.config),
               "groups": list(Group.select().order_by(Group.name)), **extra}
    return render("admin/index.html", "admin/_directory.html", status=status, **context)


def list_directory_groups():
    """The tab (GET): every mapping and the form for a new one."""
    return _page()


@bp.route("/directory-groups", methods=["POST"])
@admin_required
def add_directory_group():
    form = request.form
    try:
        external_accounts.add_mapping(form.get("provider", ""), form.get("external_group", ""),
                                      id_field(form, "group"), form.get("grants_admin") == "y")
    except IrisRagError as exc:
        return _page(exc.status, error=exc.translated(_))
    return _page(message=_("Mapping saved. It applies at each member's next sign-in."))


@bp.route("/directory-groups/<id:mapping_id>/delete", methods=["POST"])
@admin_required
def delete_directory_group(mapping_id: int):
    external_accounts.delete_mapping(mapping_id)
    return _page(message=_("Mapping deleted. It applies at each member's next sign-in."))
