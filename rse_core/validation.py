"""Checks shared by the scorers and the value computation, with messages a user can act on."""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

import numpy as np

from rse_core.errors import InvalidScoresError, RSEError


def finite_scores(scores: object, *, source: str, expected: int | None = None) -> np.ndarray:
    """``scores`` as one finite float per chunk, or :class:`InvalidScoresError` naming ``source``.

    NaN or infinite scores from a backend are refused rather than plotted: every value, segment
    and ranking computed from them would be meaningless.
    """
    try:
        array = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InvalidScoresError(f"{source} returned scores that are not numbers ({error}).") from error
    if expected is not None:
        array = array.reshape(-1)
        if array.shape != (expected,):
            raise InvalidScoresError(f"{source} returned {array.size} scores for {expected} chunks.")
    elif array.ndim != 1:
        raise InvalidScoresError(f"{source} returned scores of shape {array.shape}; expected one per chunk.")
    bad = np.flatnonzero(~np.isfinite(array))
    if len(bad):
        raise InvalidScoresError(
            f"{source} returned {len(bad)} NaN or infinite score(s) (first at chunk {bad[0]}); "
            "the results would be meaningless, so they are not shown."
        )
    return array


E = TypeVar("E", bound=StrEnum)


def parse_choice(choices: type[E], name: str | E, what: str, error: type[RSEError]) -> E:
    """The member of ``choices`` called ``name``; the error lists every valid name."""
    try:
        return choices(name)
    except ValueError:
        valid = ", ".join(member.value for member in choices)
        raise error(f"Unknown {what} {name!r}; choose one of: {valid}.") from None
