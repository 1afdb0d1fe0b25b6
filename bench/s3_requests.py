"""Count what LanceDB asks of an S3 store: a counting HTTP proxy on 127.0.0.1 in front of SeaweedFS.

LanceDB's object store is pointed at the proxy (``aws_endpoint``); every request is forwarded
unchanged (the ``Host`` header too, so the SigV4 signature stays valid) and recorded as
``(method, kind, key)`` where kind is what the request does: ``GET`` (a whole object), ``GET
range`` (a byte range), ``HEAD``, ``LIST``, ``PUT``, ``DELETE``, ``POST``. ``take`` returns and
clears what was recorded, so a benchmark counts the requests of one question.
"""
from __future__ import annotations

import http.client
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


def kind_of(method: str, path: str, headers) -> str:
    """Name what an S3 request does (LIST is a GET with ``list-type`` or on the bucket)."""
    query = parse_qs(urlsplit(path).query)
    if method == "GET" and ("list-type" in query or "prefix" in query):
        return "LIST"
    if method == "GET" and headers.get("Range"):
        return "GET range"
    return method


def key_of(path: str) -> str:
    """The object's key below the table folder (``_versions/…``, ``data/…``, ``_indices/…``), or the prefix listed."""
    parts = urlsplit(path)
    query = parse_qs(parts.query)
    key = query["prefix"][0] if "prefix" in query else parts.path
    for marker in ("_versions", "_indices", "data/", "_transactions", "_deletions"):
        at = key.find(marker)
        if at >= 0:
            return key[at:]
    return key


class CountingProxy:
    """A forwarding proxy that records every request; ``endpoint`` is its URL."""

    def __init__(self, upstream: str) -> None:
        target = urlsplit(upstream)
        self.upstream = (target.hostname, target.port)
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str, str]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> CountingProxy:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def take(self) -> list[tuple[str, str, str]]:
        """Return the requests recorded since the last call and forget them."""
        with self.lock:
            taken, self.requests = self.requests, []
        return taken

    def record(self, method: str, path: str, headers) -> None:
        with self.lock:
            self.requests.append((method, kind_of(method, path, headers), key_of(path)))

    def _handler(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                proxy.record(self.command, self.path, self.headers)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
                upstream = http.client.HTTPConnection(*proxy.upstream, timeout=60)
                try:
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    response = upstream.getresponse()
                    data = response.read()
                    self.send_response_only(response.status, response.reason)
                    head = self.command == "HEAD"   # its Content-Length is the object's size: kept
                    for name, value in response.getheaders():
                        if name.lower() not in HOP_HEADERS and (head or name.lower() != "content-length"):
                            self.send_header(name, value)
                    if not head:
                        self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                finally:
                    upstream.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

        return Handler


def summary(requests: list[tuple[str, str, str]]) -> Counter:
    """Count requests by kind."""
    return Counter(kind for _method, kind, _key in requests)


def repeated(requests_per_question: list[list[tuple[str, str, str]]]) -> Counter:
    """Count (kind, key) pairs that every question sent again: the candidates for a per-process cache."""
    seen = [Counter((kind, key) for _m, kind, key in one) for one in requests_per_question]
    if not seen:
        return Counter()
    common = set(seen[0])
    for one in seen[1:]:
        common &= set(one)
    return Counter({pair: min(one[pair] for one in seen) for pair in common})
