"""Web layer: extensions, blueprints, security headers, request-scoped DB connections."""
from __future__ import annotations

from flask import Flask, g, request, session
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect

from irisrag.extensions import db
from irisrag.web.htmx import htmx as htmx_ext  # not `htmx`: that name is the submodule

csrf = CSRFProtect()
babel = Babel()
LANGUAGES = ("de", "en")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


def select_locale() -> str:
    """Pick the UI language: the header switch, the configured one, then the browser's."""
    from flask import current_app

    chosen = session.get("lang") or current_app.config.get("LANGUAGE")
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or "en"


def init_web(app: Flask) -> None:
    """Register extensions, blueprints and hooks."""
    from irisrag.web import dates, errors, input_guard, labels, params, security, sso
    from irisrag.web import logging as request_log

    request_log.init_app(app)  # first: its timer starts before the other hooks run
    input_guard.init_early(app)  # before the CSRF check, which reads every form key
    csrf.init_app(app)
    htmx_ext.init_app(app)
    dates.init_app(app)  # before Babel reads BABEL_DEFAULT_TIMEZONE
    _init_templates(app)
    labels.init_app(app)
    security.init_app(app)
    params.init_app(app)  # the <id:...> converter, before the blueprints' rules
    _register_blueprints(app)
    sso.init_app(app)
    errors.init_app(app)
    _init_hooks(app)
    input_guard.init_app(app)  # after the connection hook: the refusal page reads who is logged in


def _init_templates(app: Flask) -> None:
    """Babel with the user's locale, and the template helpers for it."""
    from flask_babel import get_locale, gettext

    from irisrag.i18n import render_stored

    babel.init_app(app, locale_selector=select_locale)
    app.jinja_env.globals["get_locale"] = get_locale
    # A stored message (an outcome, a row's error): a plain message id, or id + params as JSON
    # (irisrag.i18n.stored_message). Jinja's `_()` would %-format a plain one (a path with "%2e"
    # raised) and mark it safe; render_stored formats only the params it stored, and escapes.
    app.jinja_env.filters["translated"] = lambda text: render_stored(text, gettext)


def _register_blueprints(app: Flask) -> None:
    from irisrag.web import api, auth, conversations, dashboard, ops, viewer
    from irisrag.web.admin_console import bp as admin_bp

    _import_admin_routes()
    for blueprint in (auth.bp, dashboard.bp, conversations.bp, admin_bp, ops.bp, viewer.bp):
        app.register_blueprint(blueprint)
    app.register_blueprint(csrf.exempt(api.bp))  # key-authenticated only, never by cookie


def _import_admin_routes() -> None:
    """Import the modules that add their routes to the ``admin`` blueprint (before it is registered)."""
    from irisrag.web import admin, admin_api_keys, admin_directory, admin_documents, admin_pages, admin_system  # noqa: F401


def _init_hooks(app: Flask) -> None:
    """A database connection per request (not for ops), closed at its end; security headers."""

    @app.before_request
    def _connect() -> None:
        # Close at teardown only what this request opened (tests and CLI may hold one).
        if request.blueprint == "ops":  # liveness must not need the database; readiness checks it itself
            return
        g.db_opened = db.connect(reuse_if_open=True)

    @app.teardown_request
    def _close(_exc) -> None:
        if g.get("db_opened") and not db.is_closed():
            db.close()

    app.after_request(_headers)


def _headers(response):
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if request.endpoint and request.endpoint != "static":
        # Pages hold permissioned content: keep them out of caches and the history cache.
        response.headers["Cache-Control"] = "no-store"
        response.vary.add("HX-Request")
    return response
