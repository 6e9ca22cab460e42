"""Which addresses a user-typed URL may reach: public only, however the address is spelled or resolved."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rse_core.errors import AddressRefusedError
from rse_core.net.addresses import (
    AddressKind,
    AddressPolicy,
    address_kind,
    check_url_without_lookup,
    literal_address,
    same_endpoint,
)
from rse_core.net.urls import display_url, redact_urls

DEFAULT = AddressPolicy()
PUBLIC = ("8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111", "2a00:1450:4001:82b::200e")
BLOCKED = {
    "127.0.0.1": AddressKind.LOOPBACK,
    "127.255.0.9": AddressKind.LOOPBACK,
    "::1": AddressKind.LOOPBACK,
    "169.254.1.1": AddressKind.LINK_LOCAL,
    "fe80::1": AddressKind.LINK_LOCAL,
    "169.254.169.254": AddressKind.METADATA,
    "fd00:ec2::254": AddressKind.METADATA,
    "10.0.0.1": AddressKind.PRIVATE,
    "172.16.5.4": AddressKind.PRIVATE,
    "192.168.1.1": AddressKind.PRIVATE,
    "fd12:3456::1": AddressKind.UNIQUE_LOCAL,
    "100.64.0.1": AddressKind.SHARED,
    "0.0.0.0": AddressKind.UNSPECIFIED,
    "::": AddressKind.UNSPECIFIED,
    "::ffff:127.0.0.1": AddressKind.LOOPBACK,
    "::ffff:a9fe:a9fe": AddressKind.METADATA,
    "64:ff9b::10.0.0.1": AddressKind.PRIVATE,
    "2002:c0a8:0101::": AddressKind.PRIVATE,  # 6to4 of 192.168.1.1
    "224.0.0.1": AddressKind.MULTICAST,
    "240.0.0.1": AddressKind.RESERVED,
    "192.0.2.1": AddressKind.RESERVED,
}
BLOCKED_V4_NETWORKS = (
    "127.0.0.0/8",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "169.254.0.0/16",
    "100.64.0.0/10",
)


@pytest.mark.parametrize(("text", "kind"), BLOCKED.items())
def test_each_non_public_range_is_named(text, kind):
    assert address_kind(ipaddress.ip_address(text)) is kind
    with pytest.raises(AddressRefusedError, match=rf"is private \({kind}\); the server only contacts public addresses"):
        DEFAULT.check_without_lookup(text)


@pytest.mark.parametrize("text", PUBLIC)
def test_public_addresses_pass(text):
    assert address_kind(ipaddress.ip_address(text)) is None
    DEFAULT.check_without_lookup(text)


@st.composite
def blocked_ipv4(draw) -> ipaddress.IPv4Address:
    network = ipaddress.ip_network(draw(st.sampled_from(BLOCKED_V4_NETWORKS)))
    offset = draw(st.integers(0, network.num_addresses - 1))
    return network.network_address + offset


def _part(value: int, style: str) -> str:
    return {"dec": str(value), "hex": hex(value), "oct": "0" + oct(value)[2:] if value else "0"}[style]


@st.composite
def spelled(draw) -> tuple[ipaddress.IPv4Address, str]:
    """A private IPv4 address and a spelling the C library also reads: 1 to 4 parts, each decimal,
    octal or hex."""
    address = draw(blocked_ipv4())
    value = int(address)
    parts = draw(st.integers(1, 4))
    styles = draw(st.lists(st.sampled_from(("dec", "hex", "oct")), min_size=parts, max_size=parts))
    leading = [(value >> (8 * (3 - index))) & 0xFF for index in range(parts - 1)]
    last = value & ((1 << (8 * (5 - parts))) - 1)
    return address, ".".join(_part(number, style) for number, style in zip([*leading, last], styles, strict=True))


@settings(suppress_health_check=[HealthCheck.too_slow])  # a shared machine can be slow to draw; not a bug
@given(spelled())
def test_every_ipv4_spelling_of_a_private_address_is_read_as_libc_reads_it_and_refused(case):
    address, spelling = case
    assert ipaddress.IPv4Address(socket.inet_aton(spelling)) == address  # the spelling is one libc accepts
    assert literal_address(spelling) == address
    for host in (spelling, f"[::ffff:{address}]", f"::ffff:{int(address) >> 16:x}:{int(address) & 0xFFFF:x}"):
        with pytest.raises(AddressRefusedError):
            DEFAULT.check_without_lookup(host)
        with pytest.raises(AddressRefusedError):
            DEFAULT.permitted_addresses(host, 80)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="0123456789abcdefxX.", max_size=20))
def test_literal_ipv4_agrees_with_inet_aton_on_any_string_of_its_characters(text):
    try:
        expected = ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:
        expected = None
    if text.strip() != text or not text:
        return
    assert literal_address(text) == expected


def resolver(mapping: dict[str, list[str]]):
    """A ``getaddrinfo`` that answers names from ``mapping`` and literals as the real one does."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in mapping:
            return [
                (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                for a in mapping[host]
            ]
        return real(host, port, *args, **kwargs)

    return getaddrinfo


def test_a_public_looking_name_that_resolves_to_a_private_address_is_refused(monkeypatch):
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        resolver({"api.example.com": ["127.0.0.1"], "mixed.example.com": ["8.8.8.8", "10.1.1.1"]}),
    )
    DEFAULT.check_without_lookup("api.example.com")  # nothing to see without a lookup
    with pytest.raises(AddressRefusedError, match=r"\(api.example.com\) is private \(loopback\)"):
        DEFAULT.permitted_addresses("api.example.com", 443)
    with pytest.raises(AddressRefusedError, match="private network"):  # one private address is enough
        DEFAULT.permitted_addresses("mixed.example.com", 443)


