"""Chunk values: from scores to the numbers the segment search adds up.

For chunk ``i`` of one query (the RSE authors' definition, dsRAG ``get_chunk_value``)::

    transformed_i = beta.cdf(calibrated_i, a, b)
    value_i       = transformed_i * exp(-rank_i / decay_rate) - irrelevant_chunk_penalty
    value_i      *= max(len_i, 700) / 700            # only with chunk_length_adjustment

``rank_i`` is 0 for the best-scored chunk of its document; ties keep document order. Ranks (like
the calibration, see :meth:`~rse_core.scoring.base.Calibration.per_document`) are taken within each
document, so a document's values never depend on which other documents are loaded beside it. The beta
CDF with a = b = 0.4 (the authors' choice for Cohere's reranker) is steep near 0 and 1 and flat in
the middle, so it *spreads out* scores that bunch near the ends: 0.01 -> 0.094, 0.05 -> 0.18,
0.95 -> 0.82, 0.99 -> 0.906, while 0.5 stays 0.5. A reranker puts most chunks near 0 and the
relevant ones near 1; after the transform small differences there count, and a chunk at 0.01
and one at 0.05 no longer look alike. The penalty then makes weak chunks negative, which is what
stops a segment from growing through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from rse_core.errors import InvalidScoresError
from rse_core.params import REFERENCE_CHUNK_LENGTH, RSEParams
from rse_core.validation import finite_scores


@dataclass(frozen=True)
class ChunkValues:
    """Every stage of the value computation for one query, aligned with the chunks."""

    raw: np.ndarray
    calibrated: np.ndarray
    transformed: np.ndarray
    rank: np.ndarray
    decay: np.ndarray
    length_factor: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return len(self.value)


def chunk_values(
    calibrated: Sequence[float] | np.ndarray,
    params: RSEParams,
    *,
    chunk_lengths: Sequence[int] | np.ndarray | None = None,
    raw: Sequence[float] | np.ndarray | None = None,
    document_splits: Sequence[int] = (),
) -> ChunkValues:
    """Turn calibrated scores in [0, 1] into chunk values (formula in the module docstring).

    Args:
        calibrated: one score per chunk in document order, already mapped into [0, 1].
        params: penalty, decay rate, beta shape and whether to adjust for chunk length.
        chunk_lengths: characters per chunk; needed when ``params.chunk_length_adjustment``.
        raw: the scorer's raw scores, kept for display and used for ranking (so ties created by
            calibration clipping still rank by the model's own order). Defaults to ``calibrated``.
        document_splits: index of the first chunk of every document but the first (as in a
            corpus); chunks are ranked within their own document.

    Raises:
        InvalidScoresError: scores are NaN, infinite, outside [0, 1] or of the wrong length.
    """
    calibrated_array = finite_scores(calibrated, source="The calibration")
    if len(calibrated_array) and (calibrated_array.min() < -1e-9 or calibrated_array.max() > 1 + 1e-9):
        raise InvalidScoresError(
            "calibrated scores must lie in [0, 1]; got "
            f"{calibrated_array.min():.3g} to {calibrated_array.max():.3g}. Calibrate the scorer's output first."
        )
    calibrated_array = np.clip(calibrated_array, 0.0, 1.0)
    raw_array = calibrated_array if raw is None else finite_scores(raw, source="The scorer")
    if len(raw_array) != len(calibrated_array):
        raise InvalidScoresError(f"{len(raw_array)} raw scores for {len(calibrated_array)} chunks.")
    n = len(calibrated_array)
    bounds = [0, *document_splits, n]
    rank = np.concatenate([rank_by_score(raw_array[start:end]) for start, end in pairwise(bounds)]).astype(np.int64)
    # The regularised incomplete beta function is the beta CDF (scipy.stats' beta.cdf calls it);
    # scipy.special imports in a fraction of scipy.stats' time, and only when values are computed.
    from scipy.special import betainc

    transformed = betainc(params.beta_a, params.beta_b, calibrated_array)
    decay = rank_decay(rank, params.decay_rate)
    length_factor = np.ones(n)
    if params.chunk_length_adjustment:
        if chunk_lengths is None:
            raise InvalidScoresError("chunk_lengths are needed when chunk_length_adjustment is on.")
        lengths = np.asarray(chunk_lengths, dtype=np.float64)
        if lengths.shape != (n,):
            raise InvalidScoresError(f"{len(lengths)} chunk lengths for {n} chunks.")
        length_factor = np.maximum(lengths, REFERENCE_CHUNK_LENGTH) / REFERENCE_CHUNK_LENGTH
    value = values_from_parts(
        transformed,
        decay,
        params.irrelevant_chunk_penalty,
        length_factor if params.chunk_length_adjustment else None,
    )
    return ChunkValues(
        raw=raw_array,
        calibrated=calibrated_array,
        transformed=transformed,
        rank=rank,
        decay=decay,
        length_factor=length_factor,
        value=value,
    )


def rank_decay(rank: np.ndarray, decay_rate: float) -> np.ndarray:
    """``exp(-rank / decay_rate)``: the formula's discount for chunks ranked lower in their document."""
    with np.errstate(over="ignore"):  # a tiny decay rate sends -rank/decay to -inf: exp gives 0
        return np.exp(-rank / decay_rate)


def values_from_parts(
    transformed: np.ndarray, decay: np.ndarray, penalty: float, length_factor: np.ndarray | None = None
) -> np.ndarray:
    """``transformed * decay - penalty``, times ``length_factor`` when given: the formula's last step.

    Its own function so that sweeps, which hold the beta-transformed scores and the decay of
    every rate they try, build values for many penalties without redoing the beta CDF, and with
    exactly the operations of :func:`chunk_values` (bit-for-bit the same values).
    """
    value = transformed * decay - penalty
    if length_factor is not None:
        value = value * length_factor
    return value


def rank_by_score(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Rank of every score, 0 for the highest; ties keep their order."""
    scores = np.asarray(scores, dtype=np.float64)
    rank = np.empty(len(scores), dtype=np.int64)
    rank[np.lexsort((np.arange(len(scores)), -scores))] = np.arange(len(scores))
    return rank
