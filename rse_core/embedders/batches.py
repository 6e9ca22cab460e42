"""What every embedding endpoint client shares: texts cut into requests, several in flight, and each
reply checked before a vector of it can reach a knowledge base.

An endpoint is a stranger: it may answer fewer vectors than it was sent, vectors of another size,
NaN, or zeros. Any of those stored would poison every later search of the base without a sign, so
a reply is refused whole, with a message naming what was wrong (never the key or the URL's
credentials; the caller passes the URL as :func:`rse_core.net.urls.display_url` shows it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from numbers import Real

import numpy as np

from rse_core.errors import EmbeddingServiceError, EmbeddingTimeoutError
from rse_core.validation import whole_number

MAX_IN_FLIGHT = 16
"""Most requests one embedder keeps open at once, however many are asked for: a build must not
flood a shared endpoint (its rate limit would only turn the extra requests into retries)."""

BatchCall = Callable[[list[str]], Sequence[Sequence[float]]]
"""Embeds one request's texts: the vectors as the endpoint returned them, in the texts' order."""


def check_batching(batch_size: int, in_flight: int, most_per_request: int) -> None:
    """Refuse a batch size or a number of requests in flight the endpoint cannot take.

    Raises:
        ParameterError: either is not a whole number in its range.
    """
    whole_number("batch_size", batch_size, 1, most_per_request)
    whole_number("in_flight", in_flight, 1, MAX_IN_FLIGHT)


def embed_in_batches(texts: Sequence[str], call: BatchCall, batch_size: int, in_flight: int, source: str) -> list:
    """``call`` on ``texts`` cut into batches of ``batch_size``, up to ``in_flight`` at once; the
    replies' rows in the texts' order (each reply's length checked).

    A request that times out is asked again as two halves, one after the other, down to a single
    text: a server on a laptop embeds a few texts a second and queues the requests in flight, so a
    batch that waits too long is not a dead server, and a smaller one gets through.

    The first failure is raised once the requests already sent have ended (none is abandoned
    half-way to an endpoint that bills it).

    Raises:
        EmbeddingServiceError: a reply held another number of vectors than its request had texts.
        EmbeddingTimeoutError: a request of one text timed out.
    """
    batches = [list(texts[start : start + batch_size]) for start in range(0, len(texts), batch_size)]

    def one(batch: list[str]) -> Sequence[Sequence[float]]:
        try:
            rows = call(batch)
        except EmbeddingTimeoutError:
            if len(batch) == 1:
                raise
            half = len(batch) // 2
            return [*one(batch[:half]), *one(batch[half:])]
        if len(rows) != len(batch):
            raise EmbeddingServiceError(
                f"{source} returned {len(rows)} vectors for {len(batch)} texts; "
                "the answer cannot be matched to the chunks."
            )
        return rows

    if len(batches) <= 1 or in_flight == 1:
        replies = [one(batch) for batch in batches]
    else:
        with ThreadPoolExecutor(max_workers=min(in_flight, len(batches)), thread_name_prefix="embed") as pool:
            replies = list(pool.map(one, batches))
    return [row for reply in replies for row in reply]


def checked_vectors(rows: Sequence[Sequence[float]], dimension: int | None, source: str) -> np.ndarray:
    """The rows as a float32 matrix of unit vectors, or an error naming what is wrong with them.

    Args:
        dimension: the size every vector must have (``None``: the first vector's size, for all).
        source: names the endpoint in messages ("the OpenAI-compatible endpoint http://host/v1").

    Raises:
        EmbeddingServiceError: a vector is not a list of numbers, has another size, holds NaN or
            infinity, or is all zeros (it has no direction to compare).
    """
    if not rows:
        return np.zeros((0, dimension or 0), dtype=np.float32)
    expected = dimension if dimension is not None else _length(rows[0], 0, source)
    for number, row in enumerate(rows):
        if _length(row, number, source) != expected:
            raise EmbeddingServiceError(
                f"{source} returned a vector of {len(row)} dimensions for text {number}, not {expected}: "
                "was the model changed? Build with the model this base was built with."
            )
    try:
        matrix = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError):
        raise EmbeddingServiceError(f"{source} returned a vector holding something that is not a number.") from None
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        first = int(np.flatnonzero(~finite)[0])
        raise EmbeddingServiceError(f"{source} returned a vector holding NaN or infinity (text {first}).")
    norms = np.linalg.norm(matrix, axis=1)
    if not (norms > 0).all():
        first = int(np.flatnonzero(norms <= 0)[0])
        raise EmbeddingServiceError(f"{source} returned an all-zero vector (text {first}); it cannot be compared.")
    return (matrix / norms[:, None]).astype(np.float32)


def _length(row: object, number: int, source: str) -> int:
    if isinstance(row, str | bytes) or not isinstance(row, Sequence) or not row:
        raise EmbeddingServiceError(f"{source} returned something that is not a list of numbers for text {number}.")
    if not all(isinstance(value, Real) and not isinstance(value, bool) for value in row[:1]):
        raise EmbeddingServiceError(f"{source} returned a vector holding something that is not a number.")
    return len(row)
