"""Calls to hosted services, written once: bounded retry with backoff, and keys kept out of text.

The Cohere reranker (core) and the LLM answers (``rse_core.llm``) both call SDKs whose own
retries are turned off so the bound is ours. What counts as transient, and what each failure is
called, differs per SDK, so callers classify their exceptions; this module decides whether to
try again, waits, logs, and raises the caller's error outside the SDK's exception handler, so an
SDK exception (whose text may quote the server's body, key and all) never becomes its context.
It imports no SDK: the core may use it without loading an HTTP client.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

logger = logging.getLogger(__name__)

REDACTED = "[api key]"
MAX_TOTAL_RETRY_SECONDS = 120.0
"""No retry starts whose wait would end this long after the first attempt began."""
SERVER_MESSAGE_CHARS = 200
"""A server's error message is cut to this many characters in ours."""

# RFC 6750's token68 characters; "[" is not one, so an already redacted "Bearer [api key]" stays as it is.
# Basic: the user:password of a URL (``http://user:pw@host``) that the HTTP client turned into a header.
_BEARER = re.compile(r"\b(bearer|basic)\s+[A-Za-z0-9\-._~+/]+=*", re.IGNORECASE)

_sleep = time.sleep  # module-level so tests can record the backoff without waiting
_clock = time.monotonic

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to try again.

    Attributes:
        max_retries: extra attempts after the first.
        base_delay: the first wait in seconds; it doubles on every retry.
        max_delay: the longest single wait.
        max_total: seconds from the first attempt after which no further wait starts, so many
            retries of slow failures cannot add up to minutes.
    """

    max_retries: int
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_total: float = MAX_TOTAL_RETRY_SECONDS

    def delay(self, attempt: int) -> float:
        """The wait after failed attempt number ``attempt`` (1-based)."""
        return min(self.base_delay * 2 ** (attempt - 1), self.max_delay)


@dataclass(frozen=True)
class Transient:
    """A failure worth another attempt.

    Attributes:
        reason: what happened, for the log ("HTTP 429", "a dropped connection").
        failure: the error to raise when no retry is left.
    """

    reason: str
    failure: Exception


Verdict = Transient | Exception | None
"""A classifier's answer: try again, raise this error, or ``None`` to let the exception through."""


def call_with_retries(
    call: Callable[[], T],
    classify: Callable[[Exception, int], Verdict],
    policy: RetryPolicy,
    what: str,
) -> T:
    """``call()``, tried again after each transient failure while ``policy`` allows.

    Args:
        call: one attempt; its return value is returned.
        classify: given the exception and the attempt number (1-based, for "on N attempt(s)"
            messages), says whether it is transient, which error to raise, or (``None``) that it is
            not the caller's to translate.
        policy: the bound on retries and time.
        what: names the call in the log ("Cohere rerank").

    Raises:
        Exception: the error ``classify`` chose, raised outside the handler of the SDK's one.
    """
    started = _clock()
    attempt = 0
    while True:
        attempt += 1
        try:
            return call()
        except Exception as error:
            verdict = classify(error, attempt)
            if verdict is None:
                raise
        if isinstance(verdict, Transient):
            delay = policy.delay(attempt)
            if attempt <= policy.max_retries and _clock() - started + delay <= policy.max_total:
                logger.warning(
                    "%s got %s; retrying in %.1f s (attempt %d of %d).",
                    what,
                    verdict.reason,
                    delay,
                    attempt + 1,
                    policy.max_retries + 1,
                )
                _sleep(delay)
                continue
            verdict = verdict.failure
        raise verdict


def with_cause(failure: Exception, cause: BaseException) -> Exception:
    """``failure`` with ``cause`` as its ``__cause__``, as ``raise failure from cause`` would set.

    For errors whose cause is safe to show (a transport error that never saw the key) and that
    :func:`call_with_retries` raises outside the handler.
    """
    failure.__cause__ = cause
    return failure


def scrub(text: str, *secrets: str | None) -> str:
    """``text`` with every secret, and any bearer or basic credentials, replaced by :data:`REDACTED`."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return _BEARER.sub(lambda found: f"{found.group(1)} {REDACTED}", text)


def scrub_stream(pieces: Iterable[str], secret: str | None) -> Iterator[str]:
    """The pieces with ``secret`` replaced, even when a server echoes it split across pieces.

    The last ``len(secret) - 1`` characters are held back until the next piece arrives. Only the
    exact secret is replaced: a bearer token cannot be told from answer text before it ends.
    """
    if not secret:
        yield from pieces
        return
    hold = len(secret) - 1
    buffer = ""
    for piece in pieces:
        buffer = (buffer + piece).replace(secret, REDACTED)
        if len(buffer) > hold:
            cut = len(buffer) - hold
            yield buffer[:cut]
            buffer = buffer[cut:]
    if buffer:
        yield buffer.replace(secret, REDACTED)


def body_message(body: object) -> str:
    """The human message in an error body: Cohere's ``{"message"}``, OpenAI's ``{"error": {"message"}}``,
    or a plain-text body; ``""`` if there is none."""
    if isinstance(body, dict):
        message = body.get("message")
        if not message:
            inner = body.get("error")
            message = inner.get("message") if isinstance(inner, dict) else inner
        body = message
    return body if isinstance(body, str) else ""


def server_detail(message: str, *secrets: str | None) -> str:
    """``": <message>"`` for our error text, scrubbed, on one line and shortened; or ``""``.

    Scrubbed before it is shortened, so a cut can never leave a recognisable part of a key.
    """
    text = " ".join(scrub(message, *secrets).split())
    if not text:
        return ""
    if len(text) > SERVER_MESSAGE_CHARS:
        text = text[: SERVER_MESSAGE_CHARS - 3] + "..."
    return f": {text}"
