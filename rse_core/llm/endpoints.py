"""Which LLM endpoint a request may go to, and with whose key: the policy for a shared server.

The operator's keys (``OPENAI_API_KEY``, ``CO_API_KEY``, in the environment or the app's secrets)
are meant for the endpoint the operator chose: the base URL in ``OPENAI_BASE_URL`` / ``CO_API_URL``,
or the provider's public endpoint when that is unset. Sending them anywhere else hands them to
whoever typed the URL, so:

- an empty base URL, or the operator's own, uses the operator's endpoint and (when the user typed
  no key) the operator's key;
- any other base URL is the user's endpoint: it needs the user's own key whenever the operator has
  a key for that provider (a keyless request there could only confuse: the user would think the
  server's key was used); with no operator key there is nothing to leak, so a local server that
  needs no key (Ollama) still works without one;
- ``RSE_LLM_USER_ENDPOINTS=0`` refuses user endpoints outright, and ``RSE_LLM_ALLOWED_URLS``
  (comma-separated URL prefixes) refuses every user endpoint outside the list;
- a user endpoint is contacted only at public addresses unless the operator allows the host
  (``RSE_ALLOWED_PRIVATE_HOSTS``, :mod:`rse_core.net.addresses`): a private address on the URL's
  face is refused here, the rest on every connection (:mod:`rse_core.net.http`).

The page shows the operator's URL as :func:`~rse_core.net.urls.display_url` gives it (no
``user:password@``, no query), and that form still means the operator's endpoint: the full URL,
credentials and all, stays on the server.

The app's answers panel and the Evaluate judge both call :func:`resolve_endpoint`, then build
their :class:`~rse_core.llm.answers.ChatClient` from the :class:`Endpoint` it returns.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urlsplit, urlunsplit

from rse_core.errors import AddressRefusedError, LLMEndpointError
from rse_core.llm.answers import (
    BASE_URL_VARIABLES,
    DEFAULT_BASE_URLS,
    KEY_VARIABLES,
    ChatClient,
    LLMProvider,
    LLMSettings,
)
from rse_core.net.addresses import AddressPolicy, check_url_without_lookup, same_endpoint
from rse_core.net.urls import display_url

ALLOWED_URLS_VARIABLE = "RSE_LLM_ALLOWED_URLS"
USER_ENDPOINTS_VARIABLE = "RSE_LLM_USER_ENDPOINTS"
_OFF = frozenset({"0", "false", "no", "off"})


class KeySource(StrEnum):
    """Whose key goes with the request (shown to the user; never the key itself)."""

    TYPED = "typed"  # the user's own key
    OPERATOR = "operator"  # the server's key, to the server's endpoint only
    NONE = "none"  # no key (a local server that needs none)


@dataclass(frozen=True)
class Endpoint:
    """Where to send a chat request and with which key, as the policy allowed it.

    ``base_url`` (it may carry ``user:password@``) and ``api_key`` never appear in the repr.
    """

    provider: LLMProvider
    base_url: str = field(repr=False)
    api_key: str | None = field(repr=False)
    key_source: KeySource
    operator: bool
    """True for the operator's endpoint (empty or operator-configured base URL)."""
    address_policy: AddressPolicy | None = None
    """What every connection to a user's endpoint must pass; ``None`` for the operator's."""

    @property
    def display_url(self) -> str:
        return display_url(self.base_url)

    def settings(self, model: str, **options: object) -> LLMSettings:
        """LLMSettings for ``model`` at this endpoint (``options``: timeout, max_tokens, ...)."""
        return LLMSettings(provider=self.provider, model=model, base_url=self.base_url, **options)

    def client(self, settings: LLMSettings) -> ChatClient:
        """A ChatClient for ``settings`` with this endpoint's key.

        Raises:
            LLMEndpointError: ``settings`` point at another base URL than this endpoint's (the key
                must not follow them there).
        """
        if settings.provider is not self.provider or settings.resolved_base_url != self.base_url:
            raise LLMEndpointError("These LLM settings are for another endpoint than the key was resolved for.")
        return ChatClient(settings, self.api_key, address_policy=self.address_policy)


def normalise_url(url: str) -> str:
    """The form URLs are compared in: stripped, no trailing ``/``, scheme and host lower case (a
    ``user:password@`` keeps its case: the server compares it exactly)."""
    url = (url or "").strip().rstrip("/")
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return url
    userinfo, at, host = parts.netloc.rpartition("@")
    netloc = f"{userinfo}{at}{host.lower()}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, parts.fragment))


