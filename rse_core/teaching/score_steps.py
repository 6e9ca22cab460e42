"""From scores to values on the board: each chunk's way through beta, rank, decay and penalty.

A class starts from raw reranker-like scores in [0, 1] and fills in one column at a time::

    score -> beta.cdf(score, a, b) -> rank (best = rank 0) -> x exp(-rank / decay) -> - penalty = value

The numbers come from :func:`rse_core.values.chunk_values`, the function the pipeline uses, so
the board and the app agree to the last digit. :func:`beta_lookup` is the table a class reads
the beta column from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import betainc  # what scipy.stats.beta.cdf computes, without importing scipy.stats (~0.6 s)

from rse_core.errors import ParameterError
from rse_core.numerals import num
from rse_core.params import RSEParams
from rse_core.teaching.course import COURSE_PARAMS
from rse_core.values import chunk_values

BETA_LOOKUP_POINTS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 1.0)
"""Scores in the beta lookup table: dense near 0 and 1, where the curve is steep."""


@dataclass(frozen=True)
class ValueRow:
    """One chunk on the board, column by column.

    Attributes:
        chunk: position in the list (0-based).
        score: the raw score in [0, 1] (already calibrated, as a reranker's).
        transformed: ``beta.cdf(score, a, b)``.
        rank: 0 for the highest score (ties: the earlier chunk first).
        decay: ``exp(-rank / decay_rate)``.
        decayed: ``transformed * decay``.
        penalty: the irrelevant-chunk penalty subtracted.
        value: ``decayed - penalty``: what the segment search adds up.
    """

    chunk: int
    score: float
    transformed: float
    rank: int
    decay: float
    decayed: float
    penalty: float
    value: float

    def working(self, decay_rate: float) -> str:
        """The row as a student writes it out: ``"0.9 -> 0.76 x exp(-0/30) = 0.76 - 0.2 = 0.56"``."""
        return (
            f"{num(self.score)} -> {self.transformed:.3f} x exp(-{self.rank}/{decay_rate:g}) = "
            f"{self.transformed:.3f} x {self.decay:.3f} = {self.decayed:.3f} - {num(self.penalty)} = {self.value:.3f}"
        )


def value_rows(scores: Sequence[float] | np.ndarray, params: RSEParams = COURSE_PARAMS) -> list[ValueRow]:
    """The per-chunk table from raw scores to values under ``params``' beta shape, decay and penalty
    (the course's unless given).

    Raises:
        InvalidScoresError: a score is not a number in [0, 1].
    """
    stages = chunk_values(scores, params)
    return [
        ValueRow(
            chunk=index,
            score=float(stages.calibrated[index]),
            transformed=float(stages.transformed[index]),
            rank=int(stages.rank[index]),
            decay=float(stages.decay[index]),
            decayed=float(stages.transformed[index] * stages.decay[index]),
            penalty=float(params.irrelevant_chunk_penalty),
            value=float(stages.value[index]),
        )
        for index in range(len(stages))
    ]


@dataclass(frozen=True)
class BetaRow:
    """One line of the beta lookup table: a score and ``beta.cdf(score, a, b)``."""

    score: float
    transformed: float

    @property
    def change(self) -> float:
        """How far the transform moves the score (positive: up)."""
        return self.transformed - self.score


def beta_lookup(params: RSEParams = COURSE_PARAMS, points: Sequence[float] = BETA_LOOKUP_POINTS) -> list[BetaRow]:
    """The beta CDF of ``params``' shape (the course's unless given) at a few scores, for reading the
    beta column off a table.

    With a = b = 0.4 scores near 0 move up and scores near 1 move down (0.01 -> 0.094,
    0.99 -> 0.906): the transform spreads out what bunches at the ends.
    """
    grid = np.asarray(points, dtype=np.float64)
    if grid.ndim != 1 or not np.isfinite(grid).all() or (grid < 0).any() or (grid > 1).any():
        raise ParameterError("lookup points must be numbers in [0, 1].")
    transformed = betainc(params.beta_a, params.beta_b, grid)
    return [BetaRow(float(x), float(y)) for x, y in zip(grid, transformed, strict=True)]
