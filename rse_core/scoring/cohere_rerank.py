"""Score chunks with Cohere's hosted reranker, the scorer the RSE authors used.

The ``cohere`` SDK does the HTTP; this module adds what the SDK leaves to callers: batching to
the API's per-request document limit, a bounded retry with exponential backoff on 429 and 5xx
(the SDK's own retries are turned off so the count is ours; the loop and the key scrubbing are
:mod:`rse_core.remote`'s), a check that every document came back exactly once, and translation of
SDK and transport exceptions into :mod:`rse_core.errors` with messages that never contain the API key.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any, TypeVar

import numpy as np

from rse_core.chunking import Chunk, scoring_text
from rse_core.errors import (
    AuthenticationError,
    InvalidScoresError,
    RateLimitError,
    ScorerError,
    ScoringServiceError,
)
from rse_core.extras import import_optional
from rse_core.net.urls import display_url, redact_urls, redact_urls_in_client_logs, url_secrets
from rse_core.remote import (
    RetryPolicy,
    Transient,
    Verdict,
    body_message,
    call_with_retries,
    scrub,
    server_detail,
    with_cause,
)
from rse_core.scoring.base import Calibration, CalibrationKind, ProgressCallback, ScorerName, check_scores, clean_query
from rse_core.validation import finite_number, whole_number

DEFAULT_MODEL = "rerank-v3.5"
DEFAULT_BASE_URL = "https://api.cohere.com"
MAX_DOCUMENTS_PER_REQUEST = 1000
"""Cohere's documented limit of documents per rerank request."""
MAX_RETRY_DELAY = 30.0
"""Longest single wait between retries, in seconds, however many retries are allowed."""
_AUTH_STATUSES = (401, 403, 498)  # 498 is Cohere's "invalid token"

T = TypeVar("T")


