"""Plotly figures for the teaching and tuning pages (no Streamlit here: usable from a notebook).

- :func:`worked_example_chart`: a handful of chunk values as labelled bars, the picked segments
  as bands labelled S1, S2 ... with their value, optionally one step of the greedy search.
- :func:`beta_cdf_chart`, :func:`score_histograms`, :func:`decay_chart`, :func:`stage_chart`:
  the value formula taken apart, one stage at a time (see :mod:`rse_core.values`).
- :func:`sweep_heatmap`: one metric of a :class:`~rse_core.evaluation.sweep.SweepResult` as a heat map,
  with an invisible scatter of cell centres on top so a click selects a cell (Plotly heatmaps
  report clicks but not selections, and Streamlit only forwards selections).

Colours come from :data:`rse_core.figures.style.PALETTE`; sizes are for a projector (14 px and up).
Document text never reaches these figures except through ``html.escape``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy.special import betainc

from rse_core.choices import LabelledChoice
from rse_core.evaluation.sweep import SweepResult
from rse_core.figures.style import FONT_FAMILY, PALETTE, band_label, band_shape
from rse_core.numerals import num
from rse_core.params import RSEParams
from rse_core.search import Segment
from rse_core.values import ChunkValues

BIG_FONT = 16  # worked example: few bars, read from the back of a room
FONT = 14
SEGMENT_LINE = PALETTE.segment
REFUSED = "#b91c1c"  # a segment the search looked at and refused: red, dashed
REFERENCE_BETA = (RSEParams().beta_a, RSEParams().beta_b)  # the default: the RSE authors' shape for Cohere's
GAP_TRACE = "inner gap"  # gap bars (value < 0 inside a segment): amber, outlined


def _layout(height: int, *, top: int = 40, bottom: int = 60, left: int = 64, size: int = FONT) -> dict:
    return {
        "template": {"layout": {}},
        "height": height,
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "font": {"family": FONT_FAMILY, "size": size, "color": PALETTE.text},
        "margin": {"l": left, "r": 24, "t": top, "b": bottom},
        "hovermode": "closest",
        "hoverlabel": {
            "bgcolor": "white",
            "bordercolor": PALETTE.boundary,
            "font": {"family": FONT_FAMILY, "size": 14, "color": PALETTE.text},
            "align": "left",
        },
        "legend": {
            "orientation": "h",
            "x": 0,
            "xanchor": "left",
            "y": 1.02,
            "yanchor": "bottom",
            "font": {"size": FONT - 1},
            "bgcolor": "rgba(255,255,255,0)",
        },
    }


def _axis(title: str, **extra: object) -> dict:
    return {
        "title": {"text": title, "font": {"size": FONT + 1}},
        "gridcolor": PALETTE.grid,
        "zerolinecolor": PALETTE.zero,
        "linecolor": PALETTE.grid,
        "ticks": "outside",
        "tickfont": {"size": FONT},
        **extra,
    }


# --------------------------------------------------------------------------- worked example


@dataclass(frozen=True)
class Band:
    """A segment drawn on the worked example: chunks ``start:end`` (end exclusive)."""

    start: int
    end: int
    label: str
    value: float
    current: bool = False  # the pick of the step being shown
    refused: bool = False  # the best remaining segment the search refused


def segment_bands(segments: Sequence[Segment], *, current: int | None = None) -> list[Band]:
    """Bands for picks in pick order, labelled S1, S2 ...; ``current`` is a 0-based pick number."""
    return [
        Band(segment.start, segment.end, f"S{number}", float(segment.score), current=number - 1 == current)
        for number, segment in enumerate(segments, 1)
    ]


def worked_example_chart(
    values: Sequence[float], bands: Sequence[Band] = (), *, height: int = 400, title: str = "", first: int = 0
) -> go.Figure:
    """Chunk values as bars with their numbers on them, and segments as labelled bands.

    Negative chunks inside a (non-refused) band are inner gaps (a segment starts and ends on a
    non-negative chunk, so there is no edge padding here) and get the amber of the other charts:
    the search kept them because the chunks around them outweigh them. ``first`` is the chunk
    number of ``values[0]`` (a slice of a real document keeps its chunk numbers); bands use chunk numbers.
    """
    array = np.asarray(values, dtype=np.float64)
    n = len(array)
    low = min(float(array.min(initial=0.0)), 0.0)
    high = max(float(array.max(initial=0.0)), 0.0)
    span = (high - low) or 1.0
    shapes, annotations, label_rows = _worked_bands(bands, n)
    top = 40 + 22 * max(label_rows, 1)
    # Room for the numbers written past each bar's end, in pixels of this height: a low chart (a
    # projector's side-by-side) cut "-0.4" under the lowest bar into the axis's tick labels.
    share = min(((BIG_FONT if n <= 24 else 12) + 8) / max(height - top - 56, 60), 0.3)
    pad = span * share / (1 - 2 * share)
    layout = _layout(height, top=top, bottom=56, size=BIG_FONT)
    layout.update(
        barmode="overlay",
        showlegend=False,
        xaxis=_axis(
            "chunk",
            range=[first - 0.6, first + n - 0.4],
            tickmode="array" if n <= 40 else "auto",
            tickvals=list(range(first, first + n)) if n <= 40 else None,
            tickfont={"size": BIG_FONT if n <= 24 else 12},
            showgrid=False,
            zeroline=False,
            fixedrange=True,
        ),
        yaxis=_axis(
            "value",
            range=[low - max(pad, 0.14 * span), high + max(pad, 0.16 * span)],
            zeroline=True,
            zerolinewidth=2,
            fixedrange=True,
        ),
        shapes=shapes,
        annotations=annotations,
    )
    if title:
        layout["title"] = {"text": title, "x": 0, "font": {"size": BIG_FONT}}
    return go.Figure(data=_worked_bars(array, bands, first), layout=layout)


def _worked_bars(array: np.ndarray, bands: Sequence[Band], first: int = 0) -> list[go.Bar]:
    """A bar trace per colour class, each bar with its value written on it (read from afar)."""
    n = len(array)
    inside = np.zeros(n, dtype=bool)
    for band in bands:
        if not band.refused:
            inside[max(band.start - first, 0) : max(band.end - first, 0)] = True
    negative = array < 0
    gap = inside & negative
    x = np.arange(first, first + n)
    traces = []
    for name, mask, fill, line in (
        ("value ≥ 0", ~negative, PALETTE.positive, PALETTE.positive),
        ("value < 0", negative & ~gap, PALETTE.negative, PALETTE.negative),
        ("inner gap (< 0, inside a segment)", gap, PALETTE.gap_fill, PALETTE.gap),
    ):
        if not mask.any() and name.startswith(GAP_TRACE):
            continue
        traces.append(
            go.Bar(
                x=x[mask],
                y=array[mask],
                name=name,
                width=0.7,
                marker={"color": fill, "line": {"color": line, "width": 2 if name.startswith(GAP_TRACE) else 0}},
                text=[num(v) for v in array[mask]],
                textposition="outside",
                textfont={"size": BIG_FONT if n <= 24 else 12, "color": PALETTE.text},
                cliponaxis=False,
                hovertemplate="chunk %{x}: value %{y:.3g}<extra></extra>",
            )
        )
    return traces


def _worked_bands(bands: Sequence[Band], n: int) -> tuple[list[dict], list[dict], int]:
    """Band shapes, their labels ("S1 = 1.2"), and how many label rows they take.

    A label that would overlap the one before it moves up a row, so close segments stay readable.
    """
    shapes, annotations = [], []
    rows: list[float] = []  # right end of the last label in each label row, to stagger close labels
    for band in sorted(bands, key=lambda b: b.start):
        color = REFUSED if band.refused else SEGMENT_LINE
        shapes.append(
            band_shape(
                band.start,
                band.end,
                fill="rgba(0,0,0,0)" if band.refused else PALETTE.segment_band,
                line={
                    "color": color,
                    "width": 3 if band.current or band.refused else 1.5,
                    "dash": "dash" if band.refused else "solid",
                },
            )
        )
        width_in_chunks = max(1.0, 0.11 * n)  # about one label's width
        centre = (band.start + band.end - 1) / 2
        row = next((r for r, end in enumerate(rows) if centre - end >= width_in_chunks), len(rows))
        if row == len(rows):
            rows.append(centre)
        rows[row] = centre
        text = f"{band.label} = {num(band.value)}"
        annotations.append(band_label(centre, text, yshift=4 + 22 * row, color=color, size=BIG_FONT))
    return shapes, annotations, len(rows)


# --------------------------------------------------------------------------- transform lab


def beta_cdf_chart(
    calibrated: np.ndarray,
    in_segment: np.ndarray,
    a: float,
    b: float,
    *,
    height: int = 420,
) -> go.Figure:
    """The beta CDF for shape (a, b) over [0, 1], each chunk on it, and a rug of its calibrated score.

    ``transformed = beta.cdf(calibrated, a, b)``: with a, b < 1 the curve is steep near 0 and 1
    and flat in the middle, so it spreads out scores bunched near the ends (a = b = 0.4:
    0.01 -> 0.094, 0.99 -> 0.906) and pulls middling ones towards 0.5.
    """
    calibrated = np.asarray(calibrated, dtype=np.float64)
    in_segment = np.asarray(in_segment, dtype=bool)
    traces = _beta_curves(a, b) + _beta_chunk_traces(calibrated, betainc(a, b, calibrated), in_segment)
    layout = _layout(height, top=70, bottom=60)
    layout.update(
        xaxis=_axis("calibrated score", range=[-0.02, 1.02], zeroline=False),
        yaxis=_axis("beta-transformed", range=[-0.11, 1.04], zeroline=False),
    )
    return go.Figure(data=traces, layout=layout)


def _beta_curves(a: float, b: float) -> list[go.Scatter]:
    """The identity, the RSE authors' shape (unless it is the one shown) and the chosen CDF."""
    grid = np.linspace(0.0, 1.0, 401)
    traces = [
        go.Scatter(
            x=grid,
            y=grid,
            mode="lines",
            name="no transform (y = x)",
            line={"color": PALETTE.muted, "width": 1.5, "dash": "dot"},
            hoverinfo="skip",
        )
    ]
    if (a, b) != REFERENCE_BETA:
        traces.append(
            go.Scatter(
                x=grid,
                y=betainc(*REFERENCE_BETA, grid),
                mode="lines",
                name=f"a = {REFERENCE_BETA[0]:g}, b = {REFERENCE_BETA[1]:g} (the RSE authors')",
                line={"color": PALETTE.stage_transformed, "width": 1.5, "dash": "dash"},
                opacity=0.55,
                hoverinfo="skip",
            )
        )
    traces.append(
        go.Scatter(
            x=grid,
            y=betainc(a, b, grid),
            mode="lines",
            name=f"beta CDF, a = {a:g}, b = {b:g}",
            line={"color": PALETTE.stage_transformed, "width": 3},
            hovertemplate="calibrated %{x:.2f} → %{y:.3f}<extra></extra>",
        )
    )
    return traces


