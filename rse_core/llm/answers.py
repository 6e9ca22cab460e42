"""The answer an LLM writes from each context: RSE's, top-k's, top-k at RSE's characters, and the
fixed window (when the pipeline provides one), all with one prompt.

A stakeholder judges retrieval by the answers it produces, so the only thing that differs between
the calls is the context. Two official clients do the HTTP: ``openai`` for any OpenAI-compatible
chat endpoint (OpenAI, Ollama, llama.cpp, vLLM: base URL + model + key) and ``cohere`` for
Cohere's chat. As with the Cohere reranker, the SDKs' own retries are off so the bound is ours
(429, 5xx and a dropped connection, before the first token) and every message that leaves this
module has the API key scrubbed out of it; both come from :mod:`rse_core.remote`, which the
reranker shares, and this module only says which SDK exception means what.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rse_core.errors import (
    LLMAuthenticationError,
    LLMEndpointError,
    LLMError,
    LLMRateLimitError,
    LLMServiceError,
    ParameterError,
)
from rse_core.extras import import_optional
from rse_core.llm.bounds import AnswerBudget, max_chars_from_environment, max_seconds_from_environment
from rse_core.net.addresses import AddressPolicy
from rse_core.net.http import guarded_client, library_of, refusal_in  # imports httpx only when a client is made
from rse_core.net.urls import display_url, redact_urls_in_client_logs, url_secrets
from rse_core.pipeline import ExtractionResult
from rse_core.remote import (
    RetryPolicy,
    Transient,
    Verdict,
    body_message,
    call_with_retries,
    scrub_stream,
    server_detail,
)
from rse_core.validation import parse_choice


class LLMProvider(StrEnum):
    """Which official client speaks to the endpoint (a StrEnum, so ``"openai"`` still compares equal)."""

    OPENAI = "openai"  # any OpenAI-compatible chat endpoint: OpenAI, Ollama, llama.cpp, vLLM
    COHERE = "cohere"

    @classmethod
    def parse(cls, name: str | LLMProvider) -> LLMProvider:
        return parse_choice(cls, name, "LLM provider", ParameterError)


KEY_VARIABLES = {LLMProvider.OPENAI: "OPENAI_API_KEY", LLMProvider.COHERE: "CO_API_KEY"}
BASE_URL_VARIABLES = {LLMProvider.OPENAI: "OPENAI_BASE_URL", LLMProvider.COHERE: "CO_API_URL"}
MODEL_VARIABLE = "RSE_LLM_MODEL"
DEFAULT_BASE_URLS = {LLMProvider.OPENAI: "https://api.openai.com/v1", LLMProvider.COHERE: "https://api.cohere.com"}
DEFAULT_MODELS = {LLMProvider.OPENAI: "", LLMProvider.COHERE: "command-a-03-2025"}
MAX_RETRY_DELAY = 20.0
_AUTH_STATUSES = (401, 403, 498)  # 498 is Cohere's "invalid token"
CHARS_PER_TOKEN = 4.0  # the usual rough figure for English; exact counts come from the server

SYSTEM_PROMPT = (
    "You answer questions about a document using only the context below, which was retrieved from it. "
    "If the context does not contain the answer, say what is missing instead of guessing. "
    "Quote figures exactly and cite the passage labels in square brackets, like [S1] or [#2]."
)
USER_TEMPLATE = "Context:\n{context}\n\nQuestion: {question}"


@dataclass(frozen=True)
class AnswerContext:
    """One context to answer from.

    Attributes:
        key: ``"rse"``, ``"top_k"``, ``"top_k_budget"`` or ``"window"``.
        label: shown above its answer.
        text: the context string exactly as sent (headers and document text).
        document_characters: characters of document text in it (what the pages compare).
    """

    key: str
    label: str
    text: str
    document_characters: int

    @property
    def estimated_tokens(self) -> int:
        return estimate_tokens(self.text)


@dataclass(frozen=True)
class LLMSettings:
    """Which chat model to ask, and how patiently. No key here: it is passed separately.

    ``timeout`` is per read; ``max_chars`` and ``max_seconds`` bound the whole answer (defaults from
    ``RSE_LLM_MAX_CHARS`` and ``RSE_LLM_MAX_SECONDS``; see :mod:`rse_core.llm.bounds`).

    Raises:
        ParameterError: unknown provider, empty model, a base URL that is not http(s), or a
            number out of range (also a bad ``RSE_LLM_MAX_*`` variable).
    """

    provider: LLMProvider = LLMProvider.OPENAI
    model: str = ""
    base_url: str = field(default="", repr=False)  # may carry credentials: shown via display_url
    timeout: float = 60.0
    max_retries: int = 2
    max_tokens: int = 400
    temperature: float = 0.0
    max_chars: int = field(default_factory=max_chars_from_environment)
    max_seconds: float = field(default_factory=max_seconds_from_environment)

    def __post_init__(self) -> None:
        object.__setattr__(self, "provider", LLMProvider.parse(self.provider))
        if not self.model.strip():
            raise ParameterError("The LLM model name is empty; type one (for example gpt-4o-mini or llama3.1).")
        url = self.resolved_base_url
        if not url.startswith(("http://", "https://")):
            raise ParameterError(f"The LLM base URL must start with http:// or https://; got {display_url(url)!r}.")
        if not (0 < self.timeout <= 600 and math.isfinite(self.timeout)):
            raise ParameterError(f"timeout must be above 0 and at most 600 seconds; got {self.timeout!r}.")
        if not (isinstance(self.max_retries, int) and 0 <= self.max_retries <= 5):
            raise ParameterError(f"max_retries must be a whole number from 0 to 5; got {self.max_retries!r}.")
        if not (isinstance(self.max_tokens, int) and 1 <= self.max_tokens <= 8192):
            raise ParameterError(f"max_tokens must be from 1 to 8192; got {self.max_tokens!r}.")
        if isinstance(self.max_chars, bool) or not (isinstance(self.max_chars, int) and self.max_chars >= 1):
            raise ParameterError(f"max_chars must be a whole number above 0; got {self.max_chars!r}.")
        if not (isinstance(self.max_seconds, (int, float)) and 0 < self.max_seconds < math.inf):
            raise ParameterError(f"max_seconds must be a number above 0; got {self.max_seconds!r}.")

    @property
    def resolved_base_url(self) -> str:
        return (self.base_url or DEFAULT_BASE_URLS[self.provider]).strip().rstrip("/")

    @property
    def display_url(self) -> str:
        """The base URL without ``user:password@`` or query, for messages and the page."""
        return display_url(self.resolved_base_url)

    def describe(self) -> str:
        """``"model at URL"``: safe to show (credentials in the URL are left out)."""
        return f"{self.model} at {self.display_url}"


@dataclass
class Usage:
    """Token counts reported by the server for one answer (``None`` when it sent none)."""

    input_tokens: int | None = None
    output_tokens: int | None = None


def estimate_tokens(text: str) -> int:
    """A rough token count (characters / 4) for the estimate shown before anything is sent."""
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN)) if text else 0


def answer_contexts(result: ExtractionResult) -> tuple[AnswerContext, ...]:
    """RSE, top-k, top-k at RSE's characters, and the fixed window if the result has one."""
    k = result.params.top_k
    contexts = [
        AnswerContext("rse", "RSE", result.rse_context(), result.rse_characters),
        AnswerContext("top_k", f"Top-k (k={k})", result.top_k_context(result.top_k), result.characters(result.top_k)),
        AnswerContext(
            "top_k_budget",
            "Top-k, RSE's characters",
            result.top_k_context(result.top_k_equal_budget),
            result.characters(result.top_k_equal_budget),
        ),
    ]
    # The fixed-window baseline arrives with another change to the pipeline; use it when present.
    window_context = getattr(result, "window_context", None)
    if callable(window_context) and getattr(result, "window", ()):
        characters = getattr(result, "window_characters", lambda: 0)()
        contexts.append(AnswerContext("window", "Fixed window", window_context(), int(characters)))
    return tuple(contexts)


