"""Translate typed errors and HTTP errors at the web edge."""
from __future__ import annotations

import logging

from flask import Flask, jsonify, render_template, request
from flask_wtf.csrf import CSRFError

from irisrag.errors import IrisRagError

log = logging.getLogger(__name__)


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def init_app(app: Flask) -> None:
    """Register the error handlers."""

    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError):
        log.warning("csrf_rejected path=%s reason=%s", request.path, exc.description)
        if _wants_json():
            return jsonify(error={"code": "csrf", "message": exc.description}), 400
        return render_template("error.html", code=400, message=exc.description), 400

    @app.errorhandler(IrisRagError)
    def _domain(exc: IrisRagError):
        if _wants_json():
            return jsonify(error={"code": exc.code, "message": exc.message}), exc.status
        return render_template("error.html", code=exc.status, message=exc.message), exc.status

    for code in (400, 403, 404, 405, 413, 429, 500):
        app.register_error_handler(code, _http_error)


def _http_error(exc):
    code = getattr(exc, "code", 500) or 500
    message = getattr(exc, "description", "Internal error")
    if code == 500:
        log.exception("internal_error path=%s", request.path)
        message = "Something went wrong on our side. The error has been logged."
    if _wants_json():
        return jsonify(error={"code": str(code), "message": message}), code
    return render_template("error.html", code=code, message=message), code
