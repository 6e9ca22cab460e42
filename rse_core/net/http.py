"""An httpx client that contacts only the addresses an :class:`~rse_core.net.addresses.AddressPolicy` permits.

The check sits where the connection is made, not before the request: httpcore asks its network
backend for a TCP connection to (host, port) for the first request and for every redirect to a new
host, and this backend resolves the host once, checks every address, and connects to a checked
address. Nothing is resolved twice, so a name that answers public for a check and private for the
connection (DNS rebinding) gets nowhere. TLS still verifies the certificate against the host name.

The client ignores ``HTTP(S)_PROXY`` (``trust_env=False``): through a proxy the server would never
see the address it contacts. An operator whose server reaches the internet only through a proxy
cannot offer user-typed endpoints; the operator's own endpoints are not built with this client.

Give it to the SDKs: ``openai.OpenAI(http_client=guarded_client(policy, library="httpx2"))``
(openai 3 speaks httpx's fork httpx2; :func:`library_of` tells), ``cohere.ClientV2(httpx_client=
guarded_client(policy))``. A refusal is raised as
:class:`~rse_core.errors.AddressRefusedError`; an SDK wraps it in its connection error, so callers
find it with :func:`refusal_in`.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from rse_core.errors import AddressRefusedError
from rse_core.net.addresses import AddressPolicy
from rse_core.net.urls import redact_urls_in_client_logs

_CAUSE_DEPTH = 10
LIBRARIES = {"httpx": "httpcore", "httpx2": "httpcore2"}
"""The HTTP libraries a client can be made for (the SDKs differ: cohere uses httpx, openai 3 its
fork httpx2, with the same API), each with the connection library under it."""


def guarded_client(
    policy: AddressPolicy,
    *,
    timeout: float = 60.0,
    follow_redirects: bool = True,
    library: str = "httpx",
    event_hooks: dict | None = None,
) -> Any:
    """A ``library``.Client for URLs a user typed: every connection, redirects included, passes ``policy``.

    ``library``: ``"httpx"`` or ``"httpx2"`` (:func:`library_of` names the one an SDK's client class uses);
    ``event_hooks``: the client's hooks (the LLM answers count each reply's bytes with one).
    """
    redact_urls_in_client_logs()
    http = importlib.import_module(library)
    transport = _transport_class(library)(policy)
    return http.Client(
        transport=transport,
        timeout=timeout,
        follow_redirects=follow_redirects,
        trust_env=False,
        event_hooks=event_hooks or {},
    )


def library_of(client_class: type) -> str:
    """The HTTP library (a key of :data:`LIBRARIES`) whose ``Client`` ``client_class`` derives from."""
    for base in client_class.__mro__:
        library = base.__module__.partition(".")[0]
        if library in LIBRARIES:
            return library
    return "httpx"


@functools.cache
def _transport_class(library: str) -> type:
    """The checking transport for ``library``: its ``HTTPTransport`` on a connection pool whose network
    backend resolves once, checks, and connects to a checked address."""
    http = importlib.import_module(library)
    core = importlib.import_module(LIBRARIES[library])

    class CheckedBackend(core.SyncBackend):
        def __init__(self, policy: AddressPolicy) -> None:
            self._policy = policy

        def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Any = None,
        ) -> Any:
            try:
                addresses = self._policy.permitted_addresses(host, port)
            except OSError as error:  # the name does not resolve: the connection failed, as without the check
                raise core.ConnectError(f"The host name could not be resolved ({type(error).__name__}).") from None
            failure: Exception = core.ConnectError("The host resolved to no address.")
            for address in addresses:
                try:
                    return super().connect_tcp(str(address), port, timeout, local_address, socket_options)
                except (core.ConnectError, core.ConnectTimeout) as error:
                    failure = error
            raise failure

    class CheckedTransport(http.HTTPTransport):
        def __init__(self, policy: AddressPolicy) -> None:
            super().__init__(trust_env=False)
            self._pool = core.ConnectionPool(
                ssl_context=http.create_ssl_context(trust_env=False),
                max_connections=20,
                max_keepalive_connections=5,
                keepalive_expiry=5.0,
                network_backend=CheckedBackend(policy),
            )

    return CheckedTransport


def refusal_in(error: BaseException) -> AddressRefusedError | None:
    """The :class:`AddressRefusedError` behind ``error`` (an SDK's connection error wraps it), if any."""
    seen: BaseException | None = error
    for _ in range(_CAUSE_DEPTH):
        if seen is None:
            return None
        if isinstance(seen, AddressRefusedError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None
