"""Checks shared by the scorers, the embedders and the value computation, with messages a user can act on."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from enum import StrEnum
from numbers import Real
from typing import TypeVar

import numpy as np

from rse_core.errors import InvalidScoresError, ParameterError, RSEError


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


def env_number(
    variable: str, default: float, *, environ: Mapping[str, str] | None = None, whole: bool = False
) -> float:
    """A limit from the environment: ``default`` when unset or blank, else a finite number above 0.

    Every resource bound an operator may raise is read this way, so a typo fails loudly with the
    variable's name instead of silently lifting the bound.

    Raises:
        ParameterError: the variable is set but is not a (whole, if ``whole``) number above 0.
    """
    environ = os.environ if environ is None else environ
    raw = (environ.get(variable) or "").strip()
    if not raw:
        return default
    try:
        number = float(raw)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number <= 0 or (whole and number != int(number)):
        kind = "a whole number" if whole else "a number"
        raise ParameterError(f"The environment variable {variable}={raw!r} must be {kind} above 0; fix or unset it.")
    return int(number) if whole else number


def finite_number(name: str, value: object, minimum: float, *, inclusive: bool = False) -> float:
    """``value`` as a float above ``minimum`` (or equal to it, when ``inclusive``).

    Raises:
        ParameterError: it is not a finite number in that range.
    """
    ok = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < minimum or (value == minimum and not inclusive):
        bound = "at least" if inclusive else "above"
        raise ParameterError(f"{name} must be a number {bound} {minimum:g}; got {value!r}.")
    return float(value)


def whole_number(name: str, value: object, low: int, high: int) -> int:
    """``value`` if it is a whole number from ``low`` to ``high``.

    Raises:
        ParameterError: it is not.
    """
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ParameterError(f"{name} must be a whole number from {low} to {high}; got {value!r}.")
    return value
