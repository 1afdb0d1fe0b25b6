"""SSRF guard: decide whether a URL's host may be reached, and resolve it to checked addresses.

Every address a host name resolves to must be public, unless the allowlist opens it on
purpose (a host name, an IP address or a CIDR network). Cloud metadata endpoints stay
closed even then. Numeric IPv4 spellings that ``inet_aton`` accepts (``2130706433``,
``0x7f.1``, ``0177.0.0.1``) are parsed here, so they are judged as the address they mean.
"""
from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from irisrag.errors import BlockedAddress, FetchError, ValidationError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Cloud metadata services hand out credentials; the allowlist never opens them.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "168.63.129.16")
)
METADATA_REASON = "cloud metadata service"
LOCALHOST = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))
CGNAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")


@dataclass(frozen=True)
class Allowlist:
    """Hosts and networks the administrator opened although they are not public."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, entries: Sequence[str]) -> Allowlist:
        """Build an allowlist from host names ('intranet', '*.corp.example'), IPs and CIDR networks."""
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for raw in entries:
            entry = raw.strip().lower().rstrip(".")
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                if "/" in entry or " " in entry:
                    raise ValidationError(
                        f"The URL allowlist entry {raw!r} is neither a host name nor an IP network", raw
                    ) from None
                hosts.add(entry)
        return cls(frozenset(hosts), tuple(networks))

    def allows_host(self, host: str) -> bool:
        """Return True when the host name itself is on the list (exactly or by '*.' suffix)."""
        host = host.lower().rstrip(".")
        if host in self.hosts:
            return True
        return any(entry.startswith("*.") and host.endswith(entry[1:]) for entry in self.hosts)

    def allows_address(self, address: IPAddress) -> bool:
        """Return True when the address lies in an allowlisted network."""
        return any(address.version == net.version and address in net for net in self.networks)


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
    """Return why an address is not public, or None when it is."""
    if address in METADATA_ADDRESSES:
        return METADATA_REASON
    if isinstance(address, ipaddress.IPv6Address):
        for inner in _embedded_ipv4(address):
            reason = block_reason(inner)
            if reason:
                return f"{reason} (inside IPv6 {address})"
    checks = (
        ("loopback", address.is_loopback),
        ("unspecified", address.is_unspecified),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private network", address.is_private),
        ("shared address space (CGNAT)", address.version == 4 and address in CGNAT),
        ("reserved", address.is_reserved),
        ("not globally routable", not address.is_global),
    )
    return next((name for name, hit in checks if hit), None)


def check_address(address: IPAddress, host: str, allowlist: Allowlist) -> None:
    """Raise BlockedAddress unless the address is public or opened by the allowlist."""
    reason = block_reason(address)
    if reason is None:
        return
    metadata = reason.startswith(METADATA_REASON)
    if not metadata and (allowlist.allows_host(host) or allowlist.allows_address(address)):
        return
    hint = "never allowed" if metadata else "add it to IRISRAG_URL_ALLOWLIST to permit it"
    raise BlockedAddress(
        f"The address of {host} is not allowed for URL import: {reason}",
        f"host={host} address={address}; {hint}",
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
        raise FetchError(f"The host name {host} could not be resolved", str(exc)) from exc
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise FetchError(f"The host name {host} could not be resolved", "no addresses")
    return addresses


def checked_addresses(host: str, port: int, allowlist: Allowlist) -> list[IPAddress]:
    """Resolve a host and return its addresses, refusing if any of them is blocked."""
    addresses = resolve(host, port)
    for address in addresses:
        check_address(address, host, allowlist)
    return addresses
