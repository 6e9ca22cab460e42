"""The knowledge-base page's strip: one selected document's chunk values, its segments shaded.

One figure per selected document, all drawn alike, so the eye compares documents by height and
shaded width. Bars are the values RSE's segment search added up (teal above zero, slate below),
segments are the bands of :func:`rse_core.figures.style.band_shape` labelled with their number in
the result, and the first stage's top-k chunks of this document carry an orange triangle. The
document name reaches the title through ``html.escape``: Plotly renders a subset of HTML.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rse_core.figures.chunk_axis import shorten
from rse_core.figures.style import PALETTE, band_label, band_shape, base_layout, chunk_x_axis
from rse_core.kb.query import KBHit
from rse_core.segments import ExtractedSegment

STRIP_HEIGHT = 230
FEW_CHUNKS = 12
_QUERY_MARKERS = ("circle", "diamond")


def document_strip(
    name: str,
    values: Sequence[np.ndarray],
    segments: Sequence[ExtractedSegment],
    top_k_chunks: Sequence[int] = (),
    *,
    height: int = STRIP_HEIGHT,
) -> go.Figure:
    """One document's strip.

    Args:
        name: the document's name (escaped here).
        values: the document's chunk values, one array per query (the second query, if any, is
            drawn as dots over the first query's bars).
        segments: this document's segments (each labelled as it is everywhere, ``S1``, ``S2``, ...).
        top_k_chunks: chunk indices of this document in the first stage's top-k list.
    """
    first = np.asarray(values[0], dtype=float) if values else np.zeros(0)
    chunks = np.arange(len(first))
    traces: list[dict] = [
        {
            "type": "bar",
            "name": "Chunk value" + (" (query 1)" if len(values) > 1 else ""),
            "x": chunks,
            "y": first,
            "marker": {"color": np.where(first >= 0, PALETTE.positive, PALETTE.negative), "line": {"width": 0}},
            "hovertemplate": "chunk %{x}<br>value %{y:.3f}<extra></extra>",
            "showlegend": False,
        }
    ]
    for number, more in enumerate(values[1:], start=2):
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"Query {number}",
                "x": chunks,
                "y": np.asarray(more, dtype=float),
                "marker": {"symbol": _QUERY_MARKERS[(number - 1) % 2], "size": 5, "color": PALETTE.stage_value},
                "hovertemplate": f"chunk %{{x}}<br>query {number}: %{{y:.3f}}<extra></extra>",
            }
        )
    if len(top_k_chunks):
        top = float(first.max()) if len(first) else 1.0
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "Top-k chunk",
                "x": list(top_k_chunks),
                "y": [max(top, 0.0) * 1.08 + 0.02] * len(top_k_chunks),
                "marker": {"symbol": "triangle-down", "size": 9, "color": PALETTE.top_k},
                "hovertemplate": "chunk %{x}: in the top-k list<extra></extra>",
            }
        )
    shapes = [
        band_shape(segment.first_chunk, segment.last_chunk + 1, fill=PALETTE.segment_band, line={"width": 0})
        for segment in segments
    ]
    shapes.append(
        {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": 0, "y1": 0, "line": {"color": PALETTE.zero}}
    )
    labels = [
        band_label(
            (segment.first_chunk + segment.last_chunk) / 2, segment.label, yshift=2, color=PALETTE.segment, size=13
        )
        for segment in segments
    ]
    layout = base_layout(height, top=48, bottom=44)
    layout["title"] = {
        "text": f"<b>{html.escape(shorten(name, 80))}</b>",
        "x": 0,
        "xanchor": "left",
        "y": 1,
        "yanchor": "top",
        "yref": "container",
        "pad": {"t": 6},
        "font": {"size": 15},
    }
    layout["xaxis"] = chunk_x_axis(len(first), "Chunk in the document")
    if len(first) <= FEW_CHUNKS:  # otherwise Plotly puts ticks between chunks and rounds them to repeats
        layout["xaxis"].update(tick0=0, dtick=1)
    layout["yaxis"] = {"title": {"text": "Value"}, "zeroline": False, "gridcolor": PALETTE.grid}
    layout["shapes"] = shapes
    layout["annotations"] = labels
    layout["showlegend"] = len(traces) > 1
    layout["legend"] = {**layout["legend"], "x": 1, "xanchor": "right", "y": 1, "yref": "container", "yanchor": "top"}
    layout["bargap"] = 0.1
    return go.Figure(data=traces, layout=layout, _validate=False)


def top_k_chunks_of(doc_id: str, top_k: Sequence[KBHit]) -> list[int]:
    """The chunk indices of ``doc_id`` in the top-k list."""
    return sorted({hit.chunk_index for hit in top_k if hit.doc_id == doc_id})
