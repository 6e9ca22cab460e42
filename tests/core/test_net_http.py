"""The address-checking httpx client against real servers on 127.0.0.1: a refused host receives nothing."""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from rse_core.errors import AddressRefusedError
from rse_core.net.addresses import AddressPolicy
from rse_core.net.http import LIBRARIES, guarded_client, library_of, refusal_in


@dataclass
class Recorder:
    """A server on 127.0.0.1 that records each path asked and answers 200, or redirects to ``location``."""

    location: str = ""
    paths: list[str] = field(default_factory=list)
    port: int = 0


@contextmanager
def serving(location: str = "") -> Iterator[Recorder]:
    recorder = Recorder(location)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            recorder.paths.append(self.path)
            self.send_response(302 if recorder.location else 200)
            if recorder.location:
                self.send_header("Location", recorder.location)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    recorder.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield recorder
    finally:
        server.shutdown()
        server.server_close()


def names(monkeypatch, mapping: dict[str, list[str]]) -> list[str]:
    """Make ``getaddrinfo`` answer the names in ``mapping`` in turn (the last answer repeats); returns
    the log of names looked up. Literal addresses go to the real resolver."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        if host in mapping:
            asked.append(host)
            answers = mapping[host]
            address = answers[min(asked.count(host), len(answers)) - 1]
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_a_local_server_receives_nothing_by_default_and_the_request_when_the_operator_allows_it(library):
    with serving() as server:
        url = f"http://127.0.0.1:{server.port}/v1/models"
        with pytest.raises(AddressRefusedError, match=r"\(127.0.0.1\) is private \(loopback\)"):
            guarded_client(AddressPolicy(), library=library).get(url)
        assert server.paths == []
        allowed = AddressPolicy.from_environment({"RSE_ALLOWED_PRIVATE_HOSTS": "127.0.0.1"})
        assert guarded_client(allowed, library=library).get(url).text == "ok"
        assert server.paths == ["/v1/models"]


def test_a_public_looking_name_resolving_to_loopback_is_refused(monkeypatch):
    names(monkeypatch, {"api.example.com": ["127.0.0.1"]})
    with serving() as server:
        with pytest.raises(AddressRefusedError, match=r"api.example.com\) is private \(loopback\)"):
            guarded_client(AddressPolicy()).get(f"http://api.example.com:{server.port}/")
        assert server.paths == []


def test_the_connection_goes_to_the_address_that_was_checked(monkeypatch):
    """DNS rebinding: the name answers an allowed address for the check and then another; the
    client resolves once and connects to what it checked."""
    asked = names(monkeypatch, {"rebind.example.com": ["127.0.0.1", "10.255.255.1"]})
    allowed = AddressPolicy(allowed_networks=(ipaddress.ip_network("127.0.0.1/32"),))
    with serving() as server:
        response = guarded_client(allowed, timeout=5).get(f"http://rebind.example.com:{server.port}/x")
        assert response.text == "ok" and server.paths == ["/x"]
    assert asked == ["rebind.example.com"]


@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_a_redirect_from_an_allowed_host_to_a_private_one_is_refused(monkeypatch, library):
    names(monkeypatch, {"allowed.example.com": ["127.0.0.1"]})
    allowed = AddressPolicy(allowed_names=frozenset({"allowed.example.com"}))
    with serving() as target, serving(location=f"http://127.0.0.1:{target.port}/secret") as redirector:
        with pytest.raises(AddressRefusedError, match=r"\(127.0.0.1\) is private"):
            guarded_client(allowed, library=library).get(f"http://allowed.example.com:{redirector.port}/start")
        assert redirector.paths == ["/start"] and target.paths == []


def test_a_name_that_does_not_resolve_is_a_connection_error(monkeypatch):
    def fail(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    with pytest.raises(httpx.ConnectError):
        guarded_client(AddressPolicy()).get("http://nowhere.example.com/")


def test_the_refusal_is_found_behind_a_wrapping_error():
    refused = AddressRefusedError("refused")
    try:
        try:
            raise refused
        except AddressRefusedError as error:
            raise ConnectionError("wrapped") from error
    except ConnectionError as wrapped:
        assert refusal_in(wrapped) is refused
    assert refusal_in(ValueError("other")) is None


def test_the_library_of_each_sdk_client_is_named():
    import cohere  # noqa: F401  (its client speaks httpx)
    import openai

    assert library_of(openai.DefaultHttpxClient) in LIBRARIES
    assert library_of(httpx.Client) == "httpx"
    assert library_of(object) == "httpx"
