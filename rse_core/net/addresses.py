"""Whether the server may contact a host someone typed: only public addresses, unless the operator allows it.

A base URL a user types is fetched by the server, from inside its network: pointed at
``127.0.0.1``, a ``10.x`` service or the cloud's metadata address it would reach what the user
cannot, and show them the reply. So a user-typed host is contacted only when every address it
resolves to is public. Refused by default: loopback, link-local (``169.254/16``, ``fe80::/10``,
with the metadata address ``169.254.169.254``), RFC 1918, unique-local (``fc00::/7``), carrier-grade
NAT (``100.64/10``), unspecified, multicast and the other reserved ranges, IPv4 inside IPv6
(``::ffff:127.0.0.1``, NAT64, 6to4), and the metadata names (``metadata.google.internal``).
IPv4 spelled as ``2130706433``, ``0x7f.1`` or ``0177.0.0.1`` is read as the C library reads it.

The decision is made on the resolved addresses, and :mod:`rse_core.net.http` makes it again for
every connection (every redirect opens one) and connects to the address it checked, so a name that
resolves to a public address for the check and a private one for the connection gains nothing.

The operator allows hosts with ``RSE_ALLOWED_PRIVATE_HOSTS`` (comma-separated host names, addresses
or networks such as ``10.0.0.0/8``); the operator's own configured endpoints are never checked
(callers pass no policy for them; :func:`same_endpoint` tells the page's credential-free form of one
from another URL).
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

from rse_core.errors import AddressRefusedError

ALLOWED_PRIVATE_HOSTS_VARIABLE = "RSE_ALLOWED_PRIVATE_HOSTS"
MAX_HOST_CHARS = 253
"""The longest DNS name; a longer host is refused without a lookup."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class AddressKind(StrEnum):
    """Why an address is not public (the word the refusal shows)."""

    LOOPBACK = "loopback"
    LINK_LOCAL = "link-local"
    METADATA = "cloud metadata"
    PRIVATE = "private network"
    UNIQUE_LOCAL = "unique-local"
    SHARED = "carrier-grade NAT"
    UNSPECIFIED = "unspecified"
    MULTICAST = "multicast"
    RESERVED = "reserved"


_METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(text) for text in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
_METADATA_NAMES = frozenset({"metadata.google.internal", "metadata.goog", "metadata", "instance-data"})
_HEX = re.compile(r"0[xX][0-9a-fA-F]*")
_OCTAL = re.compile(r"0[0-7]+")
_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_NAMED_NETWORKS: tuple[tuple[IPNetwork, AddressKind], ...] = tuple(
    (ipaddress.ip_network(network), kind)
    for network, kind in (
        ("0.0.0.0/8", AddressKind.UNSPECIFIED),
        ("127.0.0.0/8", AddressKind.LOOPBACK),
        ("169.254.0.0/16", AddressKind.LINK_LOCAL),
        ("10.0.0.0/8", AddressKind.PRIVATE),
        ("172.16.0.0/12", AddressKind.PRIVATE),
        ("192.168.0.0/16", AddressKind.PRIVATE),
        ("100.64.0.0/10", AddressKind.SHARED),
        ("224.0.0.0/4", AddressKind.MULTICAST),
        ("::/128", AddressKind.UNSPECIFIED),
        ("::1/128", AddressKind.LOOPBACK),
        ("fe80::/10", AddressKind.LINK_LOCAL),
        ("fec0::/10", AddressKind.PRIVATE),  # the old site-local range
        ("fc00::/7", AddressKind.UNIQUE_LOCAL),
        ("ff00::/8", AddressKind.MULTICAST),
    )
)
# IPv6 ranges that carry an IPv4 address in their last 32 bits and reach it: NAT64 and the
# deprecated IPv4-compatible form (the mapped form and 6to4 have their own properties).
_EMBEDDING_NETWORKS = tuple(ipaddress.ip_network(network) for network in ("64:ff9b::/96", "64:ff9b:1::/48", "::/96"))


def address_kind(address: IPAddress) -> AddressKind | None:
    """Why ``address`` is not public, or ``None`` for a public one."""
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        return address_kind(embedded)
    if address in _METADATA_ADDRESSES:
        return AddressKind.METADATA
    for network, kind in _NAMED_NETWORKS:
        if address.version == network.version and address in network:
            return kind
    return None if address.is_global else AddressKind.RESERVED


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    if not isinstance(address, ipaddress.IPv6Address) or address == ipaddress.IPv6Address("::1"):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address != ipaddress.IPv6Address("::") and any(address in network for network in _EMBEDDING_NETWORKS):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def literal_address(host: str) -> IPAddress | None:
    """The address ``host`` spells without a lookup (IPv6 in brackets or not, IPv4 as ``inet_aton``
    reads it: 1 to 4 parts, each decimal, ``0``-octal or ``0x``-hex), or ``None`` for a name."""
    host = host.strip().strip("[]").split("%", 1)[0]
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            return None
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    numbers = [_inet_aton_number(part) for part in parts]
    if any(number is None for number in numbers):
        return None
    *leading, last = numbers
    if any(number > 0xFF for number in leading) or last >= 1 << (8 * (5 - len(parts))):  # type: ignore[operator]
        return None
    value = 0
    for number in leading:
        value = value << 8 | number  # type: ignore[operator]
    return ipaddress.IPv4Address(value << (8 * (5 - len(parts))) | last)  # type: ignore[operator]


