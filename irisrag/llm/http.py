"""The HTTP side of the LLM clients: deadlines, reading a reply as it arrives, naming what went wrong.

A ``Deadline`` bounds one request from its start: ``total`` seconds for the whole reply and,
for streams, ``first_token`` seconds until the first piece of text. Before every read the
socket's timeout is set to what is left, so nothing the server sends (headers at once,
keep-alive comments every few seconds, an endless answer) stretches a request past its
deadline; when it passes, the response is closed, which tells the server to stop.

Errors are typed (``irisrag.errors``): ``LLMTimeout`` (a deadline passed), ``LLMUnreachable``
(no connection), ``LLMBrokeOff`` (the reply ended without a proper finish),
``LLMContextTooLong`` / ``LLMModelNotFound`` / ``LLMRefused`` (the server said no), and a
plain ``LLMUnavailable`` for a malformed reply. Every detail names the URL and the model.
"""
from __future__ import annotations

import http.client
import json
import re
import socket
import time
from collections.abc import Iterator, Mapping
from typing import Any

import requests
import urllib3.exceptions

from irisrag.deadline import Deadline
from irisrag.errors import (
    LLMBrokeOff,
    LLMContextTooLong,
    LLMModelNotFound,
    LLMRefused,
    LLMTimeout,
    LLMUnavailable,
    LLMUnreachable,
)
from irisrag.i18n import N_, Label

TOTAL_EXPIRED = N_("%(service)s did not finish its answer within %(seconds)s s")
FIRST_TOKEN_EXPIRED = N_("%(service)s did not send its first word within %(seconds)s s")
SERVICE = Label(N_("The language model"))
_NAMED = {"service": SERVICE}
BROKE_OFF = N_("%(service)s broke off the answer")
UNEXPECTED = N_("%(service)s sent an unexpected answer")
CONNECT_TIMEOUT = 10.0
_CONTEXT_REFUSAL = re.compile(r"context[ _-]?(?:length|window|size)|too many tokens|maximum context|n_ctx"
                              r"|exceeds? (?:the )?(?:context|max)", re.IGNORECASE)
_MISSING_MODEL = re.compile(r"model.*(?:not found|does not exist|not exist)|model_not_found|try pulling",
                            re.IGNORECASE)


def timeout_error(deadline: Deadline, where: str) -> LLMTimeout:
    """Return the timeout error of the deadline's limit that ended first."""
    first = deadline.left()[1]
    detail = f"{where}: deadline passed after {time.monotonic() - deadline.started:.1f} s"
    if first:
        return LLMTimeout(FIRST_TOKEN_EXPIRED, detail, params={"service": SERVICE, "seconds": f"{deadline.first_token:g}"})
    return LLMTimeout(TOTAL_EXPIRED, detail, params={"service": SERVICE, "seconds": f"{deadline.total:g}"})


def refusal(status: int, text: str, where: str) -> LLMRefused:
    """Return the error of an HTTP error status, named by what the server said (context, model, other)."""
    detail = f"{where}: HTTP {status}: {text[:500]}"
    if _CONTEXT_REFUSAL.search(text):
        return LLMContextTooLong(N_("%(service)s refused the question: the passages do not fit its context window"),
                                 detail, params=_NAMED)
    if status == 404 and _MISSING_MODEL.search(text):
        return LLMModelNotFound(N_("%(service)s server does not have the configured model"), detail, params=_NAMED)
    return LLMRefused(N_("%(service)s answered with HTTP %(status)s"), detail, params={"service": SERVICE, "status": status})


def unreachable(url: str, where: str, exc: Exception) -> LLMUnreachable:
    """Return the error of a server that could not be reached (named by its scheme and host)."""
    base = "/".join(url.split("/", 3)[:3])
    return LLMUnreachable(N_("%(service)s at %(url)s could not be reached"), f"{where}: {exc}",
                          params={"service": SERVICE, "url": base})


def open_response(session: requests.Session, url: str, payload: dict[str, Any], deadline: Deadline, *,
                  where: str, headers: Mapping[str, str] | None = None) -> requests.Response:
    """POST JSON and return the response with its body unread; failures are typed LLMUnavailable errors."""
    left = deadline.left()[0]
    try:
        resp = session.post(url, json=payload, headers=dict(headers or {}), stream=True,
                            timeout=(min(CONNECT_TIMEOUT, max(left, 0.01)), max(left, 0.01)))
    except requests.ConnectTimeout as exc:
        raise unreachable(url, where, exc) from exc
    except requests.Timeout as exc:
        raise timeout_error(deadline, where) from exc
    except requests.RequestException as exc:
        raise unreachable(url, where, exc) from exc
    if resp.status_code >= 400:
        try:
            text = resp.raw.read(2000, decode_content=True).decode("utf-8", "replace")
        except Exception:  # the status is the news; the body is a courtesy
            text = ""
        resp.close()
        raise refusal(resp.status_code, text, where)
    return resp


