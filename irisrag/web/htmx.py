"""All HX-* handling: full page for a normal GET, fragment for an htmx request."""
from __future__ import annotations

from flask import make_response, render_template, request


def is_htmx() -> bool:
    """Return True when htmx sent this request (and it is not a history restore)."""
    return request.headers.get("HX-Request") == "true" and request.headers.get("HX-History-Restore-Request") != "true"


def render(page: str, fragment: str, status: int = 200, **context):
    """Render the fragment for htmx, the full page otherwise; both vary on HX-Request."""
    template = fragment if is_htmx() else page
    response = make_response(render_template(template, **context), status)
    response.vary.add("HX-Request")
    return response
