"""A small threaded HTTP server on 127.0.0.1 that records requests and serves scripted replies.

It stands in for Ollama, OpenAI-compatible servers or web pages, so the real HTTP
adapters are exercised over a real socket::

    from tests.support.http_stub import HttpStub, Reply

    with HttpStub() as stub:
        stub.add("POST", "/api/embed", Reply(json={"embeddings": [[0.6, 0.8]]}))
        stub.add("POST", "/api/chat", lambda req: Reply(json={"echo": req.json["model"]}))
        stub.add("GET", "/slow", Reply(json={}, delay=2.0))            # sleeps before answering
        stub.add("GET", "/fail", Reply(status=500, body="boom"))
        stub.add("GET", "/stream", Reply(lines=[{"a": 1}, "raw line"], line_delay=0.05))
        requests.post(stub.url + "/api/embed", json={"model": "m", "input": ["x"]})
        assert stub.requests[0].json == {"model": "m", "input": ["x"]}
        assert stub.last("POST", "/api/embed").headers["content-type"] == "application/json"

Routes match the method and the exact path; the query string is ignored for matching and
recorded as ``Recorded.query``. Several replies added for one route are served in order and
the last one repeats. A reply may be a ``Reply`` or a callable ``(Recorded) -> Reply``.
Unmatched requests are recorded too and answered 404. ``lines`` are streamed with chunked
transfer encoding, one JSON document (dicts/lists) or string per line (NDJSON, as Ollama
streams); prefix strings with ``"data: "`` yourself for server-sent events.

``closed_port()`` gives a local port with nothing listening (for "unreachable" tests), and the
``http_stub`` fixture can be registered with ``pytest_plugins = ["tests.support.http_stub"]``.
"""
from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it (header names lower-cased)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    json: Any = None


@dataclass
class Reply:
    """A scripted response: status, JSON or raw body, headers, delay, or streamed lines."""

    status: int = 200
    json: Any = None
    body: bytes | str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    lines: Sequence[Any] | None = None
    line_delay: float = 0.0
    content_type: str | None = None


Responder = Reply | Callable[[Recorded], Reply]


class HttpStub:
    """Serve scripted replies on 127.0.0.1 (ephemeral port) and record every request."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.requests: list[Recorded] = []
        self._routes: dict[tuple[str, str], list[Responder]] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = _Server((host, 0), _Handler)
        self._server.daemon_threads = True
        self._server.stub = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """Return the port the server listens on."""
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """Return the base URL, e.g. ``http://127.0.0.1:40123`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HttpStub:
        """Start serving in a daemon thread."""
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cutting short any delayed replies."""
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> HttpStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def add(self, method: str, path: str, *replies: Responder) -> HttpStub:
        """Script the replies for ``method path``, replacing earlier ones; the last repeats."""
        if not replies:
            raise ValueError("add() needs at least one reply")
        with self._lock:
            self._routes[(method.upper(), path)] = list(replies)
        return self

    def reset(self) -> None:
        """Forget recorded requests and routes."""
        with self._lock:
            self.requests.clear()
            self._routes.clear()

    def last(self, method: str | None = None, path: str | None = None) -> Recorded:
        """Return the latest recorded request, optionally of this method and path."""
        with self._lock:
            for req in reversed(self.requests):
                if (method is None or req.method == method.upper()) and (path is None or req.path == path):
                    return req
        raise AssertionError(f"no request recorded for {method} {path}")

    def wait_for(self, count: int, timeout: float = 5.0) -> list[Recorded]:
        """Wait until at least ``count`` requests were recorded and return them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.requests) >= count:
                    return list(self.requests)
            time.sleep(0.01)
        raise AssertionError(f"expected {count} requests, got {len(self.requests)}")

    def _record_and_pick(self, req: Recorded) -> Reply:
        with self._lock:
            self.requests.append(req)
            queue = self._routes.get((req.method, req.path))
            if not queue:
                return Reply(status=404, json={"error": f"no route for {req.method} {req.path}"})
            responder = queue.pop(0) if len(queue) > 1 else queue[0]
        return responder(req) if callable(responder) else responder


class _Server(ThreadingHTTPServer):
    # socketserver's default backlog is 5: 32 clients connecting at once overflow it and,
    # on a loaded machine, some connects fail. Real servers listen with a deep backlog.
    request_queue_size = 128


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like real servers; every reply is framed

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def _handle(self) -> None:
        stub: HttpStub = self.server.stub  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        req = Recorded(self.command, parts.path, parse_qs(parts.query),
                       {k.lower(): v for k, v in self.headers.items()}, body, parsed)
        try:
            reply = stub._record_and_pick(req)
            if reply.delay and stub._stopping.wait(reply.delay):
                return
            if reply.lines is not None:
                self._stream(reply, stub)
            else:
                self._send(reply)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout) before we answered

    def _send(self, reply: Reply) -> None:
        if reply.json is not None:
            payload, ctype = json.dumps(reply.json).encode(), "application/json"
        else:
            raw = reply.body or b""
            payload, ctype = (raw.encode() if isinstance(raw, str) else raw), "text/plain; charset=utf-8"
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type or ctype)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _stream(self, reply: Reply, stub: HttpStub) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type or "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        for line in reply.lines or ():
            text = line if isinstance(line, str) else json.dumps(line)
            data = (text + "\n").encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
            if reply.line_delay and stub._stopping.wait(reply.line_delay):
                return
        self.wfile.write(b"0\r\n\r\n")


def closed_port() -> int:
    """Return a local port that nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def http_stub() -> Iterator[HttpStub]:
    """Yield a started HttpStub, stopped after the test."""
    with HttpStub() as stub:
        yield stub
