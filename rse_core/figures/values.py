"""Plotly figures of RSE results (no Streamlit here: usable from a notebook too).

The value chart (the comparison chart is in :mod:`rse_core.figures.compare`):

- :func:`value_chart`: one bar per chunk in document order (its value for one query), the picked
  segments as shaded bands labelled S1, S2 ... in pick order, inner gaps (negative chunks
  between two kept chunks of a segment) in amber, edge padding (negative chunks at a segment's
  end) hatched, the top-k chunks marked with an orange triangle, document
  boundaries as dashed lines. ``show_stages=True`` overlays each stage of the value formula.
It runs on every slider move, so they are built for speed: one bar trace per colour class
(never one shape per bar), per-chunk hover text cached per corpus, and figures created without
plotly's per-element validation (``_validate=False``); the tests validate the output once.
Every piece of document text that reaches a hover or a label is HTML-escaped, because Plotly
renders a subset of HTML in them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rse_core.figures.chunk_axis import CorpusLabels, corpus_labels, document_boundaries, gold_marks, segment_bands
from rse_core.figures.style import (
    EDGE_PADDING_NAME,
    INNER_GAP_NAME,
    PALETTE,
    band_shape,
    base_layout,
    chunk_x_axis,
    legend_swatch,
)
from rse_core.pipeline import ExtractionResult
from rse_core.values import ChunkValues

RANGE_SLIDER_ABOVE = 120  # chunks: more than this gets a range slider for zooming

# Columns of the bar traces' customdata (numbers only, so Plotly sends them as typed arrays).
_CD_INDEX, _CD_RAW, _CD_CALIBRATED, _CD_TRANSFORMED, _CD_RANK, _CD_DECAY, _CD_LENGTH = range(7)


# --- per-corpus labels (cached: they depend on the documents only, not on the parameters) ---


# --- the value chart ---


def value_chart(
    result: ExtractionResult,
    query: int = 0,
    *,
    show_stages: bool = False,
    selected_chunk: int | None = None,
    height: int | None = None,
    gold_spans: Sequence[tuple[int, int, str]] = (),
    optimal: Sequence[tuple[int, int]] = (),
    range_slider: bool | None = None,
) -> go.Figure:
    """Chunk values of one query in document order, with segments, gap chunks and top-k.

    Args:
        result: what :func:`rse_core.run_rse` returned.
        query: which query's values to draw (segments of every query are shown; those picked for
            another query are labelled with it).
        show_stages: overlay each stage of the value formula: calibrated score, beta-transformed,
            times the rank decay, and the final value (after the penalty).
        selected_chunk: corpus index of a chunk to outline (e.g. the one the user clicked).
        height: figure height in pixels (default: 520, or 600 with the stages' longer legend).
        gold_spans: ``(start, end, label)`` chunk ranges (end exclusive) of a golden set's answer,
            shaded purple under the bars with a solid strip along the bottom: which kept chunks
            are the answer and which are padding, which low chunks are real gaps in it.
        optimal: ``(start, end)`` chunk ranges of the exact search's answer, outlined dashed and
            labelled O1, O2 ... (best first) at the top inside the plot, to compare with the greedy bands.
        range_slider: a zoom strip under the x axis; ``None``: above :data:`RANGE_SLIDER_ABOVE`
            chunks. The strip draws every bar a second time, which costs a third to a half of the
            browser's drawing time, so a chart redrawn on every slider move can leave it out
            (dragging over the plot zooms too; a double click resets).

    Every bar's ``x`` is its corpus index and its ``customdata[0]`` too, so a click event tells
    which chunk was picked.
    """
    spec = value_chart_spec(
        result,
        query,
        show_stages=show_stages,
        selected_chunk=selected_chunk,
        height=height,
        gold_spans=gold_spans,
        optimal=optimal,
        range_slider=range_slider,
    )
    return go.Figure(data=spec["data"], layout=spec["layout"], _validate=False)


def value_chart_spec(
    result: ExtractionResult,
    query: int = 0,
    *,
    show_stages: bool = False,
    selected_chunk: int | None = None,
    height: int | None = None,
    gold_spans: Sequence[tuple[int, int, str]] = (),
    optimal: Sequence[tuple[int, int]] = (),
    range_slider: bool | None = None,
) -> dict[str, list | dict]:
    """:func:`value_chart`'s figure as plain data, ``{"data": traces, "layout": layout}``.

    For a page that only sends the figure to the browser on every slider move: plotly's figure
    object copies every trace when it is built and again when it is written out, about 2 ms at
    125 chunks. The JSON is the same figure (a test compares them)."""
    if not 0 <= query < len(result.values):
        raise ValueError(f"query must be between 0 and {len(result.values) - 1}; got {query}.")
    values = result.values[query]
    n = len(values.value)
    labels = corpus_labels(result.corpus)
    low, high = _value_range(values.value, show_stages)
    traces = _bar_traces(result, values, labels)
    traces.append(_top_k_trace(result, values.value, labels, high - low))
    traces.extend(_key_traces(labels))
    if show_stages:
        traces.extend(_stage_traces(values, result.params, n))

    shapes, annotations = segment_bands(result, query, n)
    boundary_shapes, title_annotations = document_boundaries(labels, n)
    shapes += boundary_shapes
    annotations += title_annotations
    if gold_spans:
        gold_shapes, gold_annotations = gold_marks(gold_spans)
        shapes = gold_shapes + shapes  # under the segment bands
        annotations += gold_annotations
        traces.append(legend_swatch("Gold span (golden set)", PALETTE.gold_band, PALETTE.gold))
    if optimal:
        optimal_shapes, optimal_annotations = _optimal_marks(optimal)
        shapes += optimal_shapes
        annotations += optimal_annotations
        traces.append(legend_swatch("Optimal segment (exact search)", "rgba(0,0,0,0)", PALETTE.optimal))
    if selected_chunk is not None and 0 <= selected_chunk < n:
        shapes.append(_selected_shape(selected_chunk))

    layout = base_layout(height or (600 if show_stages else 520), top=44, bottom=10)
    layout.update(
        barmode="overlay",
        uirevision=f"{result.corpus.key}/{query}",
        xaxis=_value_x_axis(n, len(labels.doc_starts), range_slider),
        yaxis=_value_y_axis(low, high, show_stages),
        shapes=shapes,
        annotations=annotations,
    )
    return {"data": traces, "layout": layout}


def _gap_masks(result: ExtractionResult, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inner-gap and edge-padding chunks, judged by the charted query's values: a segment picked
    for another query may hold chunks that are positive for this one, and those are plain bars."""
    negative = value < 0
    inner = np.zeros(len(value), dtype=bool)
    padding = np.zeros(len(value), dtype=bool)
    for segment in result.segments:
        inner[list(segment.inner_gaps)] = True
        padding[list(segment.edge_padding)] = True
    inner &= negative
    padding &= negative & ~inner
    return inner, padding


def _bar_traces(result: ExtractionResult, values: ChunkValues, labels: CorpusLabels) -> list[dict]:
    """One bar trace per colour class (never one shape per bar: the chart is redrawn on every
    slider move), each bar carrying its stages in ``customdata`` for the hover."""
    value = values.value
    n = len(value)
    negative = value < 0
    inner, padding = _gap_masks(result, value)
    customdata = np.column_stack(
        (
            np.arange(n),
            values.raw,
            values.calibrated,
            values.transformed,
            values.rank,
            values.decay,
            values.length_factor,
        )
    )
    bar_width = 0.82 if n <= RANGE_SLIDER_ABOVE else 1.0
    hovertemplate = _value_hovertemplate(result.params)
    palette = PALETTE
    traces: list[dict] = []
    for name, mask, fill, line, pattern in (
        ("Value ≥ 0", ~negative, palette.positive, None, None),
        ("Value < 0", negative & ~inner & ~padding, palette.negative, None, None),
        (INNER_GAP_NAME, inner, palette.gap_fill, palette.gap, None),
        (EDGE_PADDING_NAME, padding, palette.padding_fill, palette.gap, "/"),
    ):
        indices = np.flatnonzero(mask)
        marker: dict = {"color": fill, "line": {"color": line or fill, "width": 1.5 if line else 0}}
        if pattern:
            marker["pattern"] = {"shape": pattern, "fgcolor": palette.gap, "size": 6, "solidity": 0.3}
        traces.append(
            {
                "type": "bar",
                "name": name,
                "x": indices,
                "y": value[indices],
                "width": bar_width,
                "marker": marker,
                "customdata": customdata[indices],
                "hovertext": labels.headers[indices],
                "text": labels.snippets[indices],
                "textposition": "none",
                "hovertemplate": hovertemplate,
                "legendrank": 1,
                "showlegend": bool(len(indices)) or name not in (INNER_GAP_NAME, EDGE_PADDING_NAME),
            }
        )
    return traces


def _value_range(value: np.ndarray, show_stages: bool) -> tuple[float, float]:
    """Lowest and highest y to show: zero always, and 1 with the stages (scores run to 1)."""
    low = min(float(value.min(initial=0.0)), 0.0)
    high = max(float(value.max(initial=0.0)), 0.0)
    return low, (max(high, 1.0) if show_stages else high)


def _top_k_trace(result: ExtractionResult, value: np.ndarray, labels: CorpusLabels, span: float) -> dict:
    """A triangle over each top-k chunk (above the bar, or above zero for a negative one)."""
    span = span or 1.0
    top_k = np.asarray(result.top_k, dtype=np.int64)
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"Top-k (k={result.params.top_k})",
        "x": top_k,
        "y": np.maximum(value[top_k], 0.0) + 0.055 * span if len(top_k) else top_k,
        "marker": {
            "symbol": "triangle-down",
            "size": 13,
            "color": PALETTE.top_k,
            "line": {"color": "white", "width": 1},
        },
        "customdata": np.column_stack((top_k, np.arange(len(top_k)))),
        "hovertext": labels.headers[top_k] if len(top_k) else [],
        "hovertemplate": "%{hovertext}<br><b>Top-k</b>, rank %{customdata[1]} of the baseline "
        "(best = rank 0)<extra></extra>",
        "legendrank": 3,
    }


