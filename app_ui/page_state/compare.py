"""State of the Compare page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/compare.py."""

    PREFIX: Final = "compare"
    VARIANT: Final = "compare_variant"
    CHART: Final = "compare_chart"
    CHART_AREA: Final = "compare_chart_area"
