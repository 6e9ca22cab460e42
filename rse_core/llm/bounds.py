"""Bounds on one LLM answer: how many characters, and how long, whatever the server sends.

A server (or anything at a base URL a user typed) can stream forever, or drip a few bytes just
inside the per-read timeout, so the client's timeouts alone bound nothing. Every answer therefore
gets a budget: at most ``RSE_LLM_MAX_CHARS`` characters and ``RSE_LLM_MAX_SECONDS`` seconds from
the first request (retries included), after which the stream is closed and
:class:`~rse_core.errors.LLMAnswerLimitError` says which bound was hit.

The characters are counted once the client has parsed a piece, and a client parses a whole event,
or a whole non-streaming reply, before handing it on: a 50 MB reply was read in full first. So the
bytes of the replies are bounded too, as they arrive (:mod:`rse_core.llm.reply_bytes`), at what
``max_chars`` characters take in the most verbose framing a server sends; past it, the answer is
too long, with the same message.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from rse_core.errors import LLMAnswerLimitError
from rse_core.validation import env_number

MAX_CHARS_VARIABLE = "RSE_LLM_MAX_CHARS"
MAX_SECONDS_VARIABLE = "RSE_LLM_MAX_SECONDS"
DEFAULT_MAX_CHARS = 20_000
"""About 5,000 tokens: ten times the answers' ``max_tokens`` (400) leaves room for a chatty model."""
DEFAULT_MAX_SECONDS = 120.0
REPLY_BYTES_PER_CHAR = 256
"""A streamed piece of one character is a whole JSON event of ~200-250 bytes."""
REPLY_BASE_BYTES = 2**20
"""Bytes allowed on top of :data:`REPLY_BYTES_PER_CHAR` per character: room for a short answer's framing (1 MiB)."""

_clock = time.monotonic  # module-level so tests can move time


def max_chars_from_environment(environ: Mapping[str, str] | None = None) -> int:
    """``RSE_LLM_MAX_CHARS`` (a whole number above 0), or the default."""
    return int(env_number(MAX_CHARS_VARIABLE, DEFAULT_MAX_CHARS, environ=environ, whole=True))


def max_seconds_from_environment(environ: Mapping[str, str] | None = None) -> float:
    """``RSE_LLM_MAX_SECONDS`` (a number above 0), or the default."""
    return env_number(MAX_SECONDS_VARIABLE, DEFAULT_MAX_SECONDS, environ=environ)


@dataclass
class AnswerBudget:
    """What one answer may still use; counts characters as pieces arrive."""

    max_chars: int
    max_seconds: float
    started: float = field(default_factory=lambda: _clock())
    received: int = 0
    bytes_received: int = 0

    @property
    def elapsed(self) -> float:
        return _clock() - self.started

    @property
    def max_bytes(self) -> int:
        """The bytes the replies to one answer may carry (see the module docstring)."""
        return self.max_chars * REPLY_BYTES_PER_CHAR + REPLY_BASE_BYTES

    @property
    def full(self) -> bool:
        return self.received >= self.max_chars

    def read_timeout(self, timeout: float) -> float:
        """The timeout for the next request: never past the deadline.

        Raises:
            LLMAnswerLimitError: no time is left.
        """
        left = self.max_seconds - self.elapsed
        if left <= 0:
            raise self.too_slow()
        return min(timeout, left)

    def take(self, piece: str) -> str:
        """``piece``, cut to the characters still allowed (counted)."""
        kept = piece[: max(0, self.max_chars - self.received)]
        self.received += len(kept)
        return kept

    def count_bytes(self, size: int) -> None:
        """Count ``size`` bytes of a reply as they arrive, before anything parses them.

        Raises:
            LLMAnswerLimitError: past ``max_bytes``, or the answer's time is up.
        """
        self.bytes_received += size
        if self.bytes_received > self.max_bytes:
            raise self.too_long()
        if self.elapsed >= self.max_seconds:
            raise self.too_slow()

    def check(self) -> None:
        """Raise the bound's error when the answer is full or its time is up."""
        if self.full:
            raise self.too_long()
        if self.elapsed >= self.max_seconds:
            raise self.too_slow()

    def too_long(self) -> LLMAnswerLimitError:
        return LLMAnswerLimitError(
            f"The answer was cut at {self.max_chars:,} characters, this server's limit for one answer "
            f"({MAX_CHARS_VARIABLE}); ask for a shorter answer, or the operator can raise the limit."
        )

    def too_slow(self) -> LLMAnswerLimitError:
        return LLMAnswerLimitError(
            f"The answer was stopped after {self.max_seconds:g} s, this server's limit for one answer "
            f"({MAX_SECONDS_VARIABLE}); the endpoint is too slow, or the operator can raise the limit."
        )
