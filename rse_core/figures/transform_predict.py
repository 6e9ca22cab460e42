"""The Transform lab's predict-then-reveal histogram: calibrated scores, and after the reveal their
beta transform over them, on one [0, 1] axis so the move is read off directly.

Short (it shares the first screen with its twin at 1280x720), and plain arrays in, so it knows
nothing of where the scores came from (the page titles and labels each case).
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from rse_core.figures.style import PALETTE, base_layout

PREDICT_HEIGHT = 230
"""Two of these side by side fit the first screen at 1280x720 under the page's title and question."""


def predict_histogram(
    calibrated: np.ndarray,
    transformed: np.ndarray | None,
    *,
    title: str,
    height: int = PREDICT_HEIGHT,
    bins: int = 20,
) -> go.Figure:
    """Counts of ``calibrated`` scores over [0, 1]; with ``transformed`` (after the reveal) their
    beta-transformed counts beside them. ``None`` hides the transform: the class predicts first."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    figure = go.Figure()
    series = [("calibrated", calibrated, PALETTE.stage_calibrated)]
    if transformed is not None:
        series.append(("beta-transformed", transformed, PALETTE.stage_transformed))
    for name, data, color in series:
        counts, _ = np.histogram(np.clip(np.asarray(data, dtype=np.float64), 0, 1), bins=edges)
        figure.add_trace(
            go.Bar(
                x=centres,
                y=counts,
                name=name,
                marker={"color": color},
                customdata=np.column_stack((edges[:-1], edges[1:])),
                hovertemplate=f"{name} %{{customdata[0]:.2f}} to %{{customdata[1]:.2f}}: %{{y}} chunks<extra></extra>",
            )
        )
    layout = base_layout(height, top=36, bottom=56)
    layout["margin"]["l"] = 48
    figure.update_layout(
        layout,
        barmode="group",
        bargap=0.1,
        title={"text": html.escape(title), "x": 0, "xanchor": "left", "font": {"size": 14}},
        xaxis={"range": [0, 1], "title": {"text": "score"}, "showgrid": False},
        yaxis={"title": {"text": "chunks"}, "rangemode": "tozero"},
        showlegend=True,
    )
    return figure