def build_messages(question: str, context: str) -> list[dict[str, str]]:
    """The one prompt every context goes through: the system line, then context and question."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": USER_TEMPLATE.format(context=context or "(no context)", question=question)},
    ]


def prompt_text(messages: Sequence[Mapping[str, str]]) -> str:
    """The messages as one readable, copyable block."""
    return "\n\n".join(f"--- {message['role']} ---\n{message['content']}" for message in messages)


def resolve_key(
    provider: LLMProvider | str,
    typed: str | None = None,
    environ: Mapping[str, str] | None = None,
    secrets: Mapping[str, object] | None = None,
) -> str | None:
    """The API key, as for the reranker: the typed one, then the environment, then secrets.

    It does not know where the key will go, so it is safe only for the operator's own endpoint: a
    shared server must call :func:`rse_core.llm.endpoints.resolve_endpoint`, which never sends the
    operator's key to a base URL a user typed.
    """
    if typed and typed.strip():
        return typed.strip()
    environ = os.environ if environ is None else environ
    variable = KEY_VARIABLES[provider]
    if environ.get(variable):
        return environ[variable].strip()
    value = (secrets or {}).get(variable)
    return str(value).strip() if value else None


@dataclass
class ChatClient:
    """Streams one answer at a time from the configured endpoint.

    Args:
        settings: provider, model, base URL and limits.
        api_key: the key (may be empty for a local OpenAI-compatible server such as Ollama).
        address_policy: for a base URL a user typed: every connection (redirects included) must
            pass it (:mod:`rse_core.net.http`); ``None`` for the operator's own endpoint.

    Raises:
        LLMError: the client package is missing, or Cohere was chosen without a key.
    """

    settings: LLMSettings
    api_key: str | None = field(default=None, repr=False)
    usage: Usage = field(default_factory=Usage)
    address_policy: AddressPolicy | None = None

    def __post_init__(self) -> None:
        self._key = (self.api_key or "").strip()
        # Scrubbed from every message: the key, and the password and query values in the base URL.
        self._secrets = (self._key, *url_secrets(self.settings.resolved_base_url))
        redact_urls_in_client_logs()
        self._budget: AnswerBudget | None = None
        self._meter: Any = None  # a ReplyMeter: counts the bytes of each reply (OpenAI-compatible)
        if self.settings.provider is LLMProvider.OPENAI:
            self._client = self._openai_client()
        else:
            self._client = self._cohere_client()

    def _openai_client(self) -> Any:
        openai = import_optional("openai", "Answers from an OpenAI-compatible endpoint")
        from rse_core.llm.reply_bytes import ReplyMeter  # needs httpx2, which comes with openai

        self._meter = ReplyMeter()
        http = self._http_client(openai.DefaultHttpxClient, self._meter.hooks) or openai.DefaultHttpxClient(
            event_hooks=self._meter.hooks
        )
        weakref.finalize(self, http.close)  # as the SDK's own client does when dropped: no open sockets left
        # Local servers ignore the key, but the client insists on one.
        return openai.OpenAI(
            api_key=self._key or "no-key",
            base_url=self.settings.resolved_base_url,
            timeout=self.settings.timeout,
            max_retries=0,
            http_client=http,
        )

    def _http_client(self, sdk_client: type | None, event_hooks: dict | None = None) -> Any:
        """The address-checking HTTP client for a user's endpoint, in the library of ``sdk_client``
        (the SDK's default client class; ``None``: httpx), with ``event_hooks`` (the reply meter's);
        ``None`` keeps the SDK's own client."""
        if self.address_policy is None:
            return None
        library = library_of(sdk_client) if sdk_client is not None else "httpx"
        return guarded_client(
            self.address_policy, timeout=self.settings.timeout, library=library, event_hooks=event_hooks
        )

    def _cohere_client(self) -> Any:
        if not self._key:
            raise LLMAuthenticationError(
                "No Cohere API key: type it in the API key field or set CO_API_KEY "
                "(environment or .streamlit/secrets.toml)."
            )
        cohere = import_optional("cohere", "Answers from Cohere")
        return cohere.ClientV2(
            api_key=self._key,
            base_url=self.settings.resolved_base_url,
            timeout=self.settings.timeout,
            max_retries=0,
            httpx_client=self._http_client(None),  # cohere speaks httpx
            log_warning_experimental_features=False,
        )

    def __repr__(self) -> str:
        return f"ChatClient({self.settings.provider}, {self.settings.describe()})"

    def stream(self, messages: Sequence[Mapping[str, str]]) -> Iterator[str]:
        """Pieces of the answer as they arrive; ``self.usage`` holds the server's token counts after.

        The key, and the base URL's password and query values, are scrubbed from the pieces, even
        when a server echoes one split across two. At most
        ``settings.max_chars`` characters arrive, within ``settings.max_seconds``; then the
        connection is closed and the bound's error raised.

        Raises:
            LLMAnswerLimitError: the answer went over ``max_chars`` or ``max_seconds``.
            LLMAuthenticationError: the key was rejected (401/403).
            LLMRateLimitError: still 429 after ``max_retries`` retries.
            LLMServiceError: timeout, no connection, 5xx after retries, a stream that broke off,
                or an answer that could not be read.
        """
        self.usage = Usage()
        self._budget = budget = AnswerBudget(self.settings.max_chars, self.settings.max_seconds)
        if self._meter is not None:
            self._meter.budget = budget
        if self.settings.provider is LLMProvider.OPENAI:
            pieces = self._stream_openai(messages, budget)
        else:
            pieces = self._stream_cohere(messages, budget)
        try:
            scrubbed: Iterator[str] = pieces
            for secret in self._secrets:
                scrubbed = scrub_stream(scrubbed, secret)
            yield from scrubbed
        finally:
            pieces.close()  # closes the connection however the consumer stopped

    def answer(self, messages: Sequence[Mapping[str, str]]) -> str:
        """The whole answer at once (for the CLI and tests)."""
        return "".join(self.stream(messages))

    @property
    def _policy(self) -> RetryPolicy:
        return RetryPolicy(self.settings.max_retries, base_delay=1.0, max_delay=MAX_RETRY_DELAY)

    # -- OpenAI-compatible -------------------------------------------------------------------

    def _stream_openai(self, messages: Sequence[Mapping[str, str]], budget: AnswerBudget) -> Iterator[str]:
        import openai

        settings = self.settings
        opened: list[Any] = []

        def first_chunk() -> tuple[Iterator[Any] | None, Any]:
            stream = self._client.chat.completions.create(
                model=settings.model,
                messages=list(messages),
                stream=True,
                temperature=settings.temperature,
                max_tokens=settings.max_tokens,
                timeout=budget.read_timeout(settings.timeout),
            )
            opened.append(stream)
            if "json" in stream.response.headers.get("content-type", ""):  # the server ignored stream=True
                return None, self._whole_reply(stream.response)
            iterator = iter(stream)
            return iterator, next(iterator, None)

        try:
            iterator, chunk = call_with_retries(first_chunk, self._classify_openai, self._policy, "LLM call")
            if iterator is None:
                if kept := budget.take(chunk):
                    yield kept
                budget.check()
                return
            if chunk is None:
                raise LLMServiceError(
                    f"No answer arrived from {settings.display_url} (the reply held no chat events); "
                    "is it an OpenAI-compatible chat endpoint?"
                )
            while chunk is not None:
                if getattr(chunk, "usage", None) is not None:
                    self.usage = Usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
                for choice in getattr(chunk, "choices", None) or ():
                    piece = getattr(choice.delta, "content", None) if choice.delta else None
                    if piece and (kept := budget.take(piece)):
                        yield kept
                budget.check()
                chunk = self._next(iterator, budget, openai.APITimeoutError)
        finally:
            for stream in opened:
                _close(stream)

    def _whole_reply(self, response: Any) -> str:
        """The text of a non-streaming chat completion (its bytes already bounded as they arrive);
        ``self.usage`` from its counts.

        Raises:
            LLMAnswerLimitError: the reply is larger than an answer may be.
            LLMServiceError: it is not a chat completion.
        """
        try:
            reply = json.loads(response.read())
            message = reply["choices"][0]["message"]
            text = message.get("content") or ""
            if not isinstance(text, str):
                raise TypeError("content is not text")
        except (ValueError, RecursionError, LookupError, TypeError, AttributeError) as error:
            raise self._unreadable(error) from None
        usage = reply.get("usage")
        if isinstance(usage, dict):
            self.usage = Usage(_int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens")))
        return text

    def _classify_openai(self, error: Exception, attempt: int) -> Verdict:
        """429, 5xx and a failed or dropped connection are transient; anything unknown is unreadable."""
        import openai

        if isinstance(error, LLMError):  # our own bound, raised inside the attempt
            return error
        if (refused := _refusal(error)) is not None:
            return refused
        if isinstance(error, (openai.AuthenticationError, openai.PermissionDeniedError)):
            return self._auth_error(error.status_code, body_message(error.body))
        if isinstance(error, (openai.RateLimitError, openai.InternalServerError)):
            failure = self._status_error(error.status_code, body_message(error.body), attempt)
            return Transient(f"HTTP {error.status_code}", failure)
        if isinstance(error, openai.APITimeoutError):  # before APIConnectionError, its base class
            return self._timeout_error()
        if isinstance(error, openai.APIConnectionError):
            return Transient(
                "a dropped connection",
                LLMServiceError(
                    f"Could not get an answer from {self.settings.display_url}: the connection failed or "
                    f"was closed, {attempt} time(s) in a row. Check the base URL and that the server runs."
                ),
            )
        if isinstance(error, openai.APIStatusError):
            return self._status_error(error.status_code, body_message(error.body), attempt)
        return self._unreadable(error)  # an unreadable first event (malformed JSON) and the like

    # -- Cohere ------------------------------------------------------------------------------

    def _stream_cohere(self, messages: Sequence[Mapping[str, str]], budget: AnswerBudget) -> Iterator[str]:
        import httpx

        settings = self.settings
        opened: list[Any] = []

        def first_event() -> tuple[Iterator[Any], Any]:
            events = iter(
                self._client.chat_stream(
                    model=settings.model,
                    messages=list(messages),
                    temperature=settings.temperature,
                    max_tokens=settings.max_tokens,
                    request_options={"max_retries": 0, "timeout": budget.read_timeout(settings.timeout)},
                )
            )
            opened.append(events)
            return events, next(events, None)

        ended = False
        try:
            events, event = call_with_retries(first_event, self._classify_cohere, self._policy, "LLM call")
            while event is not None:
                kind = getattr(event, "type", None)
                if kind == "content-delta":
                    piece = event.delta.message.content.text
                    if piece and (kept := budget.take(piece)):
                        yield kept
                elif kind == "message-end":
                    ended = True
                    tokens = getattr(getattr(event.delta, "usage", None), "tokens", None)
                    if tokens is not None:
                        self.usage = Usage(_int(tokens.input_tokens), _int(tokens.output_tokens))
                budget.check()
                event = self._next(events, budget, httpx.TimeoutException)
        finally:
            for stream in opened:
                _close(stream)
        if not budget.received and not ended:
            raise LLMServiceError(
                "Cohere's answer could not be read (no text arrived); the service or the cohere package "
                "may have changed."
            )

    def _classify_cohere(self, error: Exception, attempt: int) -> Verdict:
        """As for OpenAI: 429, 5xx and a failed, reset or dropped connection are transient."""
        import httpx
        from cohere.core.api_error import ApiError

        if isinstance(error, LLMError):  # our own bound, raised inside the attempt
            return error
        if (refused := _refusal(error)) is not None:
            return refused
        if isinstance(error, ApiError):
            status = error.status_code or 0
            message = body_message(error.body)
            if status in _AUTH_STATUSES:
                return self._auth_error(status, message)
            failure = self._status_error(status, message, attempt)
            return Transient(f"HTTP {status}", failure) if status == 429 or status >= 500 else failure
        if isinstance(error, httpx.TimeoutException):
            return self._timeout_error()
        if isinstance(error, (httpx.RemoteProtocolError, httpx.ConnectError, httpx.ReadError)):
            return Transient(
                "a dropped connection",
                LLMServiceError(
                    f"Could not get an answer from Cohere at {self.settings.display_url}: the connection "
                    f"failed or was closed, {attempt} time(s) in a row."
                ),
            )
        return self._unreadable(error)

    # -- errors ------------------------------------------------------------------------------

    def _next(self, iterator: Iterator[Any], budget: AnswerBudget, timeout: type[Exception]) -> Any:
        """The next chunk or event, or ``None`` at the end; a failure mid-stream is raised outside
        the handler, so the SDK's exception is neither its cause nor its context. A read timeout
        that ends at the answer's deadline is reported as the time bound (see ``_timeout_error``)."""
        try:
            return next(iterator, None)
        except timeout:
            failure = self._timeout_error()
        except LLMError as error:  # our own bound, from counting the reply's bytes
            failure = error
        except Exception as error:
            failure = self._broken_stream(error, budget.received)
        raise failure

    def _auth_error(self, status: int, message: str) -> LLMAuthenticationError:
        where = KEY_VARIABLES[self.settings.provider]
        return LLMAuthenticationError(
            f"The LLM endpoint rejected the API key (HTTP {status}{server_detail(message, *self._secrets)}). "
            f"Check the key in the API key field, or {where}."
        )

    def _status_error(self, status: int, message: str, attempts: int) -> LLMError:
        detail = server_detail(message, *self._secrets)
        if status == 429:
            return LLMRateLimitError(
                f"The LLM endpoint is rate-limiting this key (HTTP 429 on {attempts} attempt(s)); "
                "wait a minute and ask again."
            )
        if status >= 500:
            return LLMServiceError(
                f"The LLM endpoint failed (HTTP {status}{detail}) on {attempts} attempt(s); try again later."
            )
        return LLMError(
            f"The LLM endpoint refused the request (HTTP {status}{detail}); check the model name "
            f"{self.settings.model!r} and the base URL."
        )

    def _timeout_error(self) -> LLMError:
        """A read timed out: the time bound when the read's timeout was cut to meet the deadline."""
        budget = self._budget
        if budget is not None and (
            self.settings.max_seconds < self.settings.timeout or budget.elapsed >= budget.max_seconds
        ):
            return budget.too_slow()
        return LLMServiceError(
            f"The LLM at {self.settings.display_url} did not answer within {self.settings.timeout:g} s; "
            "try again or raise the timeout."
        )

    def _unreadable(self, error: Exception) -> LLMServiceError:
        return LLMServiceError(
            f"The LLM's answer could not be read ({type(error).__name__}); is {self.settings.display_url} "
            "an OpenAI-compatible chat endpoint?"
        )

    def _broken_stream(self, error: Exception, received: int) -> LLMServiceError:
        return LLMServiceError(
            f"The answer broke off after {received:,} characters ({type(error).__name__}); ask again."
        )


def _refusal(error: Exception) -> LLMEndpointError | None:
    """The address policy's refusal behind an SDK's connection error, as this module's error."""
    refused = refusal_in(error)
    return None if refused is None else LLMEndpointError(str(refused))


def _close(stream: Any) -> None:
    """Close an SDK stream (the openai ``Stream``, Cohere's event generator) and its connection."""
    with contextlib.suppress(Exception):  # closing a broken connection may fail too; it is gone either way
        stream.close()


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, (int, float)) and math.isfinite(value) else None