def _beta_chunk_traces(calibrated: np.ndarray, transformed: np.ndarray, in_segment: np.ndarray) -> list[go.Scatter]:
    """Each chunk on the curve and in a rug under it, segment chunks apart from the others.

    The rug shows where calibrated scores bunch, which the curve's points hide when they overlap.
    """
    index = np.arange(len(calibrated))
    traces = []
    for name, mask, color in (
        ("other chunk", ~in_segment, PALETTE.negative),
        ("chunk in a segment", in_segment, PALETTE.segment),
    ):
        if not mask.any():
            continue
        traces.append(
            go.Scatter(
                x=calibrated[mask],
                y=transformed[mask],
                mode="markers",
                name=name,
                marker={"color": color, "size": 8, "line": {"color": "white", "width": 0.5}},
                customdata=index[mask],
                hovertemplate="chunk %{customdata}: calibrated %{x:.3f} → %{y:.3f}<extra></extra>",
            )
        )
        traces.append(
            go.Scatter(
                x=calibrated[mask],
                y=np.full(int(mask.sum()), -0.06),
                mode="markers",
                name="calibrated scores (rug)",
                showlegend=name == "other chunk" or not (~in_segment).any(),
                legendrank=2000,
                legendgroup="rug",
                marker={"symbol": "line-ns-open", "size": 16, "color": color, "line": {"width": 1.5, "color": color}},
                customdata=index[mask],
                hovertemplate="chunk %{customdata}: calibrated %{x:.3f}<extra></extra>",
            )
        )
    return traces


