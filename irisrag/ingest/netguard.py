"""SSRF guard: decide whether a URL's host may be reached, and resolve it to checked addresses.

Every address a host name resolves to must be public, unless the allowlist opens it on
purpose (a host name, an IP address or a CIDR network). Cloud metadata endpoints stay
closed even then. Numeric IPv4 spellings that ``inet_aton`` accepts (``2130706433``,
``0x7f.1``, ``0177.0.0.1``) are parsed here, so they are judged as the address they mean.
"""
from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from irisrag.errors import BlockedAddress, HostNotFound
from irisrag.i18n import N_, Label

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Cloud metadata services hand out credentials; the allowlist never opens them.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "168.63.129.16")
)
METADATA_REASON = N_("cloud metadata service")
LOCALHOST = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))
CGNAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")


_HOST_RE = re.compile(r"^(\*\.)?[a-z0-9_]([a-z0-9_-]{0,62})?(\.[a-z0-9_]([a-z0-9_-]{0,62})?)*$")


class AllowlistEntryError(ValueError):
    """An IRISRAG_URL_ALLOWLIST entry that is not a host, host:port or network."""

    def __init__(self, entry: str) -> None:
        super().__init__(
            f"the entry {entry!r} is not a host name, host:port, IP address or network (CIDR); "
            "examples: wiki.intern, wiki.intern:8080, *.corp.example, 10.0.0.0/8, [fd00::1]:443"
        )
        self.entry = entry


@dataclass(frozen=True)
class AllowRule:
    """One entry: a host name pattern or a network, optionally limited to one port."""

    host: str | None = None
    network: IPNetwork | None = None
    port: int | None = None

    def matches(self, host: str, address: IPAddress | None, port: int | None) -> bool:
        """Return True when this rule opens the host (or address) on that port."""
        if self.port is not None and port != self.port:
            return False
        if self.network is not None:
            return address is not None and address.version == self.network.version and address in self.network
        name = host.lower().rstrip(".")
        assert self.host is not None
        return name == self.host or (self.host.startswith("*.") and name.endswith(self.host[1:]))


def _split_port(entry: str) -> tuple[str, int | None]:
    """Split 'host:port' and '[v6]:port'; a bare IPv6 address keeps its colons."""
    if entry.startswith("["):
        inner, bracket, rest = entry[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ValueError(entry)
        return inner, _port(rest[1:]) if rest else None
    if entry.count(":") == 1:
        target, port = entry.split(":")
        return target, _port(port)
    return entry, None


def _port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ValueError(text)
    return int(text)


def parse_rule(raw: str) -> AllowRule:
    """Parse one allowlist entry; raise AllowlistEntryError naming it when it makes no sense."""
    entry = raw.strip().lower()
    try:
        target, port = _split_port(entry)
        target = target.rstrip(".")
        try:
            return AllowRule(network=ipaddress.ip_network(target, strict=False), port=port)
        except ValueError:
            pass
        host = target if target.isascii() else target.encode("idna").decode("ascii")
        if not _HOST_RE.match(host) or len(host) > 253 or literal_address(host) is not None:
            raise ValueError(raw)
        return AllowRule(host=host, port=port)
    except (ValueError, UnicodeError):
        raise AllowlistEntryError(raw.strip()) from None


@dataclass(frozen=True)
class Allowlist:
    """Hosts and networks the administrator opened although they are not public.

    An entry without a port opens every port of that host or network; ``host:port``
    (``[v6]:port``, ``net/len:port``) opens that one port only. Redirect hops and the
    connection itself are checked against the same rules, with the port they use.
    """

    rules: tuple[AllowRule, ...] = ()

    @classmethod
    def parse(cls, entries: Sequence[str]) -> Allowlist:
        """Build an allowlist from host names ('intranet', '*.corp.example'), IPs, CIDR networks, each with an optional port."""
        return cls(tuple(parse_rule(raw) for raw in entries if raw.strip()))

    def allows(self, host: str, address: IPAddress | None, port: int | None) -> bool:
        """Return True when some rule opens this host name or address on this port."""
        return any(rule.matches(host, address, port) for rule in self.rules)

    def allows_host(self, host: str, port: int | None = None) -> bool:
        """Return True when the host name itself is on the list (exactly or by '*.' suffix)."""
        return any(r.host is not None and r.matches(host, None, port) for r in self.rules)

    def allows_address(self, address: IPAddress, port: int | None = None) -> bool:
        """Return True when the address lies in an allowlisted network."""
        return any(r.network is not None and r.matches("", address, port) for r in self.rules)


def parse_legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Parse the numeric IPv4 forms inet_aton accepts (decimal, octal, hex, 1-4 parts)."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values: list[int] = []
    for part in parts:
        try:
            if part.lower().startswith("0x"):
                values.append(int(part[2:] or "0", 16))
            elif len(part) > 1 and part.startswith("0"):
                values.append(int(part, 8))
            else:
                values.append(int(part, 10))
        except ValueError:
            return None
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(values)):
        return None
    number = last
    for position, value in enumerate(head):
        number += value << (8 * (3 - position))
    return ipaddress.IPv4Address(number)


