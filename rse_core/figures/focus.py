"""A chunk chart zoomed to the part of the document a story is about, with the whole document as
a thin overview strip that marks the zoomed window.

Why: on a projector a 200-chunk chart draws each bar a few pixels wide, and the nine chunks a
story is about (its segment, the top-k chunks beside it, the gold answer) become a sliver. The
zoomed chart shows those chunks at a readable size; the strip keeps the rest of the document in
view (where the window sits, top-k picks far from it), so the zoom hides nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from rse_core.figures.style import PALETTE, base_layout, chunk_x_axis
from rse_core.pipeline import ExtractionResult

MARGIN = 2  # chunks shown either side of what the story is about
MIN_CHUNKS = 15  # a narrower window would draw a handful of very wide bars
REACH = 6  # a top-k chunk this close to the story's chunks is shown in the window too
_VEIL = "rgba(100, 116, 139, 0.18)"  # the overview outside the window


@dataclass(frozen=True)
class ChunkWindow:
    """Chunks ``start:end`` (end exclusive) of a corpus of ``total`` chunks."""

    start: int
    end: int
    total: int

    @property
    def x_range(self) -> tuple[float, float]:
        """The chart's x range: each bar is centred on its chunk index."""
        return self.start - 0.5, self.end - 0.5

    @property
    def is_whole(self) -> bool:
        return self.start <= 0 and self.end >= self.total

    def __contains__(self, index: object) -> bool:
        return isinstance(index, (int, np.integer)) and self.start <= index < self.end


def focus_window(
    core: Iterable[tuple[int, int]],
    total: int,
    *,
    nearby: Iterable[int] = (),
    reach: int = REACH,
    margin: int = MARGIN,
    min_chunks: int = MIN_CHUNKS,
) -> ChunkWindow:
    """The smallest window that holds every ``core`` range (``start, end``, end exclusive) and each
    ``nearby`` chunk within ``reach`` chunks of them, widened by ``margin`` on each side and to at
    least ``min_chunks``, inside ``0:total``.

    With no core range the nearby chunks are the core (a story where RSE keeps nothing is about
    the chunks top-k picks); with neither, the whole corpus.
    """
    core = [(start, end) for start, end in core if end > start]
    nearby = sorted(set(nearby))
    if not core:
        core, nearby = [(index, index + 1) for index in nearby], []
    if not core or total <= 0:
        return ChunkWindow(0, max(total, 0), max(total, 0))
    first, last = min(start for start, _ in core), max(end for _, end in core)
    start, end = first, last
    for index in nearby:
        if first - reach <= index < last + reach:
            start, end = min(start, index), max(end, index + 1)
    start, end = start - margin, end + margin
    short = min_chunks - (end - start)
    if short > 0:
        start -= short // 2
        end += short - short // 2
    if start < 0:
        start, end = 0, end - start
    if end > total:
        start, end = max(0, start - (end - total)), total
    return ChunkWindow(start, end, total)


def story_window(
    result: ExtractionResult,
    query: int = 0,
    *,
    gold: tuple[int, int] | None = None,
    min_chunks: int = MIN_CHUNKS,
) -> ChunkWindow:
    """The window a story on ``result`` is about: the query's segments and the ``gold`` chunks
    (``start, end``), with the top-k chunks close to them."""
    core = [(segment.start, segment.end) for segment in result.segments if segment.query == query]
    if gold is not None:
        core.append(gold)
    return focus_window(core, len(result.corpus.chunks), nearby=result.top_k, min_chunks=min_chunks)


