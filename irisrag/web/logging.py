"""One ``key=value`` log line per request: request id, method, path, status, milliseconds, who.

The path is logged without its query string, and no form or JSON body is ever logged, so
questions never reach the logs. The request id comes from a well-formed incoming
``X-Request-ID`` (a proxy's) or is made here; it is sent back in the response header so a
user's report can be matched with the line. Views marked ``@quiet`` (polls that come every few
seconds while imports run) are logged at DEBUG unless they fail.
"""
from __future__ import annotations

import logging
import re
import time
import uuid
from urllib.parse import quote

from flask import Flask, current_app, g, request

log = logging.getLogger("irisrag.request")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def request_id() -> str:
    """Return this request's id (made on first use)."""
    if "request_id" not in g:
        incoming = request.headers.get("X-Request-ID", "")
        g.request_id = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex[:16]
    return g.request_id


def quiet(view):
    """Mark a view whose successful requests are logged at DEBUG only (a poll: one line every few seconds)."""
    view.quiet_log = True
    return view


def _level(response) -> int:
    view = current_app.view_functions.get(request.endpoint)
    return logging.DEBUG if getattr(view, "quiet_log", False) and response.status_code < 400 else logging.INFO


def _who() -> str:
    """Return the principals already loaded for this request (never loads one just for the log)."""
    parts = []
    user = g.get("_login_user")  # set by Flask-Login when the view looked at current_user
    if user is not None and getattr(user, "is_authenticated", False):
        parts.append(f"user={user.id}")
    admin = g.get("admin")
    if admin is not None:
        parts.append(f"admin={admin.id}")
    key = g.get("api_key")
    if key is not None:
        parts.append(f"api_key={getattr(key, 'key_id', '?')} user={getattr(key, 'user_id', '?')}")
    return " ".join(parts) or "user=-"


def init_app(app: Flask) -> None:
    """Time every request and log it when the response is ready."""

    @app.before_request
    def _start() -> None:
        g.request_started = time.perf_counter()
        request_id()

    @app.after_request
    def _log(response):
        started = g.get("request_started")
        ms = (time.perf_counter() - started) * 1000 if started is not None else -1.0
        response.headers.setdefault("X-Request-ID", request_id())
        if request.endpoint != "static":
            log.log(_level(response), "request id=%s method=%s path=%s status=%d ms=%.1f %s", request_id(), request.method,
                     quote(request.path[:300], safe="/:@!$&'()*+,;=-._~"), response.status_code, ms, _who())
        return response
