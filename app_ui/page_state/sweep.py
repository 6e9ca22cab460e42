"""State of the Parameter sweep page: its keys, what the view reads, and the callbacks of a
clicked cell and a picked golden query (both move the sidebar)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import streamlit as st

from rse_core.evaluation.golden import GoldenQuery
from rse_core.evaluation.sweep import SweepParam, SweepResult

from . import sidebar_settings
from .reruns import reruns_app


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


NO_GOLD: Final = ""
"""The golden-query choice that means no recall."""


@dataclass(frozen=True)
class SweepState:
    """The heatmap's key (new after each click, so the chart forgets its selection)."""

    chart_key: str


def read() -> SweepState:
    return SweepState(chart_key=Keys.heatmap(st.session_state.get(Keys.NONCE, 0)))


def remember_sweep(swept: SweepResult) -> None:
    """Keep the drawn sweep's axes: a click on the heatmap names a cell by its position in them."""
    st.session_state[Keys.LAST] = (swept.x_param, swept.x_values, swept.y_param, swept.y_values)


def show_gold(golden: Sequence[GoldenQuery], matching: GoldenQuery | None) -> None:
    """Offer ``golden`` and select the one the sidebar's query is (before the picker is drawn): the
    picker follows the query, whoever changed it."""
    st.session_state[Keys.GOLD_QUERIES] = tuple(golden)
    st.session_state[Keys.GOLD] = matching.id if matching else NO_GOLD


def cell_from_selection(selection: dict, x_values: Sequence[float], y_values: Sequence[float]):
    """The (x, y) setting of the clicked cell from a plotly_chart selection, or ``None``.

    Points carry the cell's integer position as x and y (see ``sweep_heatmap``).
    """
    points = (selection or {}).get("selection", {}).get("points", []) if isinstance(selection, dict) else []
    if not points and hasattr(selection, "selection"):
        points = selection.selection.get("points", [])
    for point in points:
        try:
            column, row = round(float(point["x"])), round(float(point["y"]))
        except (KeyError, TypeError, ValueError):
            continue
        if 0 <= column < len(x_values) and 0 <= row < len(y_values):
            return x_values[column], y_values[row]
    return None


def apply_setting(x_param: SweepParam, x: float, y_param: SweepParam, y: float) -> None:
    """Set the sidebar sliders to one cell and mark the preset as matching (or custom)."""
    sidebar_settings.set_sidebar_params(**{x_param.value: x, y_param.value: y})


def on_cell_click(chart_key: str) -> None:
    """Callback of the heatmap: the sidebar moves to the clicked cell; the next chart is a fresh one."""
    last = st.session_state.get(Keys.LAST)
    if last is None:
        return
    x_param, x_values, y_param, y_values = last
    cell = cell_from_selection(st.session_state.get(chart_key), x_values, y_values)
    if cell is None:
        return
    apply_setting(x_param, cell[0], y_param, cell[1])
    st.session_state[Keys.NONCE] = st.session_state.get(Keys.NONCE, 0) + 1  # a fresh chart: no stale selection


@reruns_app  # the sidebar's query is outside the page fragment
def on_gold_change() -> None:
    """Callback of the golden-query picker: the sidebar's query becomes the picked one."""
    chosen = st.session_state.get(Keys.GOLD)
    by_id = {query.id: query for query in st.session_state.get(Keys.GOLD_QUERIES) or ()}
    if chosen in by_id:
        sidebar_settings.set_sidebar_query(by_id[chosen].query)