def zoom_to(figure: go.Figure, window: ChunkWindow, *, top_k: Sequence[int] = ()) -> go.Figure:
    """``figure`` (a chunk chart: the value or the comparison chart) showing only ``window``.

    The range slider goes (the overview strip replaces it), and the ``top_k`` chunks outside the
    window are counted at the edge they lie beyond, so the zoom never hides one silently.
    Changes ``figure`` in place and returns it.
    """
    axis = figure.layout.xaxis
    axis.range = list(window.x_range)
    axis.rangeslider = None
    left = sum(1 for index in top_k if index < window.start)
    right = sum(1 for index in top_k if index >= window.end)
    for count, side in ((left, "left"), (right, "right")):
        if count:
            figure.add_annotation(_beyond_note(count, side))
    return figure


def _beyond_note(count: int, side: str) -> dict:
    arrow = "\u2190 " if side == "left" else ""
    tail = " \u2192" if side == "right" else ""
    return {
        "text": f"{arrow}{count} more top-k chunk{'s' * (count != 1)}{tail}",
        "xref": "paper",
        "yref": "paper",
        "x": 0 if side == "left" else 1,
        "xanchor": side,
        "y": 0.99,
        "yanchor": "top",
        "showarrow": False,
        "font": {"color": PALETTE.top_k, "size": 13},
        "bgcolor": "rgba(255,255,255,0.85)",
    }


def overview_strip(result: ExtractionResult, window: ChunkWindow, query: int = 0, *, height: int = 120) -> go.Figure:
    """The whole corpus small: each chunk's value as a thin bar, segments shaded, top-k chunks
    ticked along the top, and ``window`` outlined with the rest veiled. Not zoomable: it is the map."""
    values = result.values[query].value
    n = len(values)
    low = min(float(values.min(initial=0.0)), 0.0)
    high = max(float(values.max(initial=0.0)), 0.0)
    top = high + 0.35 * ((high - low) or 1.0)
    top_k = np.asarray(result.top_k, dtype=np.int64)
    traces = [
        {
            "type": "bar",
            "x": np.arange(n),
            "y": values,
            "width": 1.0,
            "marker": {"color": np.where(values >= 0, PALETTE.positive, PALETTE.negative), "line": {"width": 0}},
            "hovertemplate": "chunk %{x}: value %{y:.2f}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": top_k,
            "y": np.full(len(top_k), top - 0.1 * (top - low)),
            "marker": {"symbol": "triangle-down", "size": 8, "color": PALETTE.top_k},
            "hovertemplate": "top-k chunk %{x}<extra></extra>",
        },
    ]
    shapes = [_band(s.start - 0.5, s.end - 0.5, PALETTE.segment_band, PALETTE.segment, 1) for s in result.segments]
    if not window.is_whole:
        shapes += [_band(-0.5, window.start - 0.5, _VEIL, None, 0), _band(window.end - 0.5, n - 0.5, _VEIL, None, 0)]
    shapes.append({**_band(*window.x_range, "rgba(0,0,0,0)", PALETTE.selected, 2), "layer": "above"})
    layout = base_layout(height, top=30, bottom=24)
    layout.update(
        showlegend=False,
        bargap=0,
        barmode="overlay",
        dragmode=False,
        xaxis={
            **chunk_x_axis(n, ""),
            "fixedrange": True,
            "title": None,
            "tickfont": {"size": 12},
        },
        yaxis={"range": [low, top], "visible": False, "fixedrange": True},
        shapes=shapes,
        annotations=[
            {
                "text": f"The whole document, {n:,} chunks; above: chunks {window.start}\u2013{window.end - 1}",
                "xref": "paper",
                "yref": "paper",
                "x": 0,
                "xanchor": "left",
                "y": 1,
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"color": PALETTE.muted, "size": 13},
            }
        ],
    )
    return go.Figure(data=traces, layout=layout, _validate=False)


def _band(x0: float, x1: float, fill: str, line: str | None, width: float) -> dict:
    return {
        "type": "rect",
        "xref": "x",
        "yref": "paper",
        "x0": x0,
        "x1": x1,
        "y0": 0,
        "y1": 1,
        "fillcolor": fill,
        "line": {"color": line or "rgba(0,0,0,0)", "width": width},
        "layer": "below",
    }
