"""The parameters the teaching aids work with, taken from :mod:`rse_core.params`, never retyped.

The classroom examples use the **course** preset (penalty 0.2, decay 30, beta 0.4 / 0.4, limits
20 / 30 / minimum 0.7), under which the class's numbers hold; examples about the app's own
behaviour use its defaults (minimum 0.5). A change to either preset reaches every example.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from rse_core.numerals import num
from rse_core.params import Preset, RSEParams, preset

COURSE_PARAMS = preset(Preset.COURSE)
"""The course's parameters: what the worked examples and the board are solved with."""

DEFAULT_PARAMS = RSEParams()
"""The parameters the app opens with."""


class SearchLimits(Protocol):
    """What holds the segment search's three limits: parameters, or a classroom example."""

    @property
    def max_length(self) -> int: ...

    @property
    def overall_max_length(self) -> int: ...

    @property
    def minimum_value(self) -> float: ...


def search_limits(holder: SearchLimits) -> dict[str, float]:
    """The three limits of the segment search, as ``find_best_segments``'s keywords."""
    return {
        "max_length": holder.max_length,
        "overall_max_length": holder.overall_max_length,
        "minimum_value": holder.minimum_value,
    }


def limits_text(limits: Mapping[str, float]) -> str:
    """``"20 per segment, 30 overall, minimum 0.7"``: :func:`search_limits` as a prompt or caption states them."""
    return (
        f"{limits['max_length']} per segment, {limits['overall_max_length']} overall, "
        f"minimum {num(limits['minimum_value'])}"
    )
