"""Start the browser's chart library loading while the server computes the first screen.

Streamlit's frontend fetches and compiles plotly.js (a 4.7 MB module) only when the first chart
element reaches the browser. On a first visit that happens after the server has computed the
chart, so the two waits add up (seconds on a small machine). A tiny chart sent as the first
element of a session's first run, in a container the theme hides (``display: none``), makes the
browser load the library while the server is still computing; the real chart then draws as soon
as it arrives. The hidden chart is removed at the end of that run.

Not on a page whose chart is a live chart (``live_chart`` in :mod:`app_ui.page_catalog`: Explore
and RSE vs top-k): a live chart's frame (``app_ui.live_chart``) loads a plotly.js of its own, so
warming Streamlit's only took CPU from it (first chart 4.6 s with, 4.3-4.4 s without; a hidden
live chart instead loaded in parallel with the real one and made it 0.2-0.4 s later still: both
frames compiled plotly.js at once).
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from . import keys
from .page_catalog import PageSpec
from .page_state import once

CSS = f".st-key-{keys.CHART_WARMUP} {{ display: none; }}"  # in app_ui.theme.CSS, which is drawn before it
_FIGURE = {
    "data": [{"type": "scatter", "x": [], "y": [], "hoverinfo": "skip"}],
    "layout": {"height": 10, "margin": {"l": 0, "r": 0, "t": 0, "b": 0}, "xaxis": {"visible": False},
               "yaxis": {"visible": False}},
}  # fmt: skip


def start(page: PageSpec) -> DeltaGenerator:
    """Send the hidden chart on the session's first run unless the page's chart is a live chart
    (its charts are ``st.plotly_chart``); return its placeholder (for :func:`finish`)."""
    placeholder = st.container(key=keys.CHART_WARMUP).empty()
    if not page.live_chart and once.take_once(keys.CHART_WARMUP_SENT, True):
        placeholder.plotly_chart(_FIGURE, config={"staticPlot": True, "displayModeBar": False}, theme=None)
    return placeholder


def finish(placeholder: DeltaGenerator) -> None:
    """Remove the hidden chart (the page's own charts are drawn by now)."""
    placeholder.empty()