def _socket(resp: requests.Response) -> socket.socket | None:
    """Return the response's socket (to bound each read), or None where urllib3 hides it."""
    connection = getattr(resp.raw, "_connection", None)
    sock = getattr(connection, "sock", None)
    if sock is None:
        fp = getattr(getattr(resp.raw, "_fp", None), "fp", None)
        sock = getattr(getattr(fp, "raw", None), "_sock", None)
    return sock if isinstance(sock, socket.socket) else None


def _read(resp: requests.Response, deadline: Deadline, where: str) -> bytes:
    """Read whatever has arrived, waiting at most until the deadline."""
    left = deadline.left()[0]
    if left <= 0:
        raise timeout_error(deadline, where)
    sock = _socket(resp)
    if sock is not None:
        sock.settimeout(left)
    try:
        return resp.raw.read1(65536)
    except (urllib3.exceptions.ReadTimeoutError, TimeoutError) as exc:
        raise timeout_error(deadline, where) from requests.ReadTimeout(str(exc))
    except (urllib3.exceptions.HTTPError, http.client.HTTPException, OSError) as exc:
        error = LLMBrokeOff(BROKE_OFF, f"{where}: the stream broke off: {type(exc).__name__}: {exc}",
                            params=_NAMED)
        raise error from requests.ConnectionError(str(exc))


def release(resp: requests.Response) -> None:
    """Return a connection whose reply was read to its end to the pool; close one abandoned midway.

    Closing an unfinished response closes its connection: that is how the server learns to stop.
    """
    if resp.raw.isclosed():
        resp.raw.release_conn()
    else:
        resp.close()


def lines(resp: requests.Response, deadline: Deadline, where: str) -> Iterator[str]:
    """Yield the body's lines as they arrive (``read1``: whatever is there), within the deadline."""
    buffer = b""
    while True:
        data = _read(resp, deadline, where)
        if not data:
            break
        *complete, buffer = (buffer + data).split(b"\n")
        for line in complete:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
    if buffer.strip():
        yield buffer.decode("utf-8", "replace")


def broke_off(where: str, why: str = "the stream ended without its end marker") -> LLMBrokeOff:
    """Return the error of a reply that ended without a proper finish."""
    error = LLMBrokeOff(BROKE_OFF, f"{where}: {why}", params=_NAMED)
    error.__cause__ = requests.ConnectionError(why)  # what requests says of a cut connection
    return error


def json_object(text: str, where: str) -> dict[str, Any]:
    """Decode one JSON object; raise the error a server reports in it (``{"error": ...}``)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise LLMUnavailable(UNEXPECTED, f"{where}: not JSON: {text[:300]!r}", params=_NAMED) from exc
    if not isinstance(data, dict) or data.get("error"):
        error = data.get("error") if isinstance(data, dict) else data
        message = error.get("message", error) if isinstance(error, dict) else error
        raise reported_error(f"{message} {json.dumps(error)[:300]}", where)
    return data


def reported_error(text: str, where: str) -> LLMRefused:
    """Return the error a server reported inside an answer (a context refusal is named as one)."""
    if _CONTEXT_REFUSAL.search(text):
        return refusal(400, text, where)
    return LLMRefused(N_("%(service)s reported an error"), f"{where}: {text[:500]}", params=_NAMED)


def read_json(resp: requests.Response, deadline: Deadline, where: str) -> dict[str, Any]:
    """Read a whole JSON body within the deadline."""
    return json_object("\n".join(lines(resp, deadline, where)), where)


def sse_events(source: Iterator[str]) -> Iterator[tuple[str, str]]:
    """Group server-sent event lines into (event, data) pairs; comments (keep-alives) and other fields are skipped."""
    event, data = "message", []
    for line in source:
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
    if data:
        yield event, "\n".join(data)


def get_json(session: requests.Session, url: str, headers: Mapping[str, str], timeout: float) -> Any:
    """GET a model list; failures name no URL (readiness answers without a login).

    A connection that is refused or not accepted in time is ``LLMUnreachable``; one that is
    accepted but not answered in time is ``LLMTimeout`` (the server is busy, not down).
    """
    try:
        resp = session.get(url, headers=dict(headers), timeout=timeout)
    except requests.ConnectTimeout as exc:
        raise LLMUnreachable(N_("down: no connection within %(seconds)s s"), url,
                             params={"seconds": f"{timeout:g}"}) from exc
    except requests.Timeout as exc:
        raise LLMTimeout(N_("busy: the server accepted the connection but did not answer within %(seconds)s s"),
                         url, params={"seconds": f"{timeout:g}"}) from exc
    except requests.RequestException as exc:
        raise LLMUnreachable(N_("down: %(error)s (connection refused or broken)"), url,
                             params={"error": type(exc).__name__}) from exc
    if resp.status_code >= 400:
        raise LLMRefused(N_("model list answered HTTP %(status)s"), url, params={"status": resp.status_code})
    try:
        return resp.json()
    except ValueError as exc:
        raise LLMUnavailable(N_("the model list is not JSON"), url) from exc


def model_listed(names: set[str], model: str) -> bool:
    """Whether ``model`` is among ``names`` (``llama3`` matches ``llama3:latest``)."""
    wanted = model if ":" in model else f"{model}:latest"
    return model in names or wanted in names
