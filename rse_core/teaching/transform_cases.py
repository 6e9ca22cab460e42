"""The Transform lab's predict step: two sets of calibrated scores, and where the beta CDF sends them.

The lesson says a reranker's scores bunch near 0 and 1 and the beta CDF (a, b < 1) spreads them
out. A dense scorer does not show it: with MiniLM most chunks of a document calibrate to exactly 0,
and beta.cdf(0) is 0, so they stay there. The lab therefore sets the run's own scores beside scores
that do bunch near both ends: the run's, when its scorer is a reranker, else an illustration drawn
from a seeded beta(0.3, 0.3) (:func:`bunched_illustration`), which the page labels as such.

A class predicts before the reveal; :func:`prediction_answer` measures which choice was right.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rse_core.choices import LabelledChoice
from rse_core.errors import ScorerError
from rse_core.params import RSEParams
from rse_core.scoring.base import ScorerName
from rse_core.values import ChunkValues, chunk_values

NEAR_END = 0.05
"""A score within this of 0 or 1 is "at an end" (the lesson's "bunch near 0 and 1")."""
ILLUSTRATION_SHAPE = 0.3
"""beta(0.3, 0.3): most mass near 0 and 1, the shape a reranker's scores take."""
ILLUSTRATION_SEED = 32
RERANKERS = frozenset({ScorerName.COHERE, ScorerName.CROSS_ENCODER})


class Prediction(LabelledChoice):
    """What a class predicts the beta transform does to the scores at the ends."""

    STAY = "stay", "most stay at the ends"
    SPREAD = "spread", "most move in towards the middle (spread out)"
    CLOSER = "closer", "they move even closer to 0 and 1"


@dataclass(frozen=True)
class TransformCase:
    """One set of calibrated scores and their beta transform.

    Attributes:
        title: what the scores are, as the page heads them.
        calibrated, transformed: per chunk, before and after ``beta.cdf(·, a, b)``.
        illustration: generated, not scored by any model; the page must say so on screen.
    """

    title: str
    calibrated: np.ndarray
    transformed: np.ndarray
    illustration: bool = False

    @property
    def at_ends_before(self) -> int:
        return int(at_ends(self.calibrated).sum())

    @property
    def still_at_ends(self) -> int:
        """Chunks at an end before the transform that are still at one after it."""
        return int((at_ends(self.calibrated) & at_ends(self.transformed)).sum())

    @property
    def exactly_zero(self) -> int:
        return int((self.calibrated == 0).sum())


def at_ends(scores: np.ndarray) -> np.ndarray:
    """Which scores lie within :data:`NEAR_END` of 0 or 1."""
    scores = np.asarray(scores, dtype=np.float64)
    return (scores <= NEAR_END) | (scores >= 1 - NEAR_END)


def is_reranker(scorer: str) -> bool:
    """Whether ``scorer`` (a result's scorer name) is a reranker, whose scores bunch at the ends."""
    try:
        return ScorerName.parse(scorer) in RERANKERS
    except ScorerError:  # a display name the registry does not know: not one of ours
        return False


def run_case(values: ChunkValues, scorer: str) -> TransformCase:
    """This run's calibrated scores and their transform (computed by the pipeline)."""
    return TransformCase(f"This run ({scorer or 'the scorer'})", values.calibrated, values.transformed)


def bunched_illustration(params: RSEParams, n: int, *, seed: int = ILLUSTRATION_SEED) -> TransformCase:
    """``n`` scores drawn from beta(0.3, 0.3) (seeded), transformed under ``params``' beta shape.

    Generated, never a model's output: a stand-in for a reranker when the run has none.
    """
    rng = np.random.default_rng(seed)
    calibrated = rng.beta(ILLUSTRATION_SHAPE, ILLUSTRATION_SHAPE, size=max(n, 1))
    values = chunk_values(calibrated, params)
    return TransformCase(
        f"Illustration, not a reranker's output: {len(calibrated)} scores from beta(0.3, 0.3), seed {seed}",
        values.calibrated,
        values.transformed,
        illustration=True,
    )


def prediction_answer(case: TransformCase) -> Prediction:
    """The right prediction for ``case``, measured: do the chunks at the ends stay there?"""
    before = case.at_ends_before
    if before == 0:
        return Prediction.SPREAD
    moved_closer = np.abs(case.transformed - np.round(case.transformed)) < np.abs(
        case.calibrated - np.round(case.calibrated)
    )
    if moved_closer[at_ends(case.calibrated)].sum() * 2 > before:
        return Prediction.CLOSER
    return Prediction.STAY if case.still_at_ends * 2 >= before else Prediction.SPREAD


def reveal_text(case: TransformCase) -> str:
    """The measured numbers behind :func:`prediction_answer`, as one sentence."""
    n = len(case.calibrated)
    text = (
        f"{case.at_ends_before} of {n} chunks sit within {NEAR_END:g} of 0 or 1 before the transform; "
        f"{case.still_at_ends} of them are still there after it."
    )
    if case.exactly_zero:
        text += f" {case.exactly_zero} calibrate to exactly 0, and beta.cdf(0) = 0: they cannot move."
    return text