class CohereScorer:
    """Relevance scores from Cohere's ``/v2/rerank`` endpoint.

    Args:
        api_key: Cohere API key; defaults to the ``CO_API_KEY`` environment variable.
        model: rerank model name.
        base_url: API root; defaults to ``CO_API_URL``, then Cohere's public endpoint.
        timeout: seconds to wait for each request before giving up.
        batch_size: documents per request (at most :data:`MAX_DOCUMENTS_PER_REQUEST`).
        max_retries: extra attempts (0 to 10) after a 429 or 5xx answer or a dropped connection.
        retry_base_delay: first backoff in seconds; it doubles on every retry.

    Timeouts and refused connections are not retried: a timeout has already cost ``timeout``
    seconds, and a refused connection almost always means a wrong ``base_url``.

    Raises:
        AuthenticationError: no API key was given or found in ``CO_API_KEY``.
        ParameterError: a numeric option is out of range.
        ScorerError: ``base_url`` is not an http(s) URL or ``model`` is empty.
        ScorerUnavailableError: the ``cohere`` package is not installed.
    """

    name = ScorerName.COHERE
    calibration = Calibration(
        CalibrationKind.IDENTITY,
        note=(
            "Cohere's relevance scores are already calibrated probabilities in [0, 1]; "
            "beta a = b = 0.4 is the RSE authors' choice for them."
        ),
    )

    def __init__(
        self,
        *,
        api_key: str | None = None,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        timeout: float = 30,
        batch_size: int = MAX_DOCUMENTS_PER_REQUEST,
        max_retries: int = 3,
        retry_base_delay: float = 1.0,
    ) -> None:
        key = (api_key if api_key is not None else os.environ.get("CO_API_KEY", "")).strip()
        if not key:
            raise AuthenticationError(
                "No Cohere API key: pass api_key=... or set the CO_API_KEY environment variable "
                "(create a key at https://dashboard.cohere.com/api-keys)."
            )
        _check_key_characters(key)
        finite_number("timeout", timeout, 0)
        finite_number("retry_base_delay", retry_base_delay, 0, inclusive=True)
        whole_number("batch_size", batch_size, 1, MAX_DOCUMENTS_PER_REQUEST)
        whole_number("max_retries", max_retries, 0, 10)
        if not isinstance(model, str) or not model.strip():
            raise ScorerError("The Cohere model name is empty; use for example 'rerank-v3.5'.")
        url = (base_url or os.environ.get("CO_API_URL") or DEFAULT_BASE_URL).strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise ScorerError(f"The Cohere base URL must start with http:// or https://; got {display_url(url)!r}.")

        self.model = model.strip()
        self.base_url = display_url(url)  # what messages show; credentials in CO_API_URL stay in the client
        self.timeout = float(timeout)
        self.batch_size = batch_size
        self.max_retries = max_retries
        self.retry_base_delay = float(retry_base_delay)
        # Kept only to scrub them from any text we pass on: the key, and CO_API_URL's password and query values.
        self._secrets = (key, *url_secrets(url))
        cohere = import_optional("cohere", "The Cohere scorer")
        redact_urls_in_client_logs()
        self._client = cohere.ClientV2(
            api_key=key,
            base_url=url,
            timeout=self.timeout,
            max_retries=0,
            log_warning_experimental_features=False,
        )

    def __repr__(self) -> str:
        return (
            f"CohereScorer(model={self.model!r}, base_url={self.base_url!r}, "
            f"batch_size={self.batch_size}, timeout={self.timeout:g}, max_retries={self.max_retries})"
        )

    def score(self, query: str, chunks: Sequence[Chunk], progress: ProgressCallback | None = None) -> np.ndarray:
        """Cohere relevance scores in [0, 1], one per chunk, in the order of ``chunks``.

        Raises:
            QueryError: the query is empty.
            AuthenticationError: Cohere rejected the key (401 or 403).
            RateLimitError: still rate-limited (429) after ``max_retries`` retries.
            ScoringServiceError: timeout, no connection, 5xx after retries, or a malformed answer.
            InvalidScoresError: a score is not a finite number.
        """
        query, _ = clean_query(query)
        texts = [scoring_text(chunk) for chunk in chunks]
        scores = np.empty(len(texts), dtype=np.float64)
        starts = range(0, len(texts), self.batch_size)
        for number, start in enumerate(starts, 1):
            batch = texts[start : start + self.batch_size]
            response = self._rerank(query, batch)
            scores[start : start + len(batch)] = _scores_in_order(response, len(batch))
            if progress is not None:
                progress(number / len(starts), f"Cohere rerank: batch {number} of {len(starts)}")
        return check_scores(scores, len(texts), "Cohere")

    def _rerank(self, query: str, documents: list[str]) -> Any:
        """One rerank call with our bounded retry; SDK and transport errors are translated."""
        return self.call(
            lambda client, options: client.rerank(
                model=self.model, query=query, documents=documents, request_options=options
            ),
            "Cohere rerank",
        )

    def call(self, request: Callable[[Any, dict[str, Any]], T], what: str) -> T:
        """``request(client, request_options)`` with this client's bounded retry and error translation:
        what the Cohere embedder shares with the reranker (one key, one policy, one set of messages)."""
        options = {"max_retries": 0, "timeout": self.timeout}
        return call_with_retries(
            lambda: request(self._client, options),
            self._classify,
            RetryPolicy(self.max_retries, self.retry_base_delay, MAX_RETRY_DELAY),
            what,
        )

    def _classify(self, error: Exception, attempt: int) -> Verdict:
        """429, 5xx and a dropped connection are transient; everything else is final at once.

        Timeouts and refused connections are not retried (see the class docstring). The SDK's
        own exceptions are never the cause: their text dumps the headers and the body.
        """
        import httpx
        from cohere.core.api_error import ApiError
        from cohere.core.parse_error import ParsingError

        if isinstance(error, ApiError):
            status = error.status_code or 0
            failure = self._status_error(status, error.body, attempt)
            return Transient(f"HTTP {status}", failure) if status == 429 or status >= 500 else failure
        if isinstance(error, httpx.RemoteProtocolError):
            failure = ScoringServiceError(
                f"Cohere at {self.base_url} closed the connection without answering, "
                f"{attempt} time(s) in a row; try again later."
            )
            return Transient("a dropped connection", with_cause(failure, error))
        if isinstance(error, httpx.TimeoutException):
            failure = ScoringServiceError(
                f"Cohere at {self.base_url} did not answer within {self.timeout:g} s; "
                "try again, or raise the timeout for long documents."
            )
            return with_cause(failure, error)
        if isinstance(error, httpx.ConnectError):
            failure = ScoringServiceError(
                f"Could not connect to Cohere at {self.base_url} ({redact_urls(scrub(str(error), *self._secrets))}); "
                "check the network and the base URL."
            )
            return with_cause(failure, error)
        if isinstance(error, httpx.HTTPError):
            failure = ScoringServiceError(f"The request to Cohere at {self.base_url} failed ({type(error).__name__}).")
            return with_cause(failure, error)
        if isinstance(error, ParsingError):
            return ScoringServiceError(
                "Cohere's answer did not have the expected shape; the service or the cohere package may have changed."
            )
        return None

    def _status_error(self, status: int, body: object, attempts: int) -> ScorerError:
        """The error matching an unsuccessful (or unreadable) answer, its server message scrubbed."""
        detail = server_detail(body_message(body), *self._secrets)
        if 200 <= status < 300:
            return ScoringServiceError("Cohere answered with a body that is not valid JSON.")
        if status in _AUTH_STATUSES:
            return AuthenticationError(
                f"Cohere rejected the API key (HTTP {status}{detail}). Check the key at "
                "https://dashboard.cohere.com/api-keys, or pass a valid one / set CO_API_KEY."
            )
        if status == 429:
            return RateLimitError(
                f"Cohere is rate-limiting this API key (HTTP 429 on {attempts} attempt(s)). "
                "Wait a minute and try again; trial keys allow only a few rerank calls per minute."
            )
        if status >= 500:
            return ScoringServiceError(
                f"Cohere's service failed (HTTP {status}{detail}) on {attempts} attempt(s); try again later."
            )
        if 400 <= status < 500:
            return ScorerError(
                f"Cohere refused the request (HTTP {status}{detail}); check the model name "
                f"{self.model!r} and the base URL {self.base_url}."
            )
        return ScoringServiceError(f"Cohere answered with unexpected HTTP status {status}{detail}.")


