"""Server-sent events for streamed answers: the wire format, the response, the dashboard's and the API's events.

The dashboard posts the question with ``fetch()`` (``static/stream.js``) and reads this
response's body as it arrives: a POST keeps the question out of URLs and logs and carries
the CSRF token like any form, and a static script works under ``script-src 'self'``. (A
native ``EventSource`` can only GET, which would need a server-side pending question.)

Dashboard events carry HTML, rendered and sanitised here: ``sources`` (a pending turn of
the thread: the question, an empty answer, the sources), ``token`` (the answer so far,
``rag.render.to_html`` of the partial Markdown, at most every ``TOKEN_INTERVAL`` seconds),
then ``done`` or ``error`` (the final turn, citations linked, with its conversation's URLs). API events carry JSON (see ``openapi.py``).

When the client stops or goes away, the WSGI server's write fails and it closes this
generator; the ``finally`` closes the service's events, which closes the model's stream.
"""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, render_template, stream_with_context
from flask_babel import gettext

from irisrag.i18n import N_
from irisrag.rag import numbering
from irisrag.rag.answer import Token
from irisrag.rag.answer_types import AskResult
from irisrag.rag.answering import Done, Error, Event, Sources
from irisrag.rag.render import to_html
from irisrag.web import composer

log = logging.getLogger(__name__)

TOKEN_INTERVAL = 0.05  # seconds between two renders of the growing answer (the first token goes at once)
INTERNAL = N_("Something went wrong on our side. The error has been logged.")


def sse(event: str, data: str) -> str:
    """Return one server-sent event (every line of ``data`` as a ``data:`` field)."""
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return f"event: {event}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


def event_response(chunks: Iterator[str]) -> Response:
    """Return a text/event-stream response that sends each chunk as soon as it is produced."""
    response = Response(stream_with_context(chunks), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # a proxy (nginx) must pass each event on at once
    return response


def _rendered(events: Iterator[Event], render: Callable[[Event], str | None],
              failure: Callable[[], str]) -> Iterator[str]:
    """Render the events; close them whatever happens, and end with ``failure()`` on a bug."""
    try:
        yield ": irisrag\n\n"  # sends the headers now: the client knows the stream has begun
        for event in events:
            chunk = render(event)
            if chunk:
                yield chunk
    except Exception:  # the status line is sent: say so in the stream rather than cut it
        log.exception("stream_failed")
        yield failure()
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()  # on a stop or a dropped client this stops the model too


# --- dashboard ----------------------------------------------------------------------

def dashboard_events(events: Iterator[Event], *, show_sources: bool) -> Iterator[str]:
    """Render a streamed answer as HTML events for ``static/stream.js``."""
    last, positions = [0.0], [[]]

    def render(event: Event) -> str | None:
        if isinstance(event, Sources):
            positions[0] = [c.position for c in event.result.context]
            return sse("sources", composer.turn_html(event.result, show_sources=show_sources, pending=True))
        if isinstance(event, Token):
            now = time.monotonic()
            if now - last[0] < TOKEN_INTERVAL:
                return None  # the next token (or done) carries this text too
            last[0] = now
            return sse("token", to_html(numbering.partial(event.answer, positions[0])))
        name = "error" if isinstance(event, Error) else "done"
        return sse(name, composer.turn_html(event.result, show_sources=show_sources))

    def failure() -> str:
        return sse("error", render_template("_error.html", code=500, message=gettext(INTERNAL)))

    return _rendered(events, render, failure)


# --- API ----------------------------------------------------------------------------

def api_events(events: Iterator[Event], serialise: Callable[[AskResult], dict[str, Any]]) -> Iterator[str]:
    """Render a streamed answer as JSON events: sources, token..., then done or error."""

    def render(event: Event) -> str:
        if isinstance(event, Sources):
            return _json_event("sources", serialise(event.result))
        if isinstance(event, Token):
            return _json_event("token", {"text": event.text})
        if isinstance(event, Done):
            return _json_event("done", serialise(event.result))
        return _json_event("error", {**serialise(event.result), "code": "llm_unavailable",
                                     "message": event.message, "partial": event.partial, "incomplete": True})

    def failure() -> str:
        return _json_event("error", {"code": "internal", "message": INTERNAL, "incomplete": True})

    return _rendered(events, render, failure)


def _json_event(name: str, data: dict[str, Any]) -> str:
    return sse(name, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