def score_histograms(values: ChunkValues, *, height: int = 340, bins: int = 30) -> go.Figure:
    """Three histograms side by side: raw scores, calibrated scores, beta-transformed scores.

    A calibration often maps most chunks to exactly 0; when one bar is more than three times the
    next tallest, the y axis is cut above the others and that bar is labelled with its count, so
    the rest of the distribution stays readable.
    """
    figure = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=("raw score", "calibrated", "beta-transformed"),
        horizontal_spacing=0.07,
    )
    figure.update_annotations(font={"size": FONT + 1})  # the subplot titles
    for column, (data, color) in enumerate(
        (
            (values.raw, PALETTE.muted),
            (values.calibrated, PALETTE.stage_calibrated),
            (values.transformed, PALETTE.stage_transformed),
        ),
        1,
    ):
        _add_histogram(figure, column, np.asarray(data, dtype=np.float64), color, bins)
    layout = _layout(height, top=48, bottom=40)
    figure.update_layout(layout, bargap=0)
    return figure


def _add_histogram(figure: go.Figure, column: int, data: np.ndarray, color: str, bins: int) -> None:
    """One histogram in ``column``: raw scores over their own range, the others over [0, 1].

    A bar more than three times the next tallest gets its axis cut and its count written on it.
    """
    if column == 1:
        low, high = float(data.min(initial=0.0)), float(data.max(initial=0.0))
        if high <= low:
            low, high = low - 0.5, high + 0.5
    else:
        low, high = 0.0, 1.0
    counts, edges = np.histogram(data, bins=bins, range=(low, high))
    centres = (edges[:-1] + edges[1:]) / 2
    figure.add_trace(
        go.Bar(
            x=centres,
            y=counts,
            width=(high - low) / bins,
            marker={"color": color, "line": {"color": "white", "width": 1}},
            customdata=np.column_stack((edges[:-1], edges[1:])),
            hovertemplate="%{customdata[0]:.3g} to %{customdata[1]:.3g}: %{y} chunks<extra></extra>",
            showlegend=False,
        ),
        row=1,
        col=column,
    )
    ordered = np.sort(counts)
    y_axis = _axis("chunks" if column == 1 else "", rangemode="tozero")
    if len(ordered) > 1 and ordered[-1] > 3 * max(ordered[-2], 1):
        top = max(ordered[-2], 1) * 1.6
        tallest = int(np.argmax(counts))
        y_axis["range"] = [0, top]
        figure.add_annotation(
            x=centres[tallest],
            y=top,
            yanchor="top",
            xanchor="left" if tallest < bins / 2 else "right",
            text=f"<b>{counts[tallest]}</b> chunks ↑",
            showarrow=False,
            font={"size": FONT, "color": PALETTE.text},
            bgcolor="rgba(255,255,255,0.85)",
            row=1,
            col=column,
        )
    figure.update_xaxes(_axis("", showgrid=False, range=[low, high]), row=1, col=column)
    figure.update_yaxes(y_axis, row=1, col=column)