def literal_address(host: str) -> IPAddress | None:
    """Return the IP address a host spelled as a number means, or None for a name."""
    bare = host.strip("[]").rstrip(".")
    try:
        return ipaddress.ip_address(bare.split("%", 1)[0])  # drop an IPv6 zone id
    except ValueError:
        return parse_legacy_ipv4(bare)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Return IPv4 addresses carried inside an IPv6 address (mapped, 6to4, Teredo, NAT64)."""
    found = [a for a in (address.ipv4_mapped, address.sixtofour) if a is not None]
    if address.teredo:
        found.extend(address.teredo)
    if address in NAT64:
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def block_reason(address: IPAddress) -> str | None:
    """Return why an address is not public (a message id), or None when it is."""
    if address in METADATA_ADDRESSES:
        return METADATA_REASON
    if isinstance(address, ipaddress.IPv6Address):
        for inner in _embedded_ipv4(address):
            reason = block_reason(inner)
            if reason:
                return reason
    checks = (
        (N_("loopback"), address.is_loopback),
        (N_("unspecified"), address.is_unspecified),
        (N_("link-local"), address.is_link_local),
        (N_("multicast"), address.is_multicast),
        (N_("private network"), address.is_private),
        (N_("shared address space (CGNAT)"), address.version == 4 and address in CGNAT),
        (N_("reserved"), address.is_reserved),
        (N_("not globally routable"), not address.is_global),
    )
    return next((name for name, hit in checks if hit), None)


def check_address(address: IPAddress, host: str, allowlist: Allowlist, port: int | None = None) -> None:
    """Raise BlockedAddress unless the address is public or opened by the allowlist (on this port)."""
    reason = block_reason(address)
    if reason is None:
        return
    metadata = reason == METADATA_REASON
    if not metadata and allowlist.allows(host, address, port):
        return
    hint = "never allowed" if metadata else "add it (or host:port) to IRISRAG_URL_ALLOWLIST to permit it"
    raise BlockedAddress(
        N_("The address of %(host)s is not allowed for URL import: %(reason)s"),
        f"host={host} address={address} port={port}; {hint}",
        params={"host": host, "reason": Label(reason)},
    )


def resolve(host: str, port: int) -> list[IPAddress]:
    """Resolve a host name to its IP addresses (literal addresses are returned as they are)."""
    literal = literal_address(host)
    if literal is not None:
        return [literal]
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return list(LOCALHOST)  # RFC 6761: always loopback, whatever a resolver says
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise HostNotFound(N_("The host name %(host)s could not be resolved"), str(exc), params={"host": host}) from exc
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise HostNotFound(N_("The host name %(host)s could not be resolved"), "no addresses", params={"host": host})
    return addresses


def checked_addresses(host: str, port: int, allowlist: Allowlist) -> list[IPAddress]:
    """Resolve a host and return its addresses, refusing if any of them is blocked."""
    addresses = resolve(host, port)
    for address in addresses:
        check_address(address, host, allowlist, port)
    return addresses
