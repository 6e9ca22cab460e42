"""The comparison chart: one query's values above a strip of what each method keeps."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rse_core.figures.chunk_axis import corpus_labels, document_boundaries, segment_bands
from rse_core.figures.style import PALETTE, base_layout, chunk_x_axis
from rse_core.figures.values import RANGE_SLIDER_ABOVE
from rse_core.pipeline import ExtractionResult

CompareRows = tuple[str, str, str]


COMPARE_ROWS: CompareRows = ("RSE", "Top-k", "Top-k, same characters")


def chunk_sets(result: ExtractionResult, top_k_indices: Sequence[int] | None = None) -> dict[str, list[int]]:
    """Which chunks RSE and a top-k selection keep: ``both``, ``rse_only``, ``top_k_only``.

    Lists are corpus indices in document order. ``top_k_indices`` defaults to ``result.top_k``.
    """
    rse = set(result.rse_chunks)
    top = set(result.top_k if top_k_indices is None else top_k_indices)
    return {
        "both": sorted(rse & top),
        "rse_only": sorted(rse - top),
        "top_k_only": sorted(top - rse),
    }


def compare_chart(result: ExtractionResult, query: int = 0, *, height: int = 560) -> go.Figure:
    """Values of one query above a strip of what each method keeps, chunk by chunk.

    Rows of the strip, top to bottom: RSE (segment chunks blue, inner gaps amber), top-k at the
    chosen k and at RSE's character budget (orange), and the fixed window at k and at RSE's
    budget (hits green, the neighbours it adds light green). Segment bands span the whole
    figure, so a glance down a band shows what top-k keeps of each segment and what it drops.
    """
    palette = PALETTE
    values = result.values[query].value
    n = len(values)
    labels = corpus_labels(result.corpus)
    rse = np.asarray(result.rse_chunks, dtype=np.int64)
    gap_set = {index for segment in result.segments for index in segment.inner_gaps + segment.edge_padding}
    is_gap = np.array([index in gap_set for index in rse.tolist()], dtype=bool)
    top_k = np.asarray(result.top_k, dtype=np.int64)
    budget = np.asarray(result.top_k_equal_budget, dtype=np.int64)
    rse_set = set(rse.tolist())
    width = 0.82 if n <= RANGE_SLIDER_ABOVE else 1.0
    w = result.params.window
    rows = {
        "RSE": 4,
        f"Top-k (k={result.params.top_k})": 3,
        f"Top-k, RSE's characters<br>({len(budget)} chunk{'s' * (len(budget) != 1)})": 2,
        f"Window ±{w}": 1,
        "Window, RSE's characters": 0,
    }

    def window_cells(segments) -> tuple[np.ndarray, np.ndarray]:
        hits = sorted({hit for segment in segments for hit in segment.hits})
        added = sorted({index for segment in segments for index in segment.padding})
        return np.asarray(hits, dtype=np.int64), np.asarray(added, dtype=np.int64)

    rank_of = {index: rank for rank, index in enumerate(result.ranking)}  # 0 = best, as in the formula

    def strip(name: str, indices: np.ndarray, row: int, fill: str, line: str, what: str, legend: bool) -> dict:
        """One row of the strip: a cell per kept chunk, with a hover that says who else keeps it."""
        if what.startswith("RSE"):
            notes = labels.headers[indices] if len(indices) else []
        else:
            notes = np.array(
                [
                    f"{labels.headers[i]}<br>rank {rank_of.get(i, '?')} (best = rank 0), "
                    + ("also kept by RSE" if i in rse_set else "not kept by RSE")
                    for i in indices.tolist()
                ],
                dtype=object,
            )
        return {
            "type": "bar",
            "name": name,
            "x": indices,
            "y": np.full(len(indices), 0.76),
            "base": np.full(len(indices), row - 0.38),
            "width": width,
            "xaxis": "x",
            "yaxis": "y2",
            "marker": {"color": fill, "line": {"color": line, "width": 1.5 if line != fill else 0}},
            "customdata": np.column_stack((indices, values[indices])) if len(indices) else [],
            "hovertext": notes,
            "hovertemplate": f"<b>{what}</b><br>%{{hovertext}}<br>value %{{customdata[1]:.3f}}<extra></extra>",
            "showlegend": legend,
            "legendgroup": name,
        }

    top_label, budget_label, window_label, window_budget_label = list(rows)[1:]
    window_hits, window_added = window_cells(result.window)
    budget_hits, budget_added = window_cells(result.window_equal_budget)
    traces: list[dict] = [
        {
            "type": "bar",
            "name": "Chunk value",
            "x": np.arange(n),
            "y": values,
            "width": width,
            "marker": {"color": np.where(values >= 0, palette.positive, palette.negative)},
            "customdata": np.arange(n),
            "hovertext": labels.headers,
            "hovertemplate": "%{hovertext}<br>value <b>%{y:.3f}</b><extra></extra>",
            "showlegend": False,
        },
        strip("RSE segment chunk", rse[~is_gap], rows["RSE"], palette.segment, palette.segment, "RSE", True),
        strip("RSE inner gap", rse[is_gap], rows["RSE"], palette.gap_fill, palette.gap, "RSE, inner gap", True),
        strip("Top-k chunk", top_k, rows[top_label], palette.top_k, palette.top_k, top_label, True),
        strip("Top-k chunk", budget, rows[budget_label], palette.top_k, palette.top_k, budget_label, False),
        strip("Window hit", window_hits, rows[window_label], palette.window, palette.window, "Window hit", True),
        strip(
            "Window padding",
            window_added,
            rows[window_label],
            palette.window_padding,
            palette.window,
            "Window padding",
            True,
        ),
        strip(
            "Window hit", budget_hits, rows[window_budget_label], palette.window, palette.window, "Window hit", False
        ),
        strip(
            "Window padding",
            budget_added,
            rows[window_budget_label],
            palette.window_padding,
            palette.window,
            "Window padding",
            False,
        ),
    ]

    shapes, annotations = segment_bands(result, query, n)
    boundary_shapes, _ = document_boundaries(labels, n)
    shapes += boundary_shapes
    low = min(float(values.min(initial=0.0)), 0.0)
    high = max(float(values.max(initial=0.0)), 0.0)
    span = (high - low) or 1.0
    layout = base_layout(height, top=48, bottom=10)
    layout.update(
        barmode="overlay",
        uirevision=f"compare/{result.corpus.key}/{query}",
        xaxis={**chunk_x_axis(n, "Chunk, in document order"), "anchor": "y2"},
        yaxis={
            "domain": [0.5, 1.0],
            "title": {"text": "Chunk value"},
            "range": [low - 0.05 * span, high + 0.08 * span],
            "gridcolor": palette.grid,
            "zeroline": True,
            "zerolinecolor": palette.zero,
            "zerolinewidth": 1.5,
        },
        yaxis2={
            "domain": [0.0, 0.44],
            "anchor": "x",
            "range": [-0.5, 4.5],
            "tickvals": list(rows.values()),
            "ticktext": list(rows),
            "automargin": True,
            "showgrid": False,
            "zeroline": False,
            "fixedrange": True,
        },
        shapes=shapes,
        annotations=annotations,
    )
    layout["margin"]["l"] = 150
    return go.Figure(data=traces, layout=layout, _validate=False)
