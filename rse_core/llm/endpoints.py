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
  (comma-separated URL prefixes) refuses every user endpoint outside the list.

The app's answers panel and the Evaluate judge both call :func:`resolve_endpoint`, then build
their :class:`~rse_core.llm.answers.ChatClient` from the :class:`Endpoint` it returns.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urlsplit, urlunsplit

from rse_core.errors import LLMEndpointError
from rse_core.llm.answers import (
    BASE_URL_VARIABLES,
    DEFAULT_BASE_URLS,
    KEY_VARIABLES,
    ChatClient,
    LLMProvider,
    LLMSettings,
)
from rse_core.remote import display_url

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
        return ChatClient(settings, self.api_key)


def normalise_url(url: str) -> str:
    """The form URLs are compared in: stripped, no trailing ``/``, scheme and host lower case."""
    url = (url or "").strip().rstrip("/")
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return url
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, parts.fragment))


def operator_url(provider: LLMProvider, environ: Mapping[str, str]) -> str:
    """The endpoint the operator configured, or the provider's public one."""
    return normalise_url(environ.get(BASE_URL_VARIABLES[provider]) or DEFAULT_BASE_URLS[provider])


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
    if url == home:
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
    if key:
        return Endpoint(provider, url, key, KeySource.TYPED, operator=False)
    if provider is LLMProvider.COHERE or _operator_key(provider, environ, secrets):
        raise LLMEndpointError(
            f"Give your own API key for this endpoint ({shown}): this server's key is only sent to the "
            "endpoint its operator configured."
        )
    return Endpoint(provider, url, None, KeySource.NONE, operator=False)
