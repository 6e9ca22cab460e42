"""The comparison chart: one query's values above a strip of what each method keeps."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rse_core.figures.chunk_axis import CorpusLabels, corpus_labels, document_boundaries, segment_bands
from rse_core.figures.style import PALETTE, base_layout, chunk_x_axis
from rse_core.figures.values import RANGE_SLIDER_ABOVE
from rse_core.pipeline import ExtractionResult
from rse_core.topk import WindowSegment

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


def compare_chart(result: ExtractionResult, query: int = 0, *, height: int = 560, compact: bool = False) -> go.Figure:
    """Values of one query above a strip of what each method keeps, chunk by chunk.

    Rows of the strip, top to bottom: RSE (segment chunks blue, inner gaps amber), top-k at the
    chosen k and at RSE's character budget (orange), and the fixed window at k and at RSE's
    budget (hits green, the neighbours it adds light green). Segment bands span the whole
    figure, so a glance down a band shows what top-k keeps of each segment and what it drops.
    ``compact`` (a short chart, e.g. on a projector): the strip takes more of the height and
    its row labels are one line each in a smaller font, so they do not overlap.
    """
    values = result.values[query].value
    n = len(values)
    labels = corpus_labels(result.corpus)
    strip = _Strip(result, values, labels)
    rows = strip.rows(one_line=compact)
    traces = [_value_bars(values, labels, strip.width), *strip.traces(rows)]
    shapes, annotations = segment_bands(result, query, n)
    boundary_shapes, _ = document_boundaries(labels, n)
    shapes += boundary_shapes
    layout = base_layout(height, top=48, bottom=10)
    layout.update(
        barmode="overlay",
        uirevision=f"compare/{result.corpus.key}/{query}",
        xaxis={**chunk_x_axis(n, "Chunk, in document order"), "anchor": "y2"},
        yaxis=_value_axis(values, [0.62, 1.0] if compact else [0.5, 1.0]),
        yaxis2=_strip_axis(rows, [0.0, 0.56] if compact else [0.0, 0.44], 11 if compact else None),
        shapes=shapes,
        annotations=annotations,
    )
    layout["margin"]["l"] = 150
    return go.Figure(data=traces, layout=layout, _validate=False)


def _value_bars(values: np.ndarray, labels: CorpusLabels, width: float) -> dict:
    """The upper panel: one bar per chunk, blue when worth keeping, grey when not."""
    n = len(values)
    return {
        "type": "bar",
        "name": "Chunk value",
        "x": np.arange(n),
        "y": values,
        "width": width,
        "marker": {"color": np.where(values >= 0, PALETTE.positive, PALETTE.negative)},
        "customdata": np.arange(n),
        "hovertext": labels.headers,
        "hovertemplate": "%{hovertext}<br>value <b>%{y:.3f}</b><extra></extra>",
        "showlegend": False,
    }


def _window_cells(segments: Sequence[WindowSegment]) -> tuple[np.ndarray, np.ndarray]:
    """The fixed window's hits and the neighbours it adds around them, each once."""
    hits = sorted({hit for segment in segments for hit in segment.hits})
    added = sorted({index for segment in segments for index in segment.padding})
    return np.asarray(hits, dtype=np.int64), np.asarray(added, dtype=np.int64)