def test_the_operator_allows_hosts_by_name_address_or_network(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", resolver({"llm.internal": ["10.2.3.4"], "other.internal": ["10.9.9.9"]}))
    policy = AddressPolicy.from_environment({"RSE_ALLOWED_PRIVATE_HOSTS": " LLM.internal. , 127.0.0.1,10.9.0.0/16 ,"})
    assert policy.permitted_addresses("llm.internal", 80) == (ipaddress.ip_address("10.2.3.4"),)
    assert policy.permitted_addresses("other.internal", 80) == (ipaddress.ip_address("10.9.9.9"),)
    assert policy.permitted_addresses("127.0.0.1", 80) == (ipaddress.ip_address("127.0.0.1"),)
    policy.check_without_lookup("localhost")  # localhost is 127.0.0.1, which is allowed
    for refused in ("127.0.0.2", "10.10.0.1", "169.254.169.254", "metadata.google.internal"):
        with pytest.raises(AddressRefusedError):
            policy.permitted_addresses(refused, 80)


def test_metadata_and_localhost_names_are_refused_without_a_lookup(monkeypatch):
    def no_lookup(*args, **kwargs):
        raise AssertionError("looked up")

    monkeypatch.setattr(socket, "getaddrinfo", no_lookup)
    for url in (
        "http://metadata.google.internal/computeMetadata/v1",
        "http://LOCALHOST.:8080/v1",
        "http://a.localhost/",
    ):
        with pytest.raises(AddressRefusedError):
            check_url_without_lookup(url, DEFAULT)


def test_the_refusal_names_the_host_never_the_credentials():
    with pytest.raises(AddressRefusedError) as caught:
        check_url_without_lookup("http://admin:HUNTER2@10.0.0.5:8000/v1?api_key=QSECRET", DEFAULT)
    message = str(caught.value)
    assert message == (
        "This address (10.0.0.5) is private (private network); the server only contacts public addresses "
        "unless its operator allows this host (RSE_ALLOWED_PRIVATE_HOSTS)."
    )


def test_the_operators_endpoint_is_the_same_in_any_spelling_the_page_shows():
    operator = "http://user:S3CRETPASS@10.0.0.5:8000/v1?api_key=QSECRET"
    for url in (operator, display_url(operator), "HTTP://10.0.0.5:8000/v1/"):
        assert same_endpoint(url, operator)
    assert not same_endpoint("http://10.0.0.5:8001/v1", operator)
    assert not same_endpoint("http://10.0.0.5:8000/v2", operator)
    assert not same_endpoint("", "")


def test_urls_are_shown_without_credentials_or_query():
    url = "https://user:S3CRETPASS@Example.com:8443/v1?api_key=QSECRET#frag"
    assert display_url(url) == "https://example.com:8443/v1"
    assert display_url("http://u:p@[::1]:9/v1") == "http://[::1]:9/v1"
    assert display_url("user:S3CRETPASS@host/v1?k=QSECRET") == "host/v1"  # no "//": not a URL, still no secret
    line = f'HTTP Request: POST {url}/chat "200 OK" and http://a:b@c/d?e=f'
    assert redact_urls(line) == 'HTTP Request: POST https://Example.com:8443/v1 "200 OK" and http://c/d'
