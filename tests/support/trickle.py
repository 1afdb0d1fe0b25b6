"""A raw TCP server on 127.0.0.1 that answers HTTP at one byte a second (headers or body).

It stands in for a slow or hostile server that keeps each read alive, so per-read timeouts
never fire::

    with TrickleServer(mode="headers") as server:
        fetch_url(server.url + "/", ...)

``mode``: ``headers`` trickles the status line and headers; ``body`` sends the headers at once
(with a Content-Length) and trickles the body; ``body-no-length`` trickles a body that ends
when the connection closes; ``many-headers`` sends 150 header lines at once. ``served`` counts the bytes sent.
"""
from __future__ import annotations

import socket
import threading


class TrickleServer:
    def __init__(self, mode: str = "headers", interval: float = 1.0) -> None:
        self.mode, self.interval = mode, interval
        self.served = 0
        self.connections = 0
        self._stop = threading.Event()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(8)
        self._sock.settimeout(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def __enter__(self) -> TrickleServer:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            request = b""
            while b"\r\n\r\n" not in request:
                part = conn.recv(4096)
                if not part:
                    return
                request += part
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
            if self.mode == "many-headers":  # at once, but more than http.client accepts
                conn.sendall(head + b"".join(b"X-H%d: y\r\n" % i for i in range(150)) + b"Content-Length: 2\r\n\r\nok")
            elif self.mode == "headers":
                self._trickle(conn, head + b"X-Pad: " + b"a" * 100000)
            elif self.mode == "body":
                conn.sendall(head + b"Content-Length: 100000\r\n\r\n")
                self._trickle(conn, b"b" * 100000)
            else:
                conn.sendall(head + b"Connection: close\r\n\r\n")
                self._trickle(conn, b"b" * 100000)

    def _trickle(self, conn: socket.socket, data: bytes) -> None:
        for byte in data:
            if self._stop.wait(self.interval):
                return
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                return
            self.served += 1
