"""Which network addresses a read may reach: only globally routable ones, unless allowed.

Tunnel and translation forms are unwrapped first — IPv4-mapped (``::ffff:a.b.c.d``),
IPv4-compatible (``::a.b.c.d``), IPv4-translated (``::ffff:0:a.b.c.d``), 6to4
(``2002:AABB:CCDD::``), NAT64 (``64:ff9b::/96`` and ``64:ff9b:1::/48``) and Teredo
(``2001::/32``) — so ``2002:7f00:1::`` is judged as ``127.0.0.1``. ``ipaddress.is_global`` on
Python 3.11 calls some special ranges global, so these are refused explicitly as well:
shared address space ``100.64.0.0/10`` (cloud metadata lives there), the 6to4 relay anycast
``192.88.99.0/24``, deprecated site-local ``fec0::/10``, and the documentation, benchmarking and
discard ranges (``3fff::/20`` too), SRv6 SIDs ``5f00::/16``, and multicast.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

__all__ = ["IPAddress", "blocked_reason", "embedded_ipv4", "parse_ip"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_REFUSED = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "100.64.0.0/10",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "224.0.0.0/4",
        "203.0.113.0/24",
        "240.0.0.0/4",
        "255.255.255.255/32",
        "::/128",
        "::1/128",
        "100::/64",
        "2001:db8::/32",
        "2001:2::/48",
        "3fff::/20",
        "5f00::/16",
        "2001:10::/28",
        "2001:20::/28",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
    )
)
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_COMPATIBLE = ipaddress.ip_network("::/96")  # IPv4-compatible ::a.b.c.d (deprecated)
_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # IPv4-translated (SIIT)
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")


def parse_ip(text: str) -> IPAddress:
    """An address as ``getaddrinfo`` gives it (a ``%zone`` suffix dropped)."""
    return ipaddress.ip_address(text.split("%", 1)[0])


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, compatible, translated, 6to4,
    NAT64, Teredo)."""
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip in _COMPATIBLE or ip in _TRANSLATED:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip in _SIX_TO_FOUR:
        found.append(ipaddress.IPv4Address((int(ip) >> 80) & 0xFFFFFFFF))
    if any(ip in net for net in _NAT64):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip.teredo is not None:
        found.extend(ip.teredo)
    return found


def _global(ip: IPAddress) -> bool:
    return ip.is_global and not any(ip in net for net in _REFUSED if net.version == ip.version)


def blocked_reason(ip: IPAddress, allowed: Iterable[ipaddress._BaseNetwork] = ()) -> str | None:
    """Why ``ip`` may not be reached (None when it may): it, or an IPv4 address it carries, is
    not globally routable. Addresses inside ``allowed`` networks are always reachable."""
    allowed = list(allowed)
    if any(ip.version == net.version and ip in net for net in allowed):
        return None
    candidates: list[IPAddress] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        candidates += embedded_ipv4(ip)
    for candidate in candidates:
        if any(candidate.version == net.version and candidate in net for net in allowed):
            continue
        if not _global(candidate):
            shown = f"{ip} (carrying {candidate})" if candidate is not ip else str(ip)
            return f"{shown} is not a globally routable address"
    return None