def operator_url(provider: LLMProvider, environ: Mapping[str, str]) -> str:
    """The endpoint the operator configured, or the provider's public one (credentials and all:
    server-side only; show it with :func:`shown_operator_url`)."""
    return normalise_url(environ.get(BASE_URL_VARIABLES[provider]) or DEFAULT_BASE_URLS[provider])


def shown_operator_url(provider: LLMProvider | str, environ: Mapping[str, str] | None = None) -> str:
    """What the page shows of the operator's configured base URL ("" when none is set): no
    credentials, no query; :func:`resolve_endpoint` reads it back as the operator's endpoint."""
    environ = os.environ if environ is None else environ
    configured = environ.get(BASE_URL_VARIABLES[LLMProvider.parse(provider)]) or ""
    return display_url(normalise_url(configured)) if configured.strip() else ""


def allowed_prefixes(environ: Mapping[str, str]) -> tuple[str, ...]:
    """``RSE_LLM_ALLOWED_URLS`` as normalised prefixes (empty: no allowlist)."""
    raw = environ.get(ALLOWED_URLS_VARIABLE) or ""
    return tuple(normalise_url(part) for part in raw.split(",") if part.strip())


def url_allowed(url: str, prefixes: tuple[str, ...]) -> bool:
    """``url`` is one of ``prefixes`` or lies under one at a path boundary.

    A bare string prefix would let ``https://api.example.com.evil.net`` or
    ``https://api.example.com@evil.net`` through, so the character after the prefix must be ``/``.
    """
    url = normalise_url(url)
    return any(url == prefix or url.startswith(prefix + "/") for prefix in prefixes)


def user_endpoints_allowed(environ: Mapping[str, str]) -> bool:
    return (environ.get(USER_ENDPOINTS_VARIABLE) or "").strip().lower() not in _OFF


def _operator_key(provider: LLMProvider, environ: Mapping[str, str], secrets: Mapping[str, object]) -> str | None:
    variable = KEY_VARIABLES[provider]
    value = str(environ.get(variable) or secrets.get(variable) or "").strip()
    return value or None


def resolve_endpoint(
    provider: LLMProvider | str,
    typed_url: str | None = None,
    typed_key: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    secrets: Mapping[str, object] | None = None,
) -> Endpoint:
    """The endpoint and key a request from this user may use (see the module's rules).

    Args:
        provider: ``"openai"`` (any OpenAI-compatible endpoint) or ``"cohere"``.
        typed_url: the base URL the user typed (empty: the operator's endpoint).
        typed_key: the key the user typed (empty: the operator's key, for the operator's endpoint).
        environ: defaults to ``os.environ``; secrets: the app's ``.streamlit/secrets.toml`` values.

    Raises:
        LLMEndpointError: user endpoints are switched off, the URL is outside the allowlist, or it
            needs the user's own key. The message names neither key nor credentials.
    """
    provider = LLMProvider.parse(provider)
    environ = os.environ if environ is None else environ
    secrets = secrets or {}
    home = operator_url(provider, environ)
    url = normalise_url(typed_url or "") or home
    key = (typed_key or "").strip() or None
    if url == home or same_endpoint(url, home):
        url = home  # the shown form of the operator's URL: the request uses the full one
        if key:
            return Endpoint(provider, url, key, KeySource.TYPED, operator=True)
        operator_key = _operator_key(provider, environ, secrets)
        source = KeySource.OPERATOR if operator_key else KeySource.NONE
        return Endpoint(provider, url, operator_key, source, operator=True)
    shown = display_url(url)
    if not user_endpoints_allowed(environ):
        raise LLMEndpointError(
            f"This server only sends questions to the LLM endpoint its operator configured, not to {shown}; "
            f"clear the base URL field (the operator allows other endpoints with {USER_ENDPOINTS_VARIABLE}=1)."
        )
    prefixes = allowed_prefixes(environ)
    if prefixes and not url_allowed(url, prefixes):
        listed = ", ".join(display_url(prefix) for prefix in prefixes)
        raise LLMEndpointError(
            f"The LLM endpoint {shown} is not one this server allows ({ALLOWED_URLS_VARIABLE}: {listed}); "
            "choose one of those or clear the base URL field."
        )
    addresses = AddressPolicy.from_environment(environ)
    try:
        check_url_without_lookup(url, addresses)
    except AddressRefusedError as refused:
        raise LLMEndpointError(str(refused)) from None
    if key:
        return Endpoint(provider, url, key, KeySource.TYPED, operator=False, address_policy=addresses)
    if provider is LLMProvider.COHERE or _operator_key(provider, environ, secrets):
        raise LLMEndpointError(
            f"Give your own API key for this endpoint ({shown}): this server's key is only sent to the "
            "endpoint its operator configured."
        )
    return Endpoint(provider, url, None, KeySource.NONE, operator=False, address_policy=addresses)