def _inet_aton_number(part: str) -> int | None:
    if _HEX.fullmatch(part):
        return int(part[2:] or "0", 16)  # "0x" alone is 0 to inet_aton
    if _OCTAL.fullmatch(part):
        return int(part, 8)
    return int(part) if _DECIMAL.fullmatch(part) else None


def resolve(host: str, port: int) -> tuple[IPAddress, ...]:
    """Every address ``host`` resolves to (a literal without a lookup), in the resolver's order.

    Raises:
        OSError: the name does not resolve (``socket.gaierror``).
    """
    literal = literal_address(host)
    if literal is not None:
        return (literal,)
    found: list[IPAddress] = []
    for *_, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if address not in found:
            found.append(address)
    return tuple(found)


def _host_name(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


@dataclass(frozen=True)
class AddressPolicy:
    """Which non-public hosts the operator allows: by name, by address or by network.

    The default (nothing allowed) contacts public addresses only.
    """

    allowed_names: frozenset[str] = frozenset()
    allowed_networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, text: str) -> AddressPolicy:
        """From ``RSE_ALLOWED_PRIVATE_HOSTS``'s form: ``"llm.internal, 10.0.0.0/8, 127.0.0.1"``."""
        names: set[str] = set()
        networks: list[IPNetwork] = []
        for item in (part.strip() for part in (text or "").split(",")):
            if not item:
                continue
            try:
                networks.append(ipaddress.ip_network(item.strip("[]"), strict=False))
            except ValueError:
                names.add(_host_name(item))
        return cls(frozenset(names), tuple(networks))

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> AddressPolicy:
        environ = os.environ if environ is None else environ
        return cls.parse(environ.get(ALLOWED_PRIVATE_HOSTS_VARIABLE, ""))

    def allows_name(self, host: str) -> bool:
        return _host_name(host) in self.allowed_names

    def refusal(self, host: str, addresses: Iterable[IPAddress]) -> AddressKind | None:
        """Why one of ``host``'s ``addresses`` may not be contacted, or ``None`` when all may."""
        if self.allows_name(host):
            return None
        if _host_name(host) in _METADATA_NAMES:
            return AddressKind.METADATA
        for address in addresses:
            kind = address_kind(address)
            if kind is not None and not any(
                address.version == network.version and address in network for network in self.allowed_networks
            ):
                return kind
        return None

    def check_without_lookup(self, host: str) -> None:
        """Refuse what ``host`` shows on its face (a private literal, ``localhost``, a metadata name)
        without asking DNS: a quick answer while typing; the lookup comes at connection time.

        Raises:
            AddressRefusedError: with the one-line message of :func:`refused`.
        """
        name = _host_name(host)
        if name in _LOOPBACK_NAMES or name.endswith(".localhost"):
            literal: IPAddress | None = ipaddress.IPv4Address("127.0.0.1")  # what it resolves to, in effect
        else:
            literal = literal_address(host)
        kind = self.refusal(host, () if literal is None else (literal,))
        if kind is not None:
            raise refused(host, kind)

    def permitted_addresses(self, host: str, port: int) -> tuple[IPAddress, ...]:
        """The addresses to connect to for ``host``: all of them, once each is checked.

        Raises:
            AddressRefusedError: any address is not public and not allowed (a name that resolves
                to one public and one private address is refused: either could be used).
            OSError: the name does not resolve.
        """
        if len(host) > MAX_HOST_CHARS:
            raise AddressRefusedError("This host name is longer than a DNS name can be.")
        if self.allows_name(host):
            return resolve(host, port)
        self.check_without_lookup(host)
        addresses = resolve(host, port)
        kind = self.refusal(host, addresses)
        if kind is not None:
            raise refused(host, kind)
        return addresses


def refused(host: str, kind: AddressKind) -> AddressRefusedError:
    """The one-line refusal: names the host (bounded) and why, never anything from the URL around it."""
    shown = _host_name(host)[:80]
    return AddressRefusedError(
        f"This address ({shown}) is private ({kind}); the server only contacts public addresses unless its "
        f"operator allows this host ({ALLOWED_PRIVATE_HOSTS_VARIABLE})."
    )


def check_url_without_lookup(url: str, policy: AddressPolicy) -> None:
    """:meth:`AddressPolicy.check_without_lookup` for the host of ``url``.

    Raises:
        AddressRefusedError: the host is private on its face and not allowed.
    """
    policy.check_without_lookup(urlsplit((url or "").strip()).hostname or "")


def endpoint_identity(url: str) -> tuple[str, str, int | None, str]:
    """(scheme, host, port, path): what makes two URLs the same endpoint, credentials and query aside."""
    parts = urlsplit((url or "").strip())
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), _host_name(parts.hostname or ""), port or default, parts.path.rstrip("/")


def same_endpoint(url: str, other: str) -> bool:
    """``url`` and ``other`` reach the same endpoint (scheme, host, port and path; case and a
    trailing ``/`` aside; ``user:password@`` and the query are not compared)."""
    return bool(urlsplit((url or "").strip()).hostname) and endpoint_identity(url) == endpoint_identity(other)
