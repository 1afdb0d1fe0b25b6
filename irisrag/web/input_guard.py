"""Refuse input no view can take, before any view sees it: NUL characters, unnamed form parts.

PostgreSQL cannot store NUL in a text column ("string literal cannot contain NUL"), so a
login name, a question or a search with one failed with a 500 there (SQLite took it). No
form field, query argument, file name or JSON string of this app has a use for NUL: the
request is refused as bad input (400) on both databases, in the user's language on pages
and in English with the code ``invalid`` in the API (checked after the key, ``api_auth``).

A multipart part without a name reaches ``request.form`` under the key None, and Flask-WTF's
CSRF check calls ``key.endswith`` on every key (an AttributeError, a 500): such a page
request is a 400 before the CSRF check runs (``init_early``).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Flask, abort, request

from irisrag.errors import ValidationError
from irisrag.i18n import N_

NUL_REFUSED = N_("The input contains a NUL character, which is not allowed.")


def _json_strings(value: Any) -> Iterator[str]:
    """Yield every string (keys too) of a parsed JSON value, without recursion (it may nest deeply)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _json_body() -> Any:
    if not request.is_json:
        return None
    try:
        return request.get_json(silent=True)
    except RecursionError:  # the view refuses JSON nested this deeply with its own message
        return None


def _inputs() -> Iterator[tuple[str, str]]:
    """Yield (name, text) of every text input of the request: query, form, file names, JSON strings."""
    for source in (request.args, request.form):
        for name, value in source.items(multi=True):
            yield name, name
            yield name, value
    for name, upload in request.files.items(multi=True):
        yield name, upload.filename or ""
    for text in _json_strings(_json_body()):
        yield "json", text


def refuse_nul() -> None:
    """Raise ValidationError when any text input of the request holds a NUL character."""
    for name, text in _inputs():
        if isinstance(text, str) and "\x00" in text:  # a multipart part may come without a name (None)
            label = str(name)[:100]
            raise ValidationError(NUL_REFUSED, detail=f"NUL in {label!r}", field=label.replace("\x00", ""))


def _refuse_nul_on_pages() -> None:
    # API requests are checked once their key is known (``api_auth.key_required``): an
    # unauthenticated request never has its body parsed.
    if request.blueprint not in ("api", "ops"):  # ops: liveness and readiness take no input
        refuse_nul()


def _refuse_unnamed_parts() -> None:
    if request.blueprint not in ("api", "ops") and request.mimetype == "multipart/form-data" and (
            None in request.form or None in request.files):
        abort(400)


def init_early(app: Flask) -> None:
    """Refuse unnamed multipart parts; call before ``csrf.init_app`` (its check reads every form key)."""
    app.before_request(_refuse_unnamed_parts)


def init_app(app: Flask) -> None:
    """Check every page request's input before the views (and before the database sees it)."""
    app.before_request(_refuse_nul_on_pages)
