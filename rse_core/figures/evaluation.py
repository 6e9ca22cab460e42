"""Figures of the evaluation: per-kind results, recall against characters sent, chunk size.

Drawn by the Evaluate page; plain Plotly, so a notebook can draw them from the same objects.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rse_core.evaluation.chunk_study import ChunkSizeRow
from rse_core.evaluation.curves import MAX_CHARACTERS, Curve
from rse_core.evaluation.metrics import METHOD_LABELS, METHODS
from rse_core.evaluation.runs import Evaluation
from rse_core.evaluation.tuning import TunePoint, TuneResult
from rse_core.figures.style import PALETTE

METHOD_COLORS = {
    "rse": PALETTE.segment,
    "top_k": PALETTE.top_k,
    "top_k_equal_budget": "#fdba74",  # a lighter orange: top-k again, at RSE's character budget
    "window": PALETTE.window,
    "window_equal_budget": "#86efac",  # a lighter green: the window again, at RSE's character budget
}


def summary_figure(evaluation: Evaluation) -> go.Figure:
    """Grouped bars per query kind: recall, precision and characters sent, one colour per method."""
    summary = evaluation.summary()
    metrics = (("recall", "Recall"), ("precision", "Precision"), ("characters", "Characters sent"))
    figure = make_subplots(rows=1, cols=3, subplot_titles=[title for _, title in metrics], horizontal_spacing=0.07)
    for column, (metric, _) in enumerate(metrics, 1):
        for method in METHODS:
            rows = [row for row in summary if row["method"] == method]
            figure.add_trace(
                go.Bar(
                    x=[f"{row['kind']} ({row['queries']})" for row in rows],
                    y=[row[metric] for row in rows],
                    name=METHOD_LABELS[method],
                    legendgroup=method,
                    showlegend=column == 1,
                    marker={
                        "color": METHOD_COLORS[method],
                        "line": {"color": PALETTE.top_k, "width": 1 if method == "top_k_equal_budget" else 0},
                    },
                    hovertemplate=f"{METHOD_LABELS[method]}<br>%{{x}}: %{{y:.2f}}<extra></extra>"
                    if metric != "characters"
                    else f"{METHOD_LABELS[method]}<br>%{{x}}: %{{y:,.0f}} characters<extra></extra>",
                ),
                row=1,
                col=column,
            )
    figure.update_yaxes(range=[0, 1.05], row=1, col=1)
    figure.update_yaxes(range=[0, 1.05], row=1, col=2)
    figure.update_layout(
        barmode="group",
        height=340,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend={"orientation": "h", "y": -0.15},
    )
    return figure


CURVE_STYLE = {
    "rse": ("RSE, penalty sweep", PALETTE.segment),
    "top_k": ("top-k, k = 1-20", PALETTE.top_k),
    "window": ("fixed window, k = 1-20", "#7c3aed"),
}


def budget_figure(
    curves: list[Curve],
    current: TunePoint | None = None,
    tuned: TuneResult | None = None,
    current_label: str = "Sidebar setting",
) -> go.Figure:
    """Recall vs characters: one line per method (area in its name), the current and tuned settings."""
    figure = go.Figure()
    for curve in curves:
        name, color = CURVE_STYLE.get(curve.method, (curve.method, "#64748b"))
        setting = "penalty" if curve.method == "rse" else "k"
        figure.add_trace(
            go.Scatter(
                x=[p.characters for p in curve.points],
                y=[p.recall for p in curve.points],
                customdata=[p.setting for p in curve.points],
                mode="lines+markers",
                line={"color": color, "width": 2, "shape": "linear"},
                marker={"size": 6},
                name=f"{name} (area {curve.area:.3f})",
                hovertemplate=f"{setting} %{{customdata:g}}<br>%{{x:,.0f}} characters"
                "<br>recall %{y:.2f}<extra></extra>",
            )
        )
    if current is not None:
        figure.add_trace(_marker(current, current_label, "circle-open", "#0f172a", 14))
    if tuned is not None and tuned.best is not None:
        figure.add_trace(_marker(tuned.best, "Auto-tuned", "star", "#16a34a", 16))
        figure.add_vline(
            x=tuned.budget,
            line={"dash": "dash", "color": "#16a34a", "width": 1},
            annotation_text=f"budget {tuned.budget:,.0f}",
            annotation_position="top left",
        )
    figure.add_vline(
        x=MAX_CHARACTERS,
        line={"dash": "dot", "color": "#94a3b8", "width": 1},
        annotation_text="area up to here",
        annotation_position="bottom right",
        annotation_font_color="#64748b",
    )
    figure.update_layout(
        height=380,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"title": "characters sent per query (mean)", "rangemode": "tozero", "tickformat": ",d"},
        yaxis={"title": "recall (mean)", "range": [0, 1.05]},
        legend={"orientation": "h", "y": -0.22},
    )
    return figure


def _marker(point: TunePoint, name: str, symbol: str, color: str, size: int) -> go.Scatter:
    p = point.params
    text = (
        f"{name}<br>penalty {p.irrelevant_chunk_penalty:g}, minimum {p.minimum_value:g}, decay {p.decay_rate:g}, "
        f"max chunks {p.max_length}<br>%{{x:,.0f}} characters, recall %{{y:.2f}}<extra></extra>"
    )
    return go.Scatter(
        x=[point.characters],
        y=[point.recall],
        mode="markers",
        marker={"symbol": symbol, "size": size, "color": color, "line": {"width": 2, "color": color}},
        name=name,
        hovertemplate=text,
    )


def study_figure(rows: list[ChunkSizeRow]) -> go.Figure:
    """Recall and characters sent against chunk size, one line per method."""
    figure = make_subplots(
        rows=1, cols=2, subplot_titles=["Recall of the gold span", "Characters sent"], horizontal_spacing=0.1
    )
    for method in [m for m in METHODS if any(row.method == m for row in rows)]:
        mine = [row for row in rows if row.method == method]
        for column, metric in ((1, "recall"), (2, "characters")):
            figure.add_trace(
                go.Scatter(
                    x=[row.chunk_size for row in mine],
                    y=[getattr(row, metric) for row in mine],
                    mode="lines+markers",
                    name=METHOD_LABELS.get(method, method),
                    legendgroup=method,
                    showlegend=column == 1,
                    line={"color": METHOD_COLORS.get(method), "width": 3 if method == "rse" else 2},
                    hovertemplate=f"{METHOD_LABELS.get(method, method)}, chunk size %{{x}}: %{{y:,.2f}}<extra></extra>",
                ),
                row=1,
                col=column,
            )
    figure.update_xaxes(title_text="chunk size (characters)", tickvals=sorted({row.chunk_size for row in rows}))
    figure.update_yaxes(range=[0, 1.05], row=1, col=1)
    figure.update_layout(
        height=360, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend={"orientation": "h", "y": -0.25}
    )
    return figure