def _key_traces(labels: CorpusLabels) -> list[dict]:
    """Legend entries for what is drawn as shapes (bands, document boundaries), which have none."""
    traces = [legend_swatch("RSE segment", PALETTE.segment_band, PALETTE.segment)]
    if len(labels.doc_starts) > 1:
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "Document boundary",
                "x": [None],
                "y": [None],
                "line": {"color": PALETTE.boundary, "dash": "dash", "width": 1.5},
                "hoverinfo": "skip",
                "legendrank": 4,
            }
        )
    return traces


def _optimal_marks(optimal: Sequence[tuple[int, int]]) -> tuple[list[dict], list[dict]]:
    """Dashed outlines of the exact search's segments and their labels O1, O2 ... at the top."""
    shapes: list[dict] = []
    annotations: list[dict] = []
    for number, (start, end) in enumerate(optimal, 1):
        outline = {"color": PALETTE.optimal, "width": 2, "dash": "dash"}
        shapes.append(
            {**band_shape(start, end, fill="rgba(0,0,0,0)", line=outline), "layer": "above", "name": "optimal-band"}
        )
        annotations.append(
            {
                "x": (start + end - 1) / 2,
                "xref": "x",
                "y": 0.97,
                "yref": "paper",
                "yanchor": "top",
                "yshift": -14 * ((number - 1) % 2),  # neighbours alternate rows so labels do not collide
                "text": f"<b>O{number}</b>",
                "showarrow": False,
                "font": {"color": PALETTE.optimal, "size": 13},
                "bgcolor": "rgba(255,255,255,0.8)",
            }
        )
    return shapes, annotations


