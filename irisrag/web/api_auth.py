"""API key authentication: only the ``X-API-Key`` header counts, never a session cookie."""
from __future__ import annotations

import logging
from functools import wraps

from flask import g, jsonify, request

from irisrag.services.admin import api_keys
from irisrag.services.admin.api_keys import KeyPrincipal
from irisrag.web.input_guard import refuse_nul

log = logging.getLogger(__name__)
HEADER = "X-API-Key"


def unauthorized(message: str):
    """Return the JSON 401 answer."""
    response = jsonify(error={"code": "unauthorized", "message": message})
    response.status_code = 401
    response.headers["WWW-Authenticate"] = f'ApiKey header="{HEADER}"'
    return response


def key_required(view):
    """Let a request through only with a valid, unrevoked key of an active account."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        raw = request.headers.get(HEADER)
        if not raw:
            return unauthorized(f"Send an API key in the {HEADER} header.")
        principal = api_keys.authenticate(raw)
        if principal is None:
            log.info("api_key_rejected path=%s address=%s", request.path, request.remote_addr)
            return unauthorized("The API key is not valid (unknown, revoked, or its account is deactivated).")
        g.api_key = principal
        refuse_nul()  # the input of a key-authenticated request only (see input_guard)
        return view(*args, **kwargs)

    return wrapper


def current_key() -> KeyPrincipal:
    """Return the key of this request (inside a ``key_required`` view)."""
    return g.api_key
