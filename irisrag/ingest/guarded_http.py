"""A requests adapter whose connections resolve, check and pin the address themselves.

urllib3 resolves a host name when it opens a socket. These connections do that step
themselves: resolve, refuse blocked addresses (``netguard``), then connect to exactly the
checked address while the Host header, SNI and certificate check keep the host name.
"""
from __future__ import annotations

import socket
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import NewConnectionError
from urllib3.poolmanager import PoolManager

from irisrag.deadline import Deadline
from irisrag.errors import BlockedAddress
from irisrag.i18n import N_
from irisrag.ingest.netguard import Allowlist, checked_addresses


class _GuardedConnectionMixin:
    """Resolve and check the host on connect, then connect to the checked address only."""

    guard: Allowlist | None = None
    deadline: Deadline | None = None
    _dns_host: str
    port: int

    def _new_conn(self) -> socket.socket:
        if self.guard is None:
            raise BlockedAddress(N_("The connection was refused by the URL guard"), "connection without a guard")
        host = self._dns_host
        addresses = checked_addresses(host, self.port, self.guard)
        error: NewConnectionError | None = None
        for address in addresses:
            # urllib3 connects to _dns_host; Host header and TLS use the name, read after this returns.
            self._dns_host = str(address)
            try:
                sock = super()._new_conn()  # type: ignore[misc]
                if self.deadline is not None:
                    self.deadline.register(sock)
                return sock
            except NewConnectionError as exc:
                error = exc
            finally:
                self._dns_host = host
        assert error is not None
        raise error


class _GuardedHTTPConnection(_GuardedConnectionMixin, HTTPConnection):
    pass


class _GuardedHTTPSConnection(_GuardedConnectionMixin, HTTPSConnection):
    pass


class _GuardedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _GuardedHTTPConnection
    guard: Allowlist | None = None
    deadline: Deadline | None = None

    def _new_conn(self) -> HTTPConnection:
        conn = super()._new_conn()
        conn.guard, conn.deadline = self.guard, self.deadline  # type: ignore[attr-defined]
        return conn


class _GuardedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection
    guard: Allowlist | None = None
    deadline: Deadline | None = None

    def _new_conn(self) -> HTTPConnection:
        conn = super()._new_conn()
        conn.guard, conn.deadline = self.guard, self.deadline  # type: ignore[attr-defined]
        return conn


class _GuardedPoolManager(PoolManager):
    def __init__(self, guard: Allowlist, deadline: Deadline | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.guard, self.deadline = guard, deadline
        self.pool_classes_by_scheme = {"http": _GuardedHTTPPool, "https": _GuardedHTTPSPool}

    def _new_pool(self, scheme: str, host: str, port: int, request_context: dict[str, Any] | None = None) -> Any:
        pool = super()._new_pool(scheme, host, port, request_context)
        pool.guard, pool.deadline = self.guard, self.deadline
        return pool


class GuardedAdapter(HTTPAdapter):
    """HTTP(S) adapter that never connects to an address the allowlist does not permit."""

    def __init__(self, guard: Allowlist, deadline: Deadline | None = None) -> None:
        self._guard, self._deadline = guard, deadline
        super().__init__(max_retries=0)

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
        """Create the guarded pool manager (called by HTTPAdapter.__init__)."""
        self._pool_connections = connections
        self._pool_maxsize = maxsize
        self._pool_block = block
        self.poolmanager = _GuardedPoolManager(
            self._guard, self._deadline, num_pools=connections, maxsize=maxsize, block=block, **pool_kwargs
        )

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        """Refuse proxies: a proxy would resolve and connect outside the guard."""
        raise BlockedAddress(N_("URL import does not use proxies"), f"proxy {proxy!r} refused")


def guarded_adapter(guard: Allowlist, deadline: Deadline | None = None) -> GuardedAdapter:
    """Return a fresh guarded adapter for one fetch (its sockets shut at the deadline)."""
    return GuardedAdapter(guard, deadline)
