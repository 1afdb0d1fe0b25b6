"""Web layer: extensions, blueprints, security headers, request-scoped DB connections."""
from __future__ import annotations

from flask import Flask, g, request, session
from flask_babel import Babel
from flask_htmx import HTMX
from flask_wtf.csrf import CSRFProtect

from irisrag.extensions import db

csrf = CSRFProtect()
htmx_ext = HTMX()
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
    from irisrag.web import (
        admin,
        api,
        auth,
        conversations,
        dashboard,
        errors,
        labels,
        ops,
        security,
        sso,
        viewer,
    )
    from irisrag.web import logging as request_log

    request_log.init_app(app)  # first: its timer starts before the other hooks run
    csrf.init_app(app)
    htmx_ext.init_app(app)
    babel.init_app(app, locale_selector=select_locale)
    from flask_babel import get_locale, gettext

    app.jinja_env.globals["get_locale"] = get_locale
    # A stored message (an outcome, a row's error): a plain message id, or id + params as JSON
    # (irisrag.i18n.stored_message). Jinja's `_()` would %-format a plain one (a path with "%2e"
    # raised) and mark it safe; render_stored formats only the params it stored, and escapes.
    from irisrag.i18n import render_stored

    app.jinja_env.filters["translated"] = lambda text: render_stored(text, gettext)
    labels.init_app(app)
    security.init_app(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(dashboard.bp)
    app.register_blueprint(conversations.bp)
    app.register_blueprint(admin.bp)
    app.register_blueprint(ops.bp)
    sso.init_app(app)
    app.register_blueprint(viewer.bp)
    app.register_blueprint(csrf.exempt(api.bp))  # key-authenticated only, never by cookie
    errors.init_app(app)

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

    @app.after_request
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
