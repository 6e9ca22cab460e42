"""The look every figure shares: colours, fonts, bands and the projector-friendly layout.

No Plotly import here: the page view and the HTML report use the same colours without it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Palette:
    """Colours shared by every chart and page, chosen to stay distinct on a projector."""

    segment: str = "#2563eb"  # RSE segments: blue
    segment_band: str = "rgba(37, 99, 235, 0.12)"
    segment_band_other: str = "rgba(37, 99, 235, 0.06)"  # a segment picked for another query
    top_k: str = "#ea580c"  # top-k chunks: orange
    window: str = "#16a34a"  # the fixed-window baseline: green
    gap: str = "#ca8a04"  # low-scored chunks kept inside a segment: amber
    gap_fill: str = "#fcd34d"
    padding_fill: str = "#fef3c7"  # edge padding: a negative chunk at a segment's end, hatched amber
    window: str = "#16a34a"  # the fixed-window baseline: green
    window_padding: str = "#bbf7d0"  # what a window adds around its hits
    optimal: str = "#be123c"  # the exact search's segments (dashed outline): crimson
    gold: str = "#7e22ce"  # a golden set's answer span: purple
    gold_band: str = "rgba(126, 34, 206, 0.09)"
    positive: str = "#0f766e"  # value >= 0: teal
    negative: str = "#94a3b8"  # value < 0: slate
    boundary: str = "#475569"
    selected: str = "#111827"
    text: str = "#1f2937"
    muted: str = "#64748b"
    grid: str = "#e5e7eb"
    zero: str = "#334155"
    # The stages of the value formula (show_stages=True)
    stage_calibrated: str = "#7c3aed"  # violet
    stage_transformed: str = "#db2777"  # magenta
    stage_decayed: str = "#0891b2"  # cyan
    stage_value: str = "#111827"  # near black


PALETTE = Palette()


def band_shape(start: int, end: int, *, fill: str, line: dict) -> dict:
    """A full-height rectangle over chunks ``start`` to ``end - 1``, drawn under the bars."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "paper",
        "x0": start - 0.5,
        "x1": end - 0.5,
        "y0": 0,
        "y1": 1,
        "fillcolor": fill,
        "line": line,
        "opacity": 1,
        "layer": "below",
    }


def band_label(centre: float, text: str, *, yshift: float, color: str, size: int) -> dict:
    """A bold label above the plot at chunk position ``centre`` (``text`` must be escaped)."""
    return {
        "x": centre,
        "xref": "x",
        "y": 1,
        "yref": "paper",
        "yanchor": "bottom",
        "yshift": yshift,
        "text": f"<b>{text}</b>",
        "showarrow": False,
        "font": {"color": color, "size": size},
    }


INNER_GAP_NAME = "Inner gap (< 0, between kept chunks)"


EDGE_PADDING_NAME = "Edge padding (< 0, at a segment's end)"


FONT_FAMILY = '"Source Sans", "Source Sans 3", "Source Sans Pro", "Segoe UI", Arial, sans-serif'


FONT_SIZE = 14  # readable on a projector


def legend_swatch(name: str, fill: str, line: str) -> dict:
    """A legend entry for something that is not a trace (a shaded band)."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "x": [None],
        "y": [None],
        "marker": {"symbol": "square", "size": 16, "color": fill, "line": {"color": line, "width": 1.5}},
        "hoverinfo": "skip",
        "legendrank": 2,
    }


def base_layout(height: int, *, top: int, bottom: int) -> dict:
    """White, projector-friendly layout (no template: every setting is explicit)."""
    palette = PALETTE
    return {
        "template": {"layout": {}},
        "height": height,
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "font": {"family": FONT_FAMILY, "size": FONT_SIZE, "color": palette.text},
        "margin": {"l": 64, "r": 16, "t": top, "b": bottom, "autoexpand": True},
        "hovermode": "closest",
        "hoverlabel": {
            "bgcolor": "white",
            "bordercolor": palette.boundary,
            "font": {"family": FONT_FAMILY, "size": 14, "color": palette.text},
            "align": "left",
        },
        "legend": {
            "orientation": "h",
            "x": 0,
            "xanchor": "left",
            "y": 0,
            "yref": "container",
            "yanchor": "bottom",
            "font": {"size": 13},
            "bgcolor": "rgba(255,255,255,0)",
            "itemclick": "toggle",
        },
        "dragmode": "zoom",
    }


def chunk_x_axis(n: int, title: str) -> dict:
    return {
        "title": {"text": title, "standoff": 6},
        "range": [-0.5, max(n, 1) - 0.5],
        "showgrid": False,
        "zeroline": False,
        "automargin": True,
        "ticks": "outside",
        "linecolor": PALETTE.grid,
        "tickformat": "d",
    }
