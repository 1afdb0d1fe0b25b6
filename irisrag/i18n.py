"""Marking strings for translation outside the web layer (no Flask import here).

A message travels as an English message id with named parameters. Where it is stored (a
document's import error, an import outcome), ``stored_message`` keeps both: the id alone when
there are no parameters (old rows hold plain ids or plain English, and still show), else a
small JSON object ``{"id": ..., "params": {...}, "labels": [...]}`` that ``render_stored``
reads back.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping

_STORED_PREFIX = '{"id": '


def N_(text: str) -> str:  # noqa: N802 - the gettext convention for "translate later"
    """Mark a message id for extraction; the web layer translates it when it shows it."""
    return text


class Label(str):
    """A message parameter that is itself a message id (a reason, a kind): translated with its message."""


def render(msgid: str, params: Mapping[str, object] | None, gettext: Callable[..., str]) -> str:
    """Translate ``msgid`` with ``gettext`` (Labels among the params are translated first)."""
    if not params:
        return gettext(msgid)
    shown = {k: gettext(str(v)) if isinstance(v, Label) and v else v for k, v in params.items()}
    return gettext(msgid, **shown)


def english(msgid: str, params: Mapping[str, object] | None) -> str:
    """The message in English (the CLI, the API, logs): the id with its parameters filled in."""
    return msgid % dict(params) if params else msgid


def stored_message(msgid: str, params: Mapping[str, object] | None = None) -> str:
    """Encode a message for a text column: the id itself, or JSON with the id and its parameters."""
    if not params:
        return msgid
    labels = sorted(k for k, v in params.items() if isinstance(v, Label))
    return json.dumps({"id": msgid, "params": {k: _plain(v) for k, v in params.items()}, "labels": labels},
                      ensure_ascii=False)


def parse_stored(text: str | None) -> tuple[str, dict]:
    """Return (message id, params) of a stored message; a plain row is its own id without params."""
    text = text or ""
    if not text.startswith(_STORED_PREFIX):
        return text, {}
    try:
        data = json.loads(text)
        msgid, params, labels = str(data["id"]), dict(data.get("params") or {}), set(data.get("labels") or ())
    except (ValueError, KeyError, TypeError, AttributeError):
        return text, {}
    return msgid, {k: Label(v) if k in labels else v for k, v in params.items()}


def render_stored(text: str | None, gettext: Callable[..., str]) -> str:
    """Translate a stored message (see ``stored_message``); a malformed one is shown as it is."""
    msgid, params = parse_stored(text)
    try:
        return render(msgid, params, gettext)
    except (KeyError, ValueError, TypeError):  # a translation that lost a placeholder: show English
        return english(msgid, params) if params else msgid


def english_stored(text: str | None) -> str:
    """A stored message in English (the API and the CLI)."""
    msgid, params = parse_stored(text)
    try:
        return english(msgid, params)
    except (KeyError, ValueError, TypeError):
        return msgid


def _plain(value: object) -> object:
    return value if isinstance(value, int | float | bool) or value is None else str(value)
