"""Blueprint ``auth``: the login and logout pages of both worlds."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from irisrag.errors import DirectoryUnavailable, SignInRefused, ValidationError
from irisrag.services.signin import auth as auth_service
from irisrag.web import security, sso
from irisrag.web.forms import LoginForm

bp = Blueprint("auth", __name__)


def _login(world: str):
    admin = world == "admin"
    security.refuse_bad_next(request.args.get("next"))
    form = LoginForm()
    error = None
    if form.validate_on_submit():
        try:
            user = auth_service.authenticate(
                form.username.data, form.password.data, security.client_address(), admin=admin,
                **sso.password_login_options(),
            )
        except (ValidationError, SignInRefused, DirectoryUnavailable) as exc:
            error = exc.translated(_)
            status = exc.status if exc.code in ("rate_limited", "directory_unavailable") else 401
            return render_template("auth/login.html", form=form, error=error, world=world), status
        (security.login_as_admin if admin else security.login_as_user)(user)
        default = url_for("admin.index") if admin else url_for("dashboard.index")
        return redirect(security.safe_next(request.args.get("next"), default))
    status = 400 if request.method == "POST" else 200
    expired = request.method == "GET" and request.args.get("expired") == "1"
    return render_template("auth/login.html", form=form, error=error, world=world, expired=expired), status


@bp.route("/login", methods=["GET", "POST"])
def login():
    if current_user.is_authenticated:
        return redirect(url_for("dashboard.index"))
    return _login("user")


@bp.route("/logout", methods=["GET", "POST"])
def logout():
    if request.method == "GET":  # a link (in a document, an answer) only asks; the POST carries the CSRF token
        return render_template("auth/logout.html", world="user")
    if current_user.is_authenticated:
        auth_service.end_sessions(current_user.user, world="user")
    target = sso.logout_target("user", url_for("auth.login"))  # before the session forgets the ID token
    security.logout_as_user()
    return redirect(target)


@bp.route("/admin/login", methods=["GET", "POST"])
def admin_login():
    if security.current_admin() is not None:
        return redirect(url_for("admin.index"))
    return _login("admin")


@bp.route("/admin/logout", methods=["GET", "POST"])
def admin_logout():
    if request.method == "GET":
        return render_template("auth/logout.html", world="admin")
    admin = security.current_admin()
    if admin is not None:
        auth_service.end_sessions(admin, world="admin")
    target = sso.logout_target("admin", url_for("auth.admin_login"))
    security.logout_as_admin()
    return redirect(target)


@bp.route("/language/<lang>", methods=["POST"])
def set_language(lang: str):
    from flask import session

    from irisrag.web import LANGUAGES

    if lang in LANGUAGES:
        session["lang"] = lang
    return redirect(security.safe_next(request.form.get("next"), url_for("dashboard.index")))
