"""The one small interface every scorer implements, and score calibration.

A scorer turns (query, chunks) into one raw score per chunk, in document order. Raw scores come
on different scales (a reranker's probability, a cosine similarity, an unbounded BM25 sum), but
RSE's beta transform expects a number in [0, 1] where 0 means "irrelevant" and 1 "certainly
relevant". Each scorer therefore carries a :class:`Calibration` that states how its raw scores
are mapped into [0, 1]; nothing downstream knows which model produced a score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise
from typing import Protocol, runtime_checkable

import numpy as np

from rse_core.chunking import Chunk
from rse_core.errors import ParameterError, QueryError, ScorerError
from rse_core.validation import finite_scores, parse_choice

ProgressCallback = Callable[[float, str], None]
"""Called with the fraction done (0 to 1) and a short label, for progress bars."""

MAX_QUERY_CHARS = 2000
"""Longer queries are cut to this many characters (see :func:`clean_query`)."""


class ScorerName(StrEnum):
    """The registry names of the scorers (a StrEnum: JSON, URLs and ``== "bm25"`` keep working)."""

    MINILM = "minilm"
    BM25 = "bm25"
    COHERE = "cohere"
    CROSS_ENCODER = "cross-encoder"
    HYBRID = "hybrid"
    EMBEDDER = "embedder"

    @classmethod
    def parse(cls, name: str | ScorerName) -> ScorerName:
        return parse_choice(cls, name, "scorer", ScorerError)


class CalibrationKind(StrEnum):
    """How a :class:`Calibration` maps raw scores into [0, 1] (see there for each formula)."""

    IDENTITY = "identity"
    LINEAR = "linear"
    LOGISTIC = "logistic"
    MAX_RATIO = "max_ratio"
    QUANTILE = "quantile"


@dataclass(frozen=True)
class Calibration:
    """A monotone map from raw scores into [0, 1].

    ``kind`` is one of:
        - ``identity``: the scores already are probabilities (Cohere's reranker);
        - ``linear``: ``clip((raw - low) / (high - low), 0, 1)``;
        - ``logistic``: ``1 / (1 + exp(-(raw - low) / high))`` (``low`` = midpoint, ``high`` = scale);
        - ``max_ratio``: ``raw / max(raw over the document set)``, for unbounded scores such as BM25.
        - ``quantile``: ``clip((raw - floor) / (ceiling - floor), 0, 1)`` with ``floor`` = the ``low``
          quantile of this query's scores over the document's ``n`` chunks and ``ceiling`` =
          ``max(best, high)``; for similarities whose absolute level drifts from query to query (a
          bi-encoder's cosine). With ``prior_chunks`` = ``m`` > 0 both are shrunk towards fixed values
          as if the document held ``m`` more chunks: ``floor = (n * q + m * prior_floor) / (n + m)``,
          ``ceiling = (n * max(best, high) + m * high) / (n + m)``. A long document sets its own
          scale; a one-chunk page, whose quantile *is* its best chunk, is judged on the fixed one.

    The pipeline applies it to each document separately (:meth:`per_document`).

    Raises:
        ParameterError: ``kind`` is not a :class:`CalibrationKind` (a ``ValueError`` too).
    """

    kind: CalibrationKind = CalibrationKind.IDENTITY
    low: float = 0.0
    high: float = 1.0
    note: str = ""
    prior_floor: float = 0.0
    prior_chunks: float = 0.0

    def __post_init__(self) -> None:
        # Accept the plain string too, and refuse a typo when the calibration is made, not first used.
        object.__setattr__(self, "kind", parse_choice(CalibrationKind, self.kind, "calibration kind", ParameterError))

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        return _MAPS[self.kind](self, np.asarray(raw, dtype=np.float64))

    def _identity(self, raw: np.ndarray) -> np.ndarray:
        return np.clip(raw, 0.0, 1.0)

    def _linear(self, raw: np.ndarray) -> np.ndarray:
        return np.clip((raw - self.low) / (self.high - self.low), 0.0, 1.0)

    def _logistic(self, raw: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(raw - self.low) / self.high))

    def _max_ratio(self, raw: np.ndarray) -> np.ndarray:
        top = float(raw.max()) if len(raw) else 0.0
        if top <= 0:
            return np.zeros_like(raw)
        with np.errstate(over="ignore"):  # a tiny best score overflows the ratios to +-inf: clipped to 1 or 0
            return np.clip(raw / top, 0.0, 1.0)

    def _quantile(self, raw: np.ndarray) -> np.ndarray:
        if not len(raw):
            return raw
        n, m = len(raw), self.prior_chunks
        floor = (n * float(np.quantile(raw, self.low)) + m * self.prior_floor) / (n + m)
        ceiling = (n * max(float(raw.max()), self.high) + m * self.high) / (n + m)
        return np.clip((raw - floor) / (ceiling - floor), 0.0, 1.0) if ceiling > floor else np.zeros_like(raw)

    def per_document(self, raw: np.ndarray, document_splits: Sequence[int] = ()) -> np.ndarray:
        """Calibrate each document's scores on their own (``document_splits`` as in a corpus).

        A quantile or a maximum taken over every loaded chunk would make one document's
        calibrated scores, and so its segments, change when another document is loaded beside it.
        """
        raw = np.asarray(raw, dtype=np.float64)
        bounds = [0, *document_splits, len(raw)]
        parts = [self(raw[start:end]) for start, end in pairwise(bounds) if end > start]
        return np.concatenate(parts) if parts else self(raw)

    def _describe_quantile(self) -> str:
        q = f"q{self.low * 100:g}"
        where = f"{q} = the {self.low * 100:g}th percentile of this query's scores in the document"
        if not self.prior_chunks:
            return f"clip((raw - {q}) / (max(best, {self.high:g}) - {q}), 0, 1), {where}"
        m = f"{self.prior_chunks:g}"
        return (
            f"clip((raw - floor) / (ceiling - floor), 0, 1) for a document of n chunks, "
            f"floor = (n * {q} + {m} * {self.prior_floor:g}) / (n + {m}), "
            f"ceiling = (n * max(best, {self.high:g}) + {m} * {self.high:g}) / (n + {m}), {where}"
        )

    def describe(self) -> str:
        """The formula in words, then the scorer's note on why it fits."""
        formula = {
            CalibrationKind.IDENTITY: "raw score used as is (already in [0, 1])",
            CalibrationKind.LINEAR: f"clip((raw - {self.low:g}) / ({self.high:g} - {self.low:g}), 0, 1)",
            CalibrationKind.LOGISTIC: f"1 / (1 + exp(-(raw - {self.low:g}) / {self.high:g}))",
            CalibrationKind.MAX_RATIO: "raw / highest raw score in the document for this query",
            CalibrationKind.QUANTILE: self._describe_quantile(),
        }[self.kind]
        return f"{formula}. {self.note}".strip()


_MAPS: dict[CalibrationKind, Callable[[Calibration, np.ndarray], np.ndarray]] = {
    CalibrationKind.IDENTITY: Calibration._identity,
    CalibrationKind.LINEAR: Calibration._linear,
    CalibrationKind.LOGISTIC: Calibration._logistic,
    CalibrationKind.MAX_RATIO: Calibration._max_ratio,
    CalibrationKind.QUANTILE: Calibration._quantile,
}


@runtime_checkable
class Scorer(Protocol):
    """Scores chunks against a query.

    Attributes:
        name: registry name (``minilm``, ``bm25``, ``cohere``, ``cross-encoder``).
        model: the model identifier, shown in the UI and used in cache keys.
        calibration: how raw scores map into [0, 1].
    """

    name: str
    model: str
    calibration: Calibration

    def score(self, query: str, chunks: Sequence[Chunk], progress: ProgressCallback | None = None) -> np.ndarray:
        """Raw scores, one per chunk, in the order of ``chunks``."""
        ...


def clean_query(query: str) -> tuple[str, str | None]:
    """Strip a query and cut it to :data:`MAX_QUERY_CHARS`; return it with a note if cut.

    Raises:
        QueryError: the query is empty or only whitespace, or holds a lone surrogate (an
            undecodable byte from ``sys.argv``, a broken string): refused rather than cleaned,
            since a silently changed query would score something the user did not ask.
    """
    if not isinstance(query, str) or not query.strip():
        raise QueryError("The query is empty; type a question or a few keywords.")
    bad = next((i for i, c in enumerate(query) if 0xD800 <= ord(c) <= 0xDFFF), None)
    if bad is not None:
        raise QueryError(
            f"The query is not valid text: character {bad + 1} is an undecodable byte or half of a "
            "character pair (check the terminal's or the file's encoding is UTF-8), so it cannot be scored. "
            "Retype the query."
        )
    query = query.strip()
    if len(query) > MAX_QUERY_CHARS:
        return query[:MAX_QUERY_CHARS], f"The query was cut to its first {MAX_QUERY_CHARS} characters."
    return query, None


def check_scores(scores: object, chunk_count: int, scorer_name: str) -> np.ndarray:
    """Refuse NaN, infinite, non-numeric or mis-shaped scores from a backend instead of plotting them."""
    return finite_scores(scores, source=scorer_name, expected=chunk_count)