def decay_chart(values: ChunkValues, params: RSEParams, in_segment: np.ndarray, *, height: int = 400) -> go.Figure:
    """``exp(-rank / decay_rate)`` over the ranks, each chunk at (rank, transformed × decay), and the penalty.

    The curve is the most a chunk of that rank can be worth before the penalty (a transformed
    score of 1); chunks below the dashed penalty line end up negative.
    """
    n = len(values)
    ranks = np.arange(n)
    curve = go.Scatter(
        x=ranks,
        y=np.exp(-ranks / params.decay_rate),
        mode="lines",
        name=f"exp(−rank / {params.decay_rate:g})",
        line={"color": PALETTE.stage_decayed, "width": 3},
        hovertemplate="rank %{x}: decay factor %{y:.3f}<extra></extra>",
    )
    penalty_line, penalty_label = _penalty_line(params.irrelevant_chunk_penalty)
    layout = _layout(height, top=70, bottom=60)
    layout.update(
        xaxis=_axis("rank (0 = best-scored chunk)", range=[-0.5, max(n - 0.5, 1)], zeroline=False),
        yaxis=_axis("factor / value before the penalty", range=[-0.04, 1.06], zeroline=False),
        shapes=[penalty_line],
        annotations=[penalty_label],
    )
    traces = [curve, *_decayed_chunks(values, np.asarray(in_segment, dtype=bool))]
    return go.Figure(data=traces, layout=layout)


