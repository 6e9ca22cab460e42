"""Cohere embed (``/v2/embed``) through the ``cohere`` client.

Cohere embeds a chunk and a query differently (``input_type`` ``search_document`` /
``search_query``), so the two sides of a search are asked for as such. The key, the retry policy
and the error messages are the Cohere reranker's (:meth:`~rse_core.scoring.cohere_rerank.CohereScorer.call`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from rse_core.embedders.batches import check_batching, checked_vectors, embed_in_batches
from rse_core.embedders.identity import EmbedderIdentity
from rse_core.errors import AuthenticationError, EmbeddingServiceError
from rse_core.net.urls import display_url
from rse_core.scoring.cohere_rerank import DEFAULT_BASE_URL, CohereScorer

PROVIDER = "cohere"
MOST_TEXTS_PER_REQUEST = 96
"""Cohere's documented limit of texts in one embed request."""


class CohereEmbedder:
    """Vectors from Cohere's embed API (or a Cohere-compatible server at ``base_url``).

    Args:
        model: e.g. ``embed-english-v3.0``.
        api_key, base_url, timeout, max_retries, retry_base_delay: as for
            :class:`~rse_core.scoring.cohere_rerank.CohereScorer` (the key defaults to ``CO_API_KEY``).
        dimension: the size the vectors must have (a base's record); ``None``: learnt from the first reply.
        batch_size: texts per request; in_flight: requests open at once during a build.

    Raises:
        AuthenticationError: no key; ParameterError / ScorerError: an option is out of range;
        MissingExtraError: the ``cohere`` package is not installed.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        dimension: int | None = None,
        batch_size: int = MOST_TEXTS_PER_REQUEST,
        in_flight: int = 4,
        timeout: float = 60.0,
        max_retries: int = 4,
        retry_base_delay: float = 1.0,
    ) -> None:
        check_batching(batch_size, in_flight, MOST_TEXTS_PER_REQUEST)
        self._service = CohereScorer(
            api_key=api_key,
            model=model,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            retry_base_delay=retry_base_delay,
        )
        self.model = self._service.model
        self.source = f"Cohere embed at {display_url(self._service.base_url)} (model {self.model[:80]!r})"
        self._dimension = dimension
        self._batching = (batch_size, in_flight)

    def __repr__(self) -> str:
        return f"CohereEmbedder(model={self.model!r}, base_url={display_url(self._service.base_url)!r})"

    @property
    def identity(self) -> EmbedderIdentity:
        """Asks Cohere for one vector when the dimension is not known yet."""
        if self._dimension is None:
            self._dimension = self._embed(["dimension"], "search_query").shape[1]
        return EmbedderIdentity(
            name=f"{PROVIDER}:{self.model}",
            provider=PROVIDER,
            model=self.model,
            dimension=self._dimension,
            endpoint=display_url(self._service.base_url),
        )

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(list(texts), "search_document")

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text], "search_query")[0]

    def _embed(self, texts: list[str], input_type: str) -> np.ndarray:
        def request(batch: list[str]) -> list[Sequence[float]]:
            response = self._service.call(
                lambda client, options: client.embed(
                    model=self.model,
                    texts=batch,
                    input_type=input_type,
                    embedding_types=["float"],
                    request_options=options,
                ),
                "Cohere embed",
            )
            return _float_rows(response, self.source)

        rows = embed_in_batches(texts, request, *self._batching, self.source)
        vectors = checked_vectors(rows, self._dimension, self.source)
        if self._dimension is None and len(vectors):
            self._dimension = vectors.shape[1]
        return vectors


def _float_rows(response: Any, source: str) -> list[Sequence[float]]:
    rows = getattr(getattr(response, "embeddings", None), "float_", None)
    if not isinstance(rows, list):
        raise EmbeddingServiceError(f"{source} answered without float embeddings.")
    return rows


def check_operator_endpoint(base_url: str | None) -> None:
    """Refuse to send the operator's Cohere key to an endpoint read from a base's files, unless it is
    the operator's own (``$CO_API_URL`` or Cohere's).

    Raises:
        AuthenticationError: ``base_url`` is another endpoint; the operator names it to allow it.
    """
    operator = (os.environ.get("CO_API_URL") or DEFAULT_BASE_URL).strip().rstrip("/")
    if base_url and base_url.strip().rstrip("/") != operator:
        raise AuthenticationError(
            f"This base was built through Cohere embed at {display_url(base_url)}, not the configured endpoint; "
            "name it with --base-url to send your Cohere key there."
        )
