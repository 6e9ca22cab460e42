"""Whether a document's values look uncalibrated for RSE, and what to change.

The Transform lab shows these warnings next to its charts; they are computed here, apart from the
Plotly figures, so a notebook or a test can ask the same question without drawing anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rse_core.params import RSEParams
from rse_core.values import ChunkValues


@dataclass(frozen=True)
class CalibrationWarning:
    """A sign that the scores are not calibrated for RSE, and what to change.

    Attributes:
        kind: ``"too_many_positive"`` or ``"bunched"``.
        message: one paragraph for the page.
        suggested_penalty: the penalty at which half the chunks go negative (rounded up to the
            slider's 0.01 step), when raising the penalty can fix it.
    """

    kind: str
    message: str
    suggested_penalty: float | None = None


BUNCHED_SPREAD = 0.1
"""Calibrated scores whose middle 80% (10th to 90th percentile) span less than this are bunched."""


def half_negative_penalty(values: ChunkValues) -> float:
    """The smallest penalty (on a 0.01 grid) at which at least half the chunks have a negative value.

    A chunk is negative when ``transformed × decay < penalty`` (the length factor is positive,
    so it does not change the sign).
    """
    decayed = np.sort(values.transformed * values.decay)
    k = math.ceil(len(decayed) / 2)
    if k == 0:
        return 0.0
    # negative needs penalty > decayed[k-1]: the next 0.01 step strictly above it
    return round(math.floor(decayed[k - 1] * 100 + 1e-9) / 100 + 0.01, 2)


def calibration_warnings(values: ChunkValues, params: RSEParams, *, scorer: str = "") -> list[CalibrationWarning]:
    """Warn when the values look uncalibrated for RSE.

    Two signs: more than half the chunks are positive after the penalty (a segment then grows
    through almost anything: raise the penalty to where half go negative, see
    :func:`half_negative_penalty`), or the calibrated scores are bunched together (the middle
    80% within :data:`BUNCHED_SPREAD`), so the beta transform cannot separate relevant from
    irrelevant chunks and only the rank decay is left to decide.
    """
    n = len(values)
    if n == 0:
        return []
    warnings = []
    positive = int((values.value > 0).sum())
    who = f"the {scorer} scores" if scorer else "the scores"
    if positive > n / 2:
        penalty = half_negative_penalty(values)
        share = positive / n
        if penalty <= 1.0:
            fix = (
                f"Raise the penalty to about {penalty:g} (now {params.irrelevant_chunk_penalty:g}): "
                "there half the chunks go negative. Or choose another scorer or calibration."
            )
        else:
            penalty = None
            fix = (
                "Even the highest penalty (1) leaves more than half positive: choose another scorer "
                "or calibration, or lower the decay rate."
            )
        warnings.append(
            CalibrationWarning(
                "too_many_positive",
                f"{positive} of {n} chunks ({share:.0%}) are positive after the penalty, so segments grow "
                f"through almost anything and {who} look uncalibrated for RSE. {fix}",
                penalty,
            )
        )
    low, high = np.quantile(values.calibrated, [0.1, 0.9])
    if high < BUNCHED_SPREAD / 2:
        zero = int((values.calibrated < BUNCHED_SPREAD / 2).sum())
        warnings.append(
            CalibrationWarning(
                "bunched",
                f"{zero} of {n} chunks have a calibrated score of about 0: {who} find almost nothing relevant, "
                "so the few chunks above 0 decide everything and the rest is ranked by document order. Check "
                "that the query is about this document, or choose another scorer (bm25 only matches words).",
            )
        )
    elif high - low < BUNCHED_SPREAD:
        warnings.append(
            CalibrationWarning(
                "bunched",
                f"The calibrated scores are bunched together: 80% of the chunks lie between {low:.2f} and {high:.2f} "
                f"(spread {high - low:.2f}). The beta transform cannot tell relevant from irrelevant chunks, so "
                "the rank decay decides almost alone. Choose another scorer or calibration that spreads the "
                "scores over [0, 1].",
            )
        )
    return warnings