def _decayed_chunks(values: ChunkValues, in_segment: np.ndarray) -> list[go.Scatter]:
    """Each chunk at (rank, transformed × decay), segment chunks apart from the others."""
    decayed = values.transformed * values.decay
    index = np.arange(len(values))
    traces = []
    for name, mask, color in (
        ("other chunk", ~in_segment, PALETTE.negative),
        ("chunk in a segment", in_segment, PALETTE.segment),
    ):
        if mask.any():
            traces.append(
                go.Scatter(
                    x=values.rank[mask],
                    y=decayed[mask],
                    mode="markers",
                    name=f"{name}: transformed × decay",
                    marker={"color": color, "size": 8, "line": {"color": "white", "width": 0.5}},
                    customdata=np.column_stack((index[mask], values.transformed[mask], values.decay[mask])),
                    hovertemplate=(
                        "chunk %{customdata[0]}, rank %{x}<br>"
                        "%{customdata[1]:.3f} × %{customdata[2]:.3f} = %{y:.3f}<extra></extra>"
                    ),
                )
            )
    return traces


def _penalty_line(penalty: float) -> tuple[dict, dict]:
    """A dashed line across the plot at the penalty, labelled at its right end."""
    line = {
        "type": "line",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "yref": "y",
        "y0": penalty,
        "y1": penalty,
        "line": {"color": PALETTE.zero, "width": 2, "dash": "dash"},
    }
    label = {
        "xref": "paper",
        "x": 1,
        "xanchor": "right",
        "y": penalty,
        "yanchor": "bottom",
        "text": f"penalty {penalty:g}",
        "showarrow": False,
        "font": {"size": FONT, "color": PALETTE.zero},
        "bgcolor": "rgba(255,255,255,0.8)",
    }
    return line, label


class Stage(LabelledChoice):
    """The stages of the value formula, in order."""

    CALIBRATE = "calibrate", "① calibrate"
    TRANSFORM = "transform", "② beta transform"
    DECAY = "decay", "③ × decay"
    PENALTY = "penalty", "④ − penalty"
    LENGTH = "length", "⑤ × length factor"


def stage_arrays(values: ChunkValues, params: RSEParams, stage: Stage) -> tuple[np.ndarray, np.ndarray, str, str]:
    """(before, after, before label, after label) of one stage, as :func:`rse_core.values.chunk_values` computes it."""
    decayed = values.transformed * values.decay
    penalised = decayed - params.irrelevant_chunk_penalty
    return {
        Stage.CALIBRATE: (values.raw, values.calibrated, "raw score", "calibrated"),
        Stage.TRANSFORM: (values.calibrated, values.transformed, "calibrated", "beta-transformed"),
        Stage.DECAY: (values.transformed, decayed, "beta-transformed", f"× exp(−rank/{params.decay_rate:g})"),
        Stage.PENALTY: (decayed, penalised, "× decay", f"− penalty {params.irrelevant_chunk_penalty:g}"),
        Stage.LENGTH: (
            penalised,
            penalised * values.length_factor,
            "− penalty",
            "× length factor" if params.chunk_length_adjustment else "× 1 (length adjustment off)",
        ),
    }[stage]


