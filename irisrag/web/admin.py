"""Admin console routes for users, groups, areas and links (SPEC 6), on the ``admin`` blueprint (``admin_console``)."""
from __future__ import annotations

from collections.abc import Callable

from flask import abort, request
from flask_babel import gettext as _

from irisrag.i18n import N_
from irisrag.models import Area, Group
from irisrag.services.admin import admin as admin_service
from irisrag.web import forms
from irisrag.web.admin_console import bp, render_tab, run_action
from irisrag.web.params import id_field
from irisrag.web.security import admin_required, current_admin


@bp.route("/")
@bp.route("")
@admin_required
def index():
    return render_tab(request.args.get("tab", "users"))


@bp.route("/tab/<tab>")
@admin_required
def show_tab(tab: str):
    return render_tab(tab)


# --- users -------------------------------------------------------------------

@bp.route("/users", methods=["POST"])
@admin_required
def create_user():
    form = forms.UserForm()
    return run_action(
        "users", lambda: admin_service.create_user(form.username.data, form.password.data, is_admin=form.is_admin.data),
        _("User created."), form=form, form_key="user_form",
    )


@bp.route("/users/<id:user_id>", methods=["POST"])
@admin_required
def update_user(user_id: int):
    form = forms.UserEditForm()
    if not form.validate_on_submit():
        return render_tab("users", 400, row_errors={user_id: _("Please enter a user name.")})
    return run_action(
        "users", lambda: admin_service.update_user(user_id, username=form.username.data, is_admin=form.is_admin.data,
                                                   acting_user_id=current_admin().id),
        _("User saved."), row=user_id,
    )


@bp.route("/users/<id:user_id>/password", methods=["POST"])
@admin_required
def set_password(user_id: int):
    form = forms.PasswordForm()
    if not form.validate_on_submit():
        return render_tab("users", 400, row_errors={user_id: _("Please enter a password.")})
    return run_action("users", lambda: admin_service.set_password(user_id, form.password.data),
                      _("Password changed."), row=user_id)


@bp.route("/users/<id:user_id>/active", methods=["POST"])
@admin_required
def toggle_active(user_id: int):
    active = request.form.get("active") == "1"
    return run_action("users", lambda: admin_service.set_active(user_id, active, acting_user_id=current_admin().id),
                      _("User saved."), row=user_id)


@bp.route("/users/<id:user_id>/delete", methods=["POST"])
@admin_required
def delete_user(user_id: int):
    return run_action("users", lambda: admin_service.delete_user(user_id, acting_user_id=current_admin().id),
                      _("User deleted."), row=user_id)


# --- groups and areas ---------------------------------------------------------

# Whole sentences per kind: "%(label)s created." with an English label rendered "Group angelegt.".
_NOTICES = {
    Group: (N_("Group created."), N_("Group saved."), N_("Group deleted.")),
    Area: (N_("Area created."), N_("Area saved."), N_("Area deleted.")),
}


def _named_routes(tab: str, model, delete: Callable[[int], None], *, form_key: str,
                  endpoints: tuple[str, str, str]) -> None:
    """Register create, update and delete of a named model (groups, areas) under the given endpoint names."""
    created, saved, deleted = _NOTICES[model]

    def create():
        form = forms.NamedForm()
        return run_action(tab, lambda: admin_service.create_named(model, form.name.data, form.description.data),
                          _(created), form=form, form_key=form_key)

    def update(ident: int):
        form = forms.NamedForm()
        if not form.validate_on_submit():
            return render_tab(tab, 400, row_errors={ident: _("Please enter a name.")})
        return run_action(tab, lambda: admin_service.update_named(model, ident, form.name.data, form.description.data),
                          _(saved), row=ident)

    def remove(ident: int):
        return run_action(tab, lambda: delete(ident), _(deleted), row=ident)

    create_endpoint, update_endpoint, delete_endpoint = endpoints
    bp.add_url_rule(f"/{tab}", create_endpoint, admin_required(create), methods=["POST"])
    bp.add_url_rule(f"/{tab}/<id:ident>", update_endpoint, admin_required(update), methods=["POST"])
    bp.add_url_rule(f"/{tab}/<id:ident>/delete", delete_endpoint, admin_required(remove), methods=["POST"])


_named_routes("groups", Group, admin_service.delete_group, form_key="group_form",
              endpoints=("create_group", "update_group", "delete_group"))
_named_routes("areas", Area, admin_service.delete_area, form_key="area_form",
              endpoints=("create_area", "update_area", "delete_area"))


# --- links --------------------------------------------------------------------

@bp.route("/links/<kind>", methods=["POST"])
@admin_required
def change_link(kind: str):
    if kind not in ("user", "area"):
        abort(404)
    first, group = id_field(request.form, kind), id_field(request.form, "group")
    if first is None or group is None:
        return render_tab("links", 400, error=_("Please choose both sides of the link."))
    unlink = request.form.get("op") == "unlink"
    call = {
        ("user", False): admin_service.link_user, ("user", True): admin_service.unlink_user,
        ("area", False): admin_service.link_area, ("area", True): admin_service.unlink_area,
    }[(kind, unlink)]
    return run_action("links", lambda: call(first, group), _("Link removed.") if unlink else _("Link saved."))