def _scores_in_order(response: object, count: int) -> np.ndarray:
    """Put a rerank answer back in document order, checking each document came back once."""
    results = getattr(response, "results", None)
    if not isinstance(results, list):
        raise ScoringServiceError("Cohere's answer has no list of results; it cannot be used.")
    scores = np.empty(count, dtype=np.float64)
    seen = np.zeros(count, dtype=bool)
    for result in results:
        index = _field(result, "index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
            raise ScoringServiceError(
                f"Cohere returned a score for document {index!r}, but {count} documents were sent "
                "(numbered from 0); the answer cannot be matched to the chunks."
            )
        if seen[index]:
            raise ScoringServiceError(f"Cohere returned two scores for document {index}.")
        value = _field(result, "relevance_score")
        if not isinstance(value, Real) or isinstance(value, bool):
            raise InvalidScoresError(
                f"Cohere returned a relevance score that is not a number ({str(value)[:40]!r}) for document {index}."
            )
        scores[index] = float(value)
        seen[index] = True
    if not seen.all():
        missing = np.flatnonzero(~seen)
        raise ScoringServiceError(
            f"Cohere returned scores for {int(seen.sum())} of {count} documents "
            f"(first missing: {int(missing[0])}); the answer cannot be used."
        )
    return scores


def _field(result: object, name: str) -> object:
    return result.get(name) if isinstance(result, dict) else getattr(result, name, None)


def _check_key_characters(key: str) -> None:
    """Refuse a key that cannot go into an HTTP header, before any request.

    Keys are printable ASCII; a zero-width or no-break space or an accented letter usually comes
    along when a key is copied from a web page or a chat, and would otherwise surface as a
    UnicodeEncodeError deep in the HTTP client. The message names the character, never the key.
    """
    import unicodedata

    for position, character in enumerate(key, 1):
        if not (character.isascii() and character.isprintable()) or character.isspace():
            name = unicodedata.name(character, "a control character")
            raise AuthenticationError(
                f"The Cohere API key contains U+{ord(character):04X} ({name}) at position {position}, which "
                "cannot be part of a key; it usually comes along when copying. Retype or re-copy the key."
            )