def stage_chart(
    values: ChunkValues,
    params: RSEParams,
    stage: Stage,
    segments: Sequence[tuple[int, int]] = (),
    *,
    height: int = 420,
) -> go.Figure:
    """Each chunk's number before (hollow grey) and after (filled) one stage, by chunk index.

    ``segments`` are (start, end) chunk ranges (end exclusive) drawn as shaded bands.
    """
    before, after, before_label, after_label = stage_arrays(values, params, stage)
    n = len(values)
    x = np.arange(n)
    size = 7 if n <= 300 else 4
    traces = [
        go.Scatter(
            x=x,
            y=before,
            mode="markers",
            name=f"before: {before_label}",
            marker={"symbol": "circle-open", "size": size + 1, "color": PALETTE.muted, "line": {"width": 1.5}},
            hovertemplate=f"chunk %{{x}}: {before_label} %{{y:.3f}}<extra></extra>",
        ),
        go.Scatter(
            x=x,
            y=after,
            mode="markers",
            name=f"after: {after_label}",
            marker={"size": size, "color": _STAGE_COLOURS[stage]},
            hovertemplate=f"chunk %{{x}}: {after_label} %{{y:.3f}}<extra></extra>",
        ),
    ]
    shapes = [
        band_shape(start, end, fill=PALETTE.segment_band, line={"width": 1, "color": PALETTE.segment})
        for start, end in segments
    ]
    layout = _layout(height, top=70, bottom=60)
    layout.update(
        xaxis=_axis("chunk, in document order", range=[-0.5, max(n - 0.5, 1)], zeroline=False, showgrid=False),
        yaxis=_axis("score / value", zeroline=True, zerolinewidth=2),
        shapes=shapes,
    )
    if segments:
        traces.append(_segment_key())
    return go.Figure(data=traces, layout=layout)


_STAGE_COLOURS = {
    Stage.CALIBRATE: PALETTE.stage_calibrated,
    Stage.TRANSFORM: PALETTE.stage_transformed,
    Stage.DECAY: PALETTE.stage_decayed,
    Stage.PENALTY: PALETTE.stage_value,
    Stage.LENGTH: PALETTE.stage_value,
}


def _segment_key() -> go.Scatter:
    """A legend entry for the segment bands (shapes have none)."""
    return _named_marker("RSE segment", "square", 14, PALETTE.segment_band, {"color": PALETTE.segment, "width": 1})


def _named_marker(
    name: str, symbol: str, size: int, color: str, line: dict, *, at: tuple[int, int] | None = None
) -> go.Scatter:
    """One marker that is there to be named in the legend, at ``at`` (``None``: in the legend only)."""
    x, y = at if at is not None else (None, None)
    return go.Scatter(
        x=[x],
        y=[y],
        mode="markers",
        name=name,
        marker={"symbol": symbol, "size": size, "color": color, "line": line},
        hoverinfo="skip",
        showlegend=True,
    )


# --------------------------------------------------------------------------- sweep heat map


METRIC_LABELS = {
    "segment_count": "segments",
    "chunks": "chunks kept",
    "characters": "characters sent",
    "recall": "recall of the gold span",
    "precision": "precision",
}
_TEXT_FORMAT = {
    "segment_count": "%{z:d}",
    "chunks": "%{z:d}",
    "characters": "%{z:.2s}",
    "recall": "%{z:.0f}",
    "precision": "%{z:.0f}",
}


def axis_text(value: float) -> str:
    return f"{value:g}"


def sweep_heatmap(
    result: SweepResult,
    metric: str,
    *,
    current: tuple[float, float] | None = None,
    height: int = 640,
) -> go.Figure:
    """One metric over the sweep's grid; the current setting outlined; every cell clickable.

    Cells sit at integer positions (axis values as tick labels), so uneven axes such as max
    chunks per segment still get equal cells. Trace 1 is an invisible scatter of cell centres
    whose ``customdata`` is (x value, y value): clicking a cell selects its point.
    """
    ny, nx = len(result.y_values), len(result.x_values)
    traces = [_sweep_heatmap_cells(result, metric), _sweep_click_targets(result)]
    if current is not None and current[0] in result.x_values and current[1] in result.y_values:
        traces.append(_current_cell(result.x_values.index(current[0]), result.y_values.index(current[1])))
    x_values = np.array(result.x_values, dtype=np.float64)
    y_values = np.array(result.y_values, dtype=np.float64)
    x_name, y_name = result.x_param.label, result.y_param.label
    layout = _layout(height, top=48, bottom=70, left=80)
    layout.update(
        xaxis=_axis(x_name, range=[-0.5, nx - 0.5], showgrid=False, zeroline=False, **_ticks(x_values)),
        yaxis=_axis(y_name, range=[-0.5, ny - 0.5], showgrid=False, zeroline=False, **_ticks(y_values)),
        hoverdistance=60,
        clickmode="event+select",
        dragmode=False,
        legend={**layout["legend"], "x": 0, "xanchor": "left"},  # the mode bar sits top right
    )
    return go.Figure(data=traces, layout=layout)