class _Strip:
    """The lower panel: a row per method, a cell per chunk it keeps.

    Holds what every row's hover needs (each chunk's rank, whether RSE keeps it), computed once.
    """

    def __init__(self, result: ExtractionResult, values: np.ndarray, labels: CorpusLabels) -> None:
        self.result = result
        self.values = values
        self.labels = labels
        self.width = 0.82 if len(values) <= RANGE_SLIDER_ABOVE else 1.0
        self.rse = np.asarray(result.rse_chunks, dtype=np.int64)
        self.rse_set = set(self.rse.tolist())
        self.rank_of = {index: rank for rank, index in enumerate(result.ranking)}  # 0 = best, as in the formula

    def rows(self, one_line: bool = False) -> dict[str, int]:
        """Row label -> y position, RSE at the top."""
        budget = len(self.result.top_k_equal_budget)
        return {
            "RSE": 4,
            f"Top-k (k={self.result.params.top_k})": 3,
            f"Top-k, RSE's characters{' ' if one_line else '<br>'}({budget} chunk{'s' * (budget != 1)})": 2,
            f"Window ±{self.result.params.window}": 1,
            "Window, RSE's characters": 0,
        }

    def traces(self, rows: dict[str, int]) -> list[dict]:
        """Every row's cells; a kind of cell shown twice (top-k, window) has one legend entry."""
        result, palette, rse = self.result, PALETTE, self.rse
        gap_set = {index for segment in result.segments for index in segment.inner_gaps + segment.edge_padding}
        is_gap = np.array([index in gap_set for index in rse.tolist()], dtype=bool)
        top_k = np.asarray(result.top_k, dtype=np.int64)
        budget = np.asarray(result.top_k_equal_budget, dtype=np.int64)
        top_label, budget_label, window_label, window_budget_label = list(rows)[1:]
        window_hits, window_added = _window_cells(result.window)
        budget_hits, budget_added = _window_cells(result.window_equal_budget)
        window, padding = palette.window, palette.window_padding
        return [
            self.cells("RSE segment chunk", rse[~is_gap], rows["RSE"], palette.segment, palette.segment, "RSE", True),
            self.cells(
                "RSE inner gap", rse[is_gap], rows["RSE"], palette.gap_fill, palette.gap, "RSE, inner gap", True
            ),
            self.cells("Top-k chunk", top_k, rows[top_label], palette.top_k, palette.top_k, top_label, True),
            self.cells("Top-k chunk", budget, rows[budget_label], palette.top_k, palette.top_k, budget_label, False),
            self.cells("Window hit", window_hits, rows[window_label], window, window, "Window hit", True),
            self.cells("Window padding", window_added, rows[window_label], padding, window, "Window padding", True),
            self.cells("Window hit", budget_hits, rows[window_budget_label], window, window, "Window hit", False),
            self.cells(
                "Window padding", budget_added, rows[window_budget_label], padding, window, "Window padding", False
            ),
        ]

    def cells(self, name: str, indices: np.ndarray, row: int, fill: str, line: str, what: str, legend: bool) -> dict:
        """One row's cells, with a hover that says who else keeps each chunk."""
        headers = self.labels.headers
        if what.startswith("RSE"):
            notes = headers[indices] if len(indices) else []
        else:
            notes = np.array(
                [
                    f"{headers[i]}<br>rank {self.rank_of.get(i, '?')} (best = rank 0), "
                    + ("also kept by RSE" if i in self.rse_set else "not kept by RSE")
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
            "width": self.width,
            "xaxis": "x",
            "yaxis": "y2",
            "marker": {"color": fill, "line": {"color": line, "width": 1.5 if line != fill else 0}},
            "customdata": np.column_stack((indices, self.values[indices])) if len(indices) else [],
            "hovertext": notes,
            "hovertemplate": f"<b>{what}</b><br>%{{hovertext}}<br>value %{{customdata[1]:.3f}}<extra></extra>",
            "showlegend": legend,
            "legendgroup": name,
        }


def _value_axis(values: np.ndarray, domain: list[float]) -> dict:
    """The upper panel's axis: zero always in view."""
    low = min(float(values.min(initial=0.0)), 0.0)
    high = max(float(values.max(initial=0.0)), 0.0)
    span = (high - low) or 1.0
    return {
        "domain": domain,
        "title": {"text": "Chunk value"},
        "range": [low - 0.05 * span, high + 0.08 * span],
        "gridcolor": PALETTE.grid,
        "zeroline": True,
        "zerolinecolor": PALETTE.zero,
        "zerolinewidth": 1.5,
    }


def _strip_axis(rows: dict[str, int], domain: list[float], font_size: int | None) -> dict:
    """The lower panel's axis: one labelled tick per method, not zoomable."""
    return {
        **({"tickfont": {"size": font_size}} if font_size else {}),
        "domain": domain,
        "anchor": "x",
        "range": [-0.5, 4.5],
        "tickvals": list(rows.values()),
        "ticktext": list(rows),
        "automargin": True,
        "showgrid": False,
        "zeroline": False,
        "fixedrange": True,
    }
