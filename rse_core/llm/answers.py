"""The answer an LLM writes from each context: RSE's, top-k's, top-k at RSE's characters, and the
fixed window (when the pipeline provides one), all with one prompt.

A stakeholder judges retrieval by the answers it produces, so the only thing that differs between
the calls is the context. Two official clients do the HTTP: ``openai`` for any OpenAI-compatible
chat endpoint (OpenAI, Ollama, llama.cpp, vLLM: base URL + model + key) and ``cohere`` for
Cohere's chat. As with the Cohere reranker, the SDKs' own retries are off so the bound is ours
(429, 5xx and a dropped connection, before the first token), and every message that leaves this
module has the API key scrubbed out of it.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from rse_core.errors import LLMAuthenticationError, LLMError, LLMRateLimitError, LLMServiceError, ParameterError
from rse_core.pipeline import ExtractionResult

logger = logging.getLogger(__name__)

OPENAI, COHERE = "openai", "cohere"
PROVIDERS = (OPENAI, COHERE)
KEY_VARIABLES = {OPENAI: "OPENAI_API_KEY", COHERE: "CO_API_KEY"}
BASE_URL_VARIABLES = {OPENAI: "OPENAI_BASE_URL", COHERE: "CO_API_URL"}
MODEL_VARIABLE = "RSE_LLM_MODEL"
DEFAULT_BASE_URLS = {OPENAI: "https://api.openai.com/v1", COHERE: "https://api.cohere.com"}
DEFAULT_MODELS = {OPENAI: "", COHERE: "command-a-03-2025"}
MAX_RETRY_DELAY = 20.0
CHARS_PER_TOKEN = 4.0  # the usual rough figure for English; exact counts come from the server

SYSTEM_PROMPT = (
    "You answer questions about a document using only the context below, which was retrieved from it. "
    "If the context does not contain the answer, say what is missing instead of guessing. "
    "Quote figures exactly and cite the passage labels in square brackets, like [S1] or [#2]."
)
USER_TEMPLATE = "Context:\n{context}\n\nQuestion: {question}"

_sleep = time.sleep  # module-level so tests can record the backoff without waiting


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

    Raises:
        ParameterError: unknown provider, empty model, a base URL that is not http(s), or a
            number out of range.
    """

    provider: str = OPENAI
    model: str = ""
    base_url: str = field(default="", repr=False)  # may carry credentials: shown via display_url
    timeout: float = 60.0
    max_retries: int = 2
    max_tokens: int = 400
    temperature: float = 0.0

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ParameterError(f"Unknown LLM provider {self.provider!r}; choose one of {', '.join(PROVIDERS)}.")
        if not self.model.strip():
            raise ParameterError("The LLM model name is empty; type one (for example gpt-4o-mini or llama3.1).")
        url = self.resolved_base_url
        if not url.startswith(("http://", "https://")):
            raise ParameterError(f"The LLM base URL must start with http:// or https://; got {url!r}.")
        if not (0 < self.timeout <= 600 and math.isfinite(self.timeout)):
            raise ParameterError(f"timeout must be above 0 and at most 600 seconds; got {self.timeout!r}.")
        if not (isinstance(self.max_retries, int) and 0 <= self.max_retries <= 5):
            raise ParameterError(f"max_retries must be a whole number from 0 to 5; got {self.max_retries!r}.")
        if not (isinstance(self.max_tokens, int) and 1 <= self.max_tokens <= 8192):
            raise ParameterError(f"max_tokens must be from 1 to 8192; got {self.max_tokens!r}.")

    @property
    def resolved_base_url(self) -> str:
        return (self.base_url or DEFAULT_BASE_URLS[self.provider]).strip().rstrip("/")

    @property
    def display_url(self) -> str:
        """The base URL without any ``user:password@`` part, for messages and the page."""
        parts = urlsplit(self.resolved_base_url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return urlunsplit((parts.scheme, netloc, parts.path, "", ""))

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
    provider: str,
    typed: str | None = None,
    environ: Mapping[str, str] | None = None,
    secrets: Mapping[str, object] | None = None,
) -> str | None:
    """The API key, as for the reranker: the typed one, then the environment, then secrets."""
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

    Raises:
        LLMError: the client package is missing, or Cohere was chosen without a key.
    """

    settings: LLMSettings
    api_key: str | None = field(default=None, repr=False)
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        self._key = (self.api_key or "").strip()
        settings = self.settings
        if settings.provider == OPENAI:
            try:
                import openai
            except ImportError as error:
                raise LLMError("Answers from an OpenAI-compatible endpoint need the 'openai' package.") from error
            # Local servers ignore the key, but the client insists on one.
            self._client = openai.OpenAI(
                api_key=self._key or "no-key",
                base_url=settings.resolved_base_url,
                timeout=settings.timeout,
                max_retries=0,
            )
        else:
            if not self._key:
                raise LLMAuthenticationError(
                    "No Cohere API key: type it in the API key field or set CO_API_KEY "
                    "(environment or .streamlit/secrets.toml)."
                )
            import cohere

            self._client = cohere.ClientV2(
                api_key=self._key,
                base_url=settings.resolved_base_url,
                timeout=settings.timeout,
                max_retries=0,
                log_warning_experimental_features=False,
            )

    def __repr__(self) -> str:
        return f"ChatClient({self.settings.provider}, {self.settings.describe()})"

    def stream(self, messages: Sequence[Mapping[str, str]]) -> Iterator[str]:
        """Pieces of the answer as they arrive; ``self.usage`` holds the server's token counts after.

        Raises:
            LLMAuthenticationError: the key was rejected (401/403).
            LLMRateLimitError: still 429 after ``max_retries`` retries.
            LLMServiceError: timeout, no connection, 5xx after retries, a stream that broke off,
                or an answer that could not be read.
        """
        self.usage = Usage()
        pieces = self._stream_openai(messages) if self.settings.provider == OPENAI else self._stream_cohere(messages)
        yield from self._scrubbed(pieces)

    def _scrubbed(self, pieces: Iterator[str]) -> Iterator[str]:
        """The pieces with the key replaced, even when a server echoes it split across pieces:
        the last ``len(key) - 1`` characters are held back until the next piece arrives."""
        if not self._key:
            yield from pieces
            return
        hold = len(self._key) - 1
        buffer = ""
        for piece in pieces:
            buffer = self._scrub(buffer + piece)
            if len(buffer) > hold:
                cut = len(buffer) - hold
                yield buffer[:cut]
                buffer = buffer[cut:]
        if buffer:
            yield self._scrub(buffer)

    def answer(self, messages: Sequence[Mapping[str, str]]) -> str:
        """The whole answer at once (for the CLI and tests)."""
        return "".join(self.stream(messages))

    # -- OpenAI-compatible -------------------------------------------------------------------

    def _stream_openai(self, messages: Sequence[Mapping[str, str]]) -> Iterator[str]:
        import openai

        settings = self.settings
        attempt = 0
        while True:
            attempt += 1
            failure: LLMError | None = None
            try:
                stream = self._client.chat.completions.create(
                    model=settings.model,
                    messages=list(messages),
                    stream=True,
                    temperature=settings.temperature,
                    max_tokens=settings.max_tokens,
                )
                iterator = iter(stream)
                first = next(iterator, None)
                break
            except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
                failure = self._auth_error(error.status_code, _openai_message(error))
            except (openai.RateLimitError, openai.InternalServerError) as error:
                if attempt <= settings.max_retries:
                    self._wait(attempt, f"HTTP {error.status_code}")
                    continue
                failure = self._status_error(error.status_code, _openai_message(error), attempt)
            except openai.APITimeoutError:
                failure = self._timeout_error()
            except openai.APIConnectionError:
                if attempt <= settings.max_retries:
                    self._wait(attempt, "a dropped connection")
                    continue
                failure = LLMServiceError(
                    f"Could not get an answer from {settings.display_url}: the connection failed or "
                    f"was closed, {attempt} time(s) in a row. Check the base URL and that the server runs."
                )
            except openai.APIStatusError as error:
                failure = self._status_error(error.status_code, _openai_message(error), attempt)
            except Exception as error:  # an unreadable first event (malformed JSON) and the like
                failure = self._unreadable(error)
            # Raised here, outside the handler, so the SDK's exception (whose text may quote the
            # server's body, key and all) is neither the cause nor the context of ours.
            raise failure
        received = 0
        chunk = first
        while chunk is not None:
            if getattr(chunk, "usage", None) is not None:
                self.usage = Usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
            for choice in getattr(chunk, "choices", None) or ():
                piece = getattr(choice.delta, "content", None) if choice.delta else None
                if piece:
                    received += len(piece)
                    yield piece
            failure = None
            try:
                chunk = next(iterator, None)
            except openai.APITimeoutError:
                failure = self._timeout_error()
            except Exception as error:
                failure = self._broken_stream(error, received)
            if failure is not None:
                raise failure

    # -- Cohere ------------------------------------------------------------------------------

    def _stream_cohere(self, messages: Sequence[Mapping[str, str]]) -> Iterator[str]:
        import httpx
        from cohere.core.api_error import ApiError

        settings = self.settings
        attempt = 0
        while True:
            attempt += 1
            failure: LLMError | None = None
            try:
                events = iter(
                    self._client.chat_stream(
                        model=settings.model,
                        messages=list(messages),
                        temperature=settings.temperature,
                        max_tokens=settings.max_tokens,
                        request_options={"max_retries": 0, "timeout": settings.timeout},
                    )
                )
                first = next(events, None)
                break
            except ApiError as error:
                status = error.status_code or 0
                message = str(error.body.get("message", "")) if isinstance(error.body, dict) else ""
                if status in (401, 403, 498):
                    failure = self._auth_error(status, message)
                elif (status == 429 or status >= 500) and attempt <= settings.max_retries:
                    self._wait(attempt, f"HTTP {status}")
                    continue
                else:
                    failure = self._status_error(status, message, attempt)
            except httpx.TimeoutException:
                failure = self._timeout_error()
            except (httpx.RemoteProtocolError, httpx.ConnectError, httpx.ReadError):
                if attempt <= settings.max_retries:
                    self._wait(attempt, "a dropped connection")
                    continue
                failure = LLMServiceError(
                    f"Could not get an answer from Cohere at {settings.display_url}: the connection failed "
                    f"or was closed, {attempt} time(s) in a row."
                )
            except Exception as error:
                failure = self._unreadable(error)
            raise failure  # outside the handler: no SDK exception as cause or context
        received = 0
        ended = False
        event = first
        while event is not None:
            kind = getattr(event, "type", None)
            if kind == "content-delta":
                piece = event.delta.message.content.text
                if piece:
                    received += len(piece)
                    yield piece
            elif kind == "message-end":
                ended = True
                tokens = getattr(getattr(event.delta, "usage", None), "tokens", None)
                if tokens is not None:
                    self.usage = Usage(_int(tokens.input_tokens), _int(tokens.output_tokens))
            failure = None
            try:
                event = next(events, None)
            except httpx.TimeoutException:
                failure = self._timeout_error()
            except Exception as error:
                failure = self._broken_stream(error, received)
            if failure is not None:
                raise failure
        if not received and not ended:
            raise LLMServiceError(
                "Cohere's answer could not be read (no text arrived); the service or the cohere package "
                "may have changed."
            )

    # -- errors ------------------------------------------------------------------------------

    def _wait(self, attempt: int, reason: str) -> None:
        delay = min(1.0 * 2 ** (attempt - 1), MAX_RETRY_DELAY)
        logger.warning("LLM call got %s; retrying in %.1f s (attempt %d).", reason, delay, attempt + 1)
        _sleep(delay)

    def _auth_error(self, status: int, message: str) -> LLMAuthenticationError:
        where = KEY_VARIABLES[self.settings.provider]
        return LLMAuthenticationError(
            f"The LLM endpoint rejected the API key (HTTP {status}{_detail(self._scrub(message))}). "
            f"Check the key in the API key field, or {where}."
        )

    def _status_error(self, status: int, message: str, attempts: int) -> LLMError:
        detail = _detail(self._scrub(message))
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

    def _timeout_error(self) -> LLMServiceError:
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

    def _scrub(self, text: str) -> str:
        return text.replace(self._key, "[api key]") if self._key else text


def _openai_message(error: Exception) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        return str(message or "")
    return ""


def _detail(message: str) -> str:
    text = " ".join(message.split())
    if not text:
        return ""
    return ": " + (text if len(text) <= 200 else text[:197] + "...")


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, (int, float)) and math.isfinite(value) else None
