"""State of the Sweep page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/sweep.py."""

    Y: Final = "sw_y_param"
    METRIC: Final = "sw_metric"
    GOLD: Final = "sw_gold"
    NONCE: Final = "_sw_chart_nonce"
    LAST: Final = "_sw_last_sweep"
    GOLD_QUERIES: Final = "_sw_gold_queries"  # the golden queries the picker offers (a sample's and mine)

    @staticmethod
    def heatmap(nonce: int) -> str:
        """A new key after a click, so the chart forgets its selection."""
        return f"sw_heatmap_{nonce}"
