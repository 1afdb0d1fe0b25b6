"""Translate typed errors and HTTP errors at the web edge."""
from __future__ import annotations

import logging

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext
from flask_wtf.csrf import CSRFError
from peewee import InterfaceError, OperationalError
from werkzeug.exceptions import HTTPException

from irisrag.errors import IrisRagError
from irisrag.i18n import N_
from irisrag.web import security

log = logging.getLogger(__name__)
DATABASE_UNAVAILABLE = N_("The database is busy or not reachable at the moment. Please try again in a few seconds.")
CSRF_REFUSED = N_("The form has expired or did not come from this page. Please reload the page and try again.")
INTERNAL_ERROR = N_("Something went wrong on our side. The error has been logged.")
# Werkzeug's descriptions are English; the page shows these instead (the API keeps the English text).
HTTP_MESSAGES = {
    400: N_("The request could not be understood."),
    403: N_("You do not have permission to open this page."),
    404: N_("The page was not found."),
    405: N_("This action is not allowed here."),
    413: N_("The upload is too large."),
    429: N_("Too many requests. Please wait a moment and try again."),
    500: INTERNAL_ERROR,
}
# The HTTP reason phrases, in the user's language (werkzeug's own pages are English only).
REASONS = {
    400: N_("Bad request"), 401: N_("Not signed in"), 403: N_("Forbidden"), 404: N_("Not found"),
    405: N_("Not allowed"), 409: N_("Conflict"), 410: N_("Gone"), 413: N_("Too large"),
    415: N_("Unsupported file type"), 422: N_("Cannot be processed"), 429: N_("Too many requests"),
    500: N_("Internal error"), 502: N_("Bad gateway"), 503: N_("Service unavailable"), 504: N_("Gateway timeout"),
}


def reason(code: int) -> str:
    """Return the HTTP reason phrase of a status code in the user's language ('' when unknown)."""
    return gettext(REASONS[code]) if code in REASONS else ""


def _page(code: int, message: str):
    """Render the error as a page, or as a fragment that htmx swaps into its target."""
    from irisrag.web.htmx import is_htmx

    template = "_error.html" if is_htmx() else "error.html"
    return render_template(template, code=code, reason=reason(code), message=message), code


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def init_app(app: Flask) -> None:
    """Register the error handlers."""

    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError):
        log.warning("csrf_rejected path=%s reason=%s", request.path, exc.description)
        if _wants_json():
            return jsonify(error={"code": "csrf", "message": CSRF_REFUSED}), 400
        login_endpoint = security.logged_out_of(request.path)
        if login_endpoint is not None:  # the session ended (expired, logged out elsewhere): log in again
            return security.session_expired(login_endpoint)
        return _page(400, gettext(CSRF_REFUSED))

    @app.errorhandler(IrisRagError)
    def _domain(exc: IrisRagError):
        if _wants_json():
            return jsonify(error={"code": exc.code, "message": exc.message}), exc.status
        return _page(exc.status, exc.translated(gettext))

    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    def _database_unavailable(exc: Exception):
        # SQLite busy past busy_timeout, a PostgreSQL restart: transient, so 503 and "try again".
        log.warning("database_unavailable path=%s error=%s: %s", request.path, type(exc).__name__, exc)
        if _wants_json():
            response = jsonify(error={"code": "database_unavailable", "message": DATABASE_UNAVAILABLE})
            return response, 503, {"Retry-After": "5"}
        message = gettext(DATABASE_UNAVAILABLE)
        try:
            body, status = _page(503, message)
        except (OperationalError, InterfaceError):  # the page itself needed the database (who is logged in)
            body, status = message, 503
        return body, status, {"Retry-After": "5"}

    for code in (400, 403, 404, 405, 413, 429, 500):
        app.register_error_handler(code, _http_error)
    app.register_error_handler(HTTPException, _http_error)  # every other code: a page in the user's language


def _http_error(exc):
    code = getattr(exc, "code", 500) or 500
    message = getattr(exc, "description", "Internal error")
    if code == 500:
        log.exception("internal_error path=%s", request.path)
        message = INTERNAL_ERROR
    if _wants_json():
        return jsonify(error={"code": str(code), "message": message}), code
    if code not in HTTP_MESSAGES and code != 500:
        return _page(code, reason(code) or str(message))
    return _page(code, gettext(HTTP_MESSAGES.get(code, INTERNAL_ERROR)))
