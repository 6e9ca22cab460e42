"""Chunk values: from scores to the numbers the segment search adds up.

For chunk ``i`` of one query (the RSE authors' definition, dsRAG ``get_chunk_value``)::

    transformed_i = beta.cdf(calibrated_i, a, b)
    value_i       = transformed_i * exp(-rank_i / decay_rate) - irrelevant_chunk_penalty
    value_i      *= max(len_i, 700) / 700            # only with chunk_length_adjustment

``rank_i`` is 0 for the best-scored chunk; ties keep document order. The beta CDF with
a = b = 0.4 (the authors' choice for Cohere's reranker) pushes scores towards 0 and 1, so clearly
relevant chunks score near 1 and irrelevant ones near 0. The penalty then makes irrelevant chunks
negative, which is what stops a segment from growing through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import InvalidScoresError
from .params import REFERENCE_CHUNK_LENGTH, RSEParams
from .validation import finite_scores


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
) -> ChunkValues:
    """Turn calibrated scores in [0, 1] into chunk values (formula in the module docstring).

    Args:
        calibrated: one score per chunk in document order, already mapped into [0, 1].
        params: penalty, decay rate, beta shape and whether to adjust for chunk length.
        chunk_lengths: characters per chunk; needed when ``params.chunk_length_adjustment``.
        raw: the scorer's raw scores, kept for display and used for ranking (so ties created by
            calibration clipping still rank by the model's own order). Defaults to ``calibrated``.

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
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), -raw_array))] = np.arange(n)
    # The regularised incomplete beta function is the beta CDF (scipy.stats' beta.cdf calls it);
    # scipy.special imports in a fraction of scipy.stats' time, and only when values are computed.
    from scipy.special import betainc

    transformed = betainc(params.beta_a, params.beta_b, calibrated_array)
    with np.errstate(over="ignore"):  # a tiny decay rate sends -rank/decay to -inf: exp gives 0
        decay = np.exp(-rank / params.decay_rate)
    value = transformed * decay - params.irrelevant_chunk_penalty
    length_factor = np.ones(n)
    if params.chunk_length_adjustment:
        if chunk_lengths is None:
            raise InvalidScoresError("chunk_lengths are needed when chunk_length_adjustment is on.")
        lengths = np.asarray(chunk_lengths, dtype=np.float64)
        if lengths.shape != (n,):
            raise InvalidScoresError(f"{len(lengths)} chunk lengths for {n} chunks.")
        length_factor = np.maximum(lengths, REFERENCE_CHUNK_LENGTH) / REFERENCE_CHUNK_LENGTH
        value = value * length_factor
    return ChunkValues(
        raw=raw_array,
        calibrated=calibrated_array,
        transformed=transformed,
        rank=rank,
        decay=decay,
        length_factor=length_factor,
        value=value,
    )
