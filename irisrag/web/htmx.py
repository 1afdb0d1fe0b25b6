"""All HX-* handling, through flask-htmx: full page for a normal GET, fragment for an htmx request.

Requests are read through the extension's ``htmx`` object (``bool(htmx)``: HX-Request,
``htmx.history_restore_request``, ``htmx.current_url``); responses that tell htmx what to do
(trigger an event, push a URL, retarget, redirect) are built with ``flask_htmx``'s
``make_response`` and ``HTMXResponseClientRedirect`` here, so no view writes an HX-* header.
"""
from __future__ import annotations

from flask import render_template
from flask_htmx import HTMX
from flask_htmx import make_response as htmx_response
from flask_htmx.responses import HTMXResponseClientRedirect

htmx = HTMX()  # initialised by irisrag.web.init_web; templates see it as ``htmx`` too


def is_htmx() -> bool:
    """Return True when htmx sent this request (and it is not a history restore)."""
    return bool(htmx) and not htmx.history_restore_request


def current_url() -> str | None:
    """Return the browser's URL htmx sent with the request (HX-Current-URL), if any."""
    return htmx.current_url


def respond(body, status: int = 200, **hx):
    """Return a response with htmx's response headers (flask_htmx ``make_response`` keywords: trigger, push_url...)."""
    response = htmx_response(body, status, **hx)
    response.vary.add("HX-Request")
    return response


def render(page: str, fragment: str, status: int = 200, *, hx: dict | None = None, **context):
    """Render the fragment for htmx, the full page otherwise; both vary on HX-Request.

    ``hx`` holds htmx response headers as flask_htmx keywords (e.g. ``{"trigger": "conversations-changed"}``).
    """
    template = fragment if is_htmx() else page
    return respond(render_template(template, **context), status, **(hx or {}))


def client_redirect(url: str, status: int = 200):
    """Tell htmx to load ``url`` as a whole page (HX-Redirect); 401 keeps a redirect's Location too."""
    response = HTMXResponseClientRedirect(url, status)
    if status == 401:  # a session that ended: clients without htmx's header handling still find the login
        response.headers["Location"] = url
    return response