def _selected_shape(chunk: int) -> dict:
    """A dotted outline around the clicked chunk, over everything, the full plot height."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "paper",
        "x0": chunk - 0.6,
        "x1": chunk + 0.6,
        "y0": 0,
        "y1": 1,
        "line": {"color": PALETTE.selected, "width": 2, "dash": "dot"},
        "fillcolor": "rgba(0,0,0,0)",
        "layer": "above",
    }


def _value_x_axis(n: int, documents: int, range_slider: bool | None) -> dict:
    """The chunk axis, with a zoom strip under it when asked (``None``: for long corpora only)."""
    axis = chunk_x_axis(n, "Chunk, in document order" if documents == 1 else "Chunk, documents in order")
    if range_slider or (range_slider is None and n > RANGE_SLIDER_ABOVE):
        axis["rangeslider"] = {
            "visible": True,
            "thickness": 0.07,
            "bgcolor": "#f8fafc",
            "range": [-0.5, n - 0.5],
        }
    return axis


def _value_y_axis(low: float, high: float, show_stages: bool) -> dict:
    """The value axis: a little room under the lowest bar, more over the highest for the top-k marks."""
    span = (high - low) or 1.0
    return {
        "title": {"text": "Chunk value" if not show_stages else "Score / value"},
        "range": [low - 0.06 * span, high + 0.24 * span],
        "gridcolor": PALETTE.grid,
        "zeroline": True,
        "zerolinecolor": PALETTE.zero,
        "zerolinewidth": 1.5,
        "fixedrange": False,
    }


def _value_hovertemplate(params) -> str:
    """Hover text of a chunk bar: where it is, then each stage of its value, then its words."""
    decay = f"{params.decay_rate:g}"
    penalty = f"{params.irrelevant_chunk_penalty:g}"
    formula = (
        f"value = (%{{customdata[{_CD_TRANSFORMED}]:.3f}} × %{{customdata[{_CD_DECAY}]:.3f}} − {penalty})"
        f" × %{{customdata[{_CD_LENGTH}]:.2f}} = <b>%{{y:.3f}}</b>"
        if params.chunk_length_adjustment
        else f"value = %{{customdata[{_CD_TRANSFORMED}]:.3f}} × %{{customdata[{_CD_DECAY}]:.3f}} − {penalty}"
        " = <b>%{y:.3f}</b>"
    )
    return (
        "%{hovertext}<br>"
        f"raw score %{{customdata[{_CD_RAW}]:.3f}} → calibrated %{{customdata[{_CD_CALIBRATED}]:.3f}}"
        f" → beta-transformed %{{customdata[{_CD_TRANSFORMED}]:.3f}}<br>"
        f"rank %{{customdata[{_CD_RANK}]:d}} (best = rank 0) → decay factor exp(−rank/{decay})"
        f" = %{{customdata[{_CD_DECAY}]:.3f}}<br>"
        f"{formula}<br>"
        "%{text}<extra></extra>"
    )


def _stage_traces(values, params, n: int) -> list[dict]:
    """One line per stage of the value formula, and the final value as markers.

    Lines are drawn as steps centred on each chunk (``hvh``), so every chunk reads as one level.
    """
    palette = PALETTE
    x = np.arange(n)
    decayed = values.transformed * values.decay
    marker_size = 7 if n <= RANGE_SLIDER_ABOVE else 4
    adjusted = " × length factor" if params.chunk_length_adjustment else ""
    stages = [
        ("① calibrated", "① calibrated score", values.calibrated, palette.stage_calibrated, "dot"),
        (
            "② beta-transformed",
            f"② beta CDF (a={params.beta_a:g}, b={params.beta_b:g})",
            values.transformed,
            palette.stage_transformed,
            "solid",
        ),
        ("③ × rank decay", f"③ ② × exp(−rank/{params.decay_rate:g})", decayed, palette.stage_decayed, "dash"),
    ]
    traces: list[dict] = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": name,
            "x": x,
            "y": y,
            "line": {"color": color, "width": 2.2, "dash": dash, "shape": "hvh"},
            "hovertemplate": f"{hover}: %{{y:.3f}}<extra></extra>",
            "legendrank": 10 + number,
        }
        for number, (name, hover, y, color, dash) in enumerate(stages)
    ]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "④ − penalty = value",
            "x": x,
            "y": values.value,
            "marker": {"symbol": "diamond", "size": marker_size, "color": palette.stage_value},
            "hovertemplate": f"④ value = (③ − {params.irrelevant_chunk_penalty:g}){adjusted}: "
            "%{y:.3f}<extra></extra>",
            "legendrank": 20,
        }
    )
    return traces


# --- the comparison chart ---
