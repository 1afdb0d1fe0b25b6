"""One wall-clock limit for outgoing HTTP: the URL fetcher's and the language model's.

A read timeout applies per ``recv``, so a server that trickles one byte a second never
trips it. A ``Deadline`` counts from its start instead: ``total`` bounds the whole
exchange, ``first_token`` (optional) bounds the wait for the first text until
``saw_text``. Used as a context manager it also shuts every registered socket when
``total`` passes, which ends a blocked read (headers or body) at once.
"""
from __future__ import annotations

import socket
import threading
import time


class Deadline:
    """A request's limits, counted from its start: ``total`` for all of it, ``first_token`` for its first text."""

    def __init__(self, total: float, first_token: float | None = None) -> None:
        self.started = time.monotonic()
        self.total = float(total)
        self.first_token = float(first_token) if first_token else None
        self.first_seen: float | None = None
        self._shut_down = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(self.total, self._expire)
        self._timer.daemon = True

    @property
    def seconds(self) -> float:
        """The total limit in seconds."""
        return self.total

    @property
    def expired(self) -> bool:
        """Tell whether the total limit has passed."""
        return self._shut_down or time.monotonic() - self.started >= self.total

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def saw_text(self) -> None:
        """Note that text arrived: from now on only the total limit counts."""
        if self.first_seen is None:
            self.first_seen = time.monotonic() - self.started

    def left(self) -> tuple[float, bool]:
        """Return the seconds left, and whether the first-token limit is the one that ends first."""
        elapsed = time.monotonic() - self.started
        left, first = self.total - elapsed, False
        if self.first_token is not None and self.first_seen is None and self.first_token - elapsed < left:
            left, first = self.first_token - elapsed, True
        return left, first

    def remaining(self) -> float:
        """Return the seconds left (at least a small positive number, for socket timeouts)."""
        return max(0.001, self.left()[0])

    def register(self, sock: socket.socket) -> None:
        """Watch a new socket; one opened after the deadline is shut at once."""
        with self._lock:
            self._sockets.append(sock)
            if self._shut_down:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self._shut_down = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed
        pass