def _sweep_heatmap_cells(result: SweepResult, metric: str) -> go.Heatmap:
    """The metric's grid as coloured cells, with the number written in each while they are wide enough."""
    grid = result.grid(metric)
    nx = grid.shape[1]
    percent = metric in ("recall", "precision")
    if percent:
        grid = grid * 100  # shown as whole percentages: "45" fits a cell, "45%" barely does
    label = METRIC_LABELS[metric]
    return go.Heatmap(
        z=grid,
        x=np.arange(nx),
        y=np.arange(grid.shape[0]),
        colorscale="Viridis" if percent else "Blues",
        zmin=0 if percent else None,
        zmax=100 if percent else None,
        colorbar={
            "title": {"text": label + (" (%)" if percent else ""), "side": "right", "font": {"size": FONT}},
            "tickformat": "d" if percent else "~s",
            "tickfont": {"size": FONT},
            "thickness": 16,
        },
        texttemplate=_TEXT_FORMAT[metric] if nx <= 26 else "",
        textfont={"size": 12},
        hoverinfo="skip",
        xgap=1,
        ygap=1,
    )


def _sweep_click_targets(result: SweepResult) -> go.Scatter:
    """Invisible markers on the cell centres: a heat map cell cannot be selected by a click, a
    point can, and its ``customdata`` (x value, y value, then the cell's numbers) feeds the hover."""
    nx, ny = len(result.x_values), len(result.y_values)
    xs, ys = np.meshgrid(np.arange(nx), np.arange(ny))
    x_values = np.array(result.x_values, dtype=np.float64)
    y_values = np.array(result.y_values, dtype=np.float64)
    cells = [cell for row in result.cells for cell in row]
    customdata = np.array(
        [
            [
                x_values[i % nx],
                y_values[i // nx],
                cell.segment_count,
                cell.chunks,
                cell.characters,
                np.nan if cell.recall is None else cell.recall,
            ]
            for i, cell in enumerate(cells)
        ],
        dtype=np.float64,
    )
    x_name, y_name = result.x_param.label, result.y_param.label
    recall_line = "<br>recall %{customdata[5]:.1%}" if result.cells and result.cells[0][0].recall is not None else ""
    return go.Scatter(
        x=xs.ravel(),
        y=ys.ravel(),
        mode="markers",
        name="cells",
        showlegend=False,
        marker={"size": 22, "symbol": "square", "color": "rgba(0,0,0,0)", "opacity": 0},
        customdata=customdata,
        hovertemplate=(
            f"{x_name} <b>%{{customdata[0]:g}}</b>, {y_name} <b>%{{customdata[1]:g}}</b><br>"
            "%{customdata[2]:d} segments, %{customdata[3]:d} chunks, %{customdata[4]:,d} characters"
            f"{recall_line}<br><i>click to apply</i><extra></extra>"
        ),
        selected={"marker": {"opacity": 0}},
        unselected={"marker": {"opacity": 0}},
    )


def _current_cell(x: int, y: int) -> go.Scatter:
    """A red square around the cell of the current setting."""
    return _named_marker("current setting", "square-open", 30, REFUSED, {"width": 3.5, "color": REFUSED}, at=(x, y))


def _ticks(values: np.ndarray) -> dict:
    """At most about 16 tick labels, the axis values themselves (cells sit at 0, 1, 2 ...)."""
    count = len(values)
    step = max(1, math.ceil(count / 16))
    positions = list(range(0, count, step))
    return {
        "tickmode": "array",
        "tickvals": positions,
        "ticktext": [axis_text(values[i]) for i in positions],
    }
