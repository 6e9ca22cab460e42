"""Plotly figures of RSE results (no Streamlit here: usable from a notebook too).

Two figures:

- :func:`value_chart`: one bar per chunk in document order (its value for one query), the picked
  segments as shaded bands labelled S1, S2 ... in pick order, inner gaps (negative chunks
  between two kept chunks of a segment) in amber, edge padding (negative chunks at a segment's
  end) hatched, the top-k chunks marked with an orange triangle, document
  boundaries as dashed lines. ``show_stages=True`` overlays each stage of the value formula.
- :func:`compare_chart`: the same values above a strip that shows, chunk by chunk, what RSE and
  top-k (at k and at RSE's character budget) keep.

Both run on every slider move, so they are built for speed: one bar trace per colour class
(never one shape per bar), per-chunk hover text cached per corpus, and figures created without
plotly's per-element validation (``_validate=False``); the tests validate the output once.
Every piece of document text that reaches a hover or a label is HTML-escaped, because Plotly
renders a subset of HTML in them.
"""

from __future__ import annotations

import html
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from .pipeline import Corpus, ExtractionResult


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
RANGE_SLIDER_ABOVE = 120  # chunks: more than this gets a range slider for zooming
_PLOT_WIDTH_GUESS = 600  # px: the chart's plot area beside the text panel, for label spacing
SNIPPET_WORDS = 12
_LABEL_CACHE_ENTRIES = 8

# Columns of the bar traces' customdata (numbers only, so Plotly sends them as typed arrays).
_CD_INDEX, _CD_RAW, _CD_CALIBRATED, _CD_TRANSFORMED, _CD_RANK, _CD_DECAY, _CD_LENGTH = range(7)


# --- per-corpus labels (cached: they depend on the documents only, not on the parameters) ---


@dataclass(frozen=True)
class CorpusLabels:
    """Escaped, ready-to-render text for every chunk of a corpus.

    Attributes:
        headers: per chunk, ``"<b>Title</b> · chunk 3 · p. 4"`` (escaped).
        snippets: per chunk, its first words in italics (escaped).
        doc_starts: corpus index of each document's first chunk.
        titles: each document's title (raw, not escaped).
    """

    headers: np.ndarray
    snippets: np.ndarray
    doc_starts: tuple[int, ...]
    titles: tuple[str, ...]


_label_cache: dict[int, tuple[weakref.ref, CorpusLabels]] = {}
_label_lock = threading.Lock()


def corpus_labels(corpus: Corpus) -> CorpusLabels:
    """Hover headers and snippets of every chunk, computed once per corpus object."""
    key = id(corpus)
    with _label_lock:
        hit = _label_cache.get(key)
        if hit is not None and hit[0]() is corpus:
            return hit[1]
    labels = _build_labels(corpus)
    with _label_lock:
        _label_cache[key] = (weakref.ref(corpus), labels)
        for stale in [k for k, (ref, _) in _label_cache.items() if ref() is None]:
            del _label_cache[stale]
        while len(_label_cache) > _LABEL_CACHE_ENTRIES:
            del _label_cache[next(iter(_label_cache))]
    return labels


def _build_labels(corpus: Corpus) -> CorpusLabels:
    titles_by_id = {document.doc_id: html.escape(shorten(document.title, 60)) for document in corpus.documents}
    headers = np.empty(len(corpus.chunks), dtype=object)
    snippets = np.empty(len(corpus.chunks), dtype=object)
    for position, chunk in enumerate(corpus.chunks):
        headers[position] = f"<b>{titles_by_id[chunk.doc_id]}</b> · chunk {chunk.index} · {chunk.pages}"
        snippets[position] = f"<i>{html.escape(snippet(chunk.text))}</i>"
    doc_starts = (0, *corpus.document_splits)
    return CorpusLabels(headers, snippets, doc_starts, tuple(document.title for document in corpus.documents))


def snippet(text: str, words: int = SNIPPET_WORDS) -> str:
    """The first ``words`` words of ``text`` on one line, with an ellipsis if there is more."""
    head = text[: words * 16].split()
    shown = " ".join(head[:words])
    return shown + " …" if len(head) > words or len(text) > words * 16 else shown


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + "…"


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
    if not 0 <= query < len(result.values):
        raise ValueError(f"query must be between 0 and {len(result.values) - 1}; got {query}.")
    values = result.values[query]
    value = values.value
    n = len(value)
    labels = corpus_labels(result.corpus)
    palette = PALETTE
    params = result.params

    negative = value < 0
    inner = np.zeros(n, dtype=bool)
    padding = np.zeros(n, dtype=bool)
    for segment in result.segments:
        inner[list(segment.inner_gaps)] = True
        padding[list(segment.edge_padding)] = True
    inner &= negative  # drawn from the charted query's values (a segment of another query may differ)
    padding &= negative & ~inner
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
    hovertemplate = _value_hovertemplate(params)
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

    low = min(float(value.min(initial=0.0)), 0.0)
    high = max(float(value.max(initial=0.0)), 0.0)
    if show_stages:
        high = max(high, 1.0)
    span = (high - low) or 1.0

    top_k = np.asarray(result.top_k, dtype=np.int64)
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": f"Top-k (k={params.top_k})",
            "x": top_k,
            "y": np.maximum(value[top_k], 0.0) + 0.055 * span if len(top_k) else top_k,
            "marker": {
                "symbol": "triangle-down",
                "size": 13,
                "color": palette.top_k,
                "line": {"color": "white", "width": 1},
            },
            "customdata": np.column_stack((top_k, np.arange(len(top_k)))),
            "hovertext": labels.headers[top_k] if len(top_k) else [],
            "hovertemplate": "%{hovertext}<br><b>Top-k</b>, rank %{customdata[1]} of the baseline "
            "(best = rank 0)<extra></extra>",
            "legendrank": 3,
        }
    )
    traces.append(_legend_swatch("RSE segment", palette.segment_band, palette.segment))
    if len(labels.doc_starts) > 1:
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "Document boundary",
                "x": [None],
                "y": [None],
                "line": {"color": palette.boundary, "dash": "dash", "width": 1.5},
                "hoverinfo": "skip",
                "legendrank": 4,
            }
        )
    if show_stages:
        traces.extend(_stage_traces(values, params, n))

    shapes, annotations = _segment_marks(result, query, n)
    boundary_shapes, title_annotations = _document_marks(labels, n)
    shapes += boundary_shapes
    annotations += title_annotations
    if gold_spans:
        gold_shapes, gold_annotations = gold_marks(gold_spans)
        shapes = gold_shapes + shapes  # under the segment bands
        annotations += gold_annotations
        traces.append(_legend_swatch("Gold span (golden set)", palette.gold_band, palette.gold))
    if optimal:
        for number, (start, end) in enumerate(optimal, 1):
            shapes.append(
                {
                    **band_shape(
                        start, end, fill="rgba(0,0,0,0)", line={"color": palette.optimal, "width": 2, "dash": "dash"}
                    ),
                    "layer": "above",
                    "name": "optimal-band",
                }
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
                    "font": {"color": palette.optimal, "size": 13},
                    "bgcolor": "rgba(255,255,255,0.8)",
                }
            )
        traces.append(_legend_swatch("Optimal segment (exact search)", "rgba(0,0,0,0)", palette.optimal))
    if selected_chunk is not None and 0 <= selected_chunk < n:
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": selected_chunk - 0.6,
                "x1": selected_chunk + 0.6,
                "y0": 0,
                "y1": 1,
                "line": {"color": palette.selected, "width": 2, "dash": "dot"},
                "fillcolor": "rgba(0,0,0,0)",
                "layer": "above",
            }
        )

    layout = _base_layout(height or (600 if show_stages else 520), top=44, bottom=10)
    layout.update(
        barmode="overlay",
        uirevision=f"{result.corpus.key}/{query}",
        xaxis=_x_axis(n, "Chunk, in document order" if len(labels.doc_starts) == 1 else "Chunk, documents in order"),
        yaxis={
            "title": {"text": "Chunk value" if not show_stages else "Score / value"},
            "range": [low - 0.06 * span, high + 0.24 * span],
            "gridcolor": palette.grid,
            "zeroline": True,
            "zerolinecolor": palette.zero,
            "zerolinewidth": 1.5,
            "fixedrange": False,
        },
        shapes=shapes,
        annotations=annotations,
    )
    if range_slider or (range_slider is None and n > RANGE_SLIDER_ABOVE):
        layout["xaxis"]["rangeslider"] = {
            "visible": True,
            "thickness": 0.07,
            "bgcolor": "#f8fafc",
            "range": [-0.5, n - 0.5],
        }
    return go.Figure(data=traces, layout=layout, _validate=False)


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


def _segment_marks(result: ExtractionResult, query: int, n: int) -> tuple[list[dict], list[dict]]:
    """A shaded band and an ``S1`` label per segment; labels of close segments are staggered."""
    palette = PALETTE
    several_queries = len(result.queries) > 1
    shapes: list[dict] = []
    annotations: list[dict] = []
    chunks_per_pixel = n / _PLOT_WIDTH_GUESS
    row_ends: list[float] = []  # per label row, the right edge (in chunks) of its last label
    for segment in sorted(result.segments, key=lambda s: s.start):
        own = segment.query == query
        shapes.append(
            band_shape(
                segment.start,
                segment.end,
                fill=palette.segment_band if own else palette.segment_band_other,
                line={"width": 1, "color": palette.segment, "dash": "solid" if own else "dot"},
            )
        )
        centre = (segment.start + segment.end - 1) / 2
        label = segment.label + (f"·Q{segment.query + 1}" if several_queries else "")
        half = (len(label) * 9 + 8) / 2 * chunks_per_pixel  # half the label's width, in chunks
        row = next((r for r, end in enumerate(row_ends) if centre - half >= end), None)
        if row is None and len(row_ends) < 3:
            row = len(row_ends)
            row_ends.append(0.0)
        row = row or 0  # three full rows: overlap in the first rather than grow further
        row_ends[row] = centre + half
        annotations.append(band_label(centre, label, yshift=2 + 17 * row, color=palette.segment, size=14))
    return shapes, annotations


def gold_marks(spans: Sequence[tuple[int, int, str]]) -> tuple[list[dict], list[dict]]:
    """Per gold span: a light purple band under everything and a solid strip along the bottom,
    labelled inside the plot at the bottom left of the span (``label`` is escaped here)."""
    palette = PALETTE
    shapes: list[dict] = []
    annotations: list[dict] = []
    for start, end, label in spans:
        shapes.append(band_shape(start, end, fill=palette.gold_band, line={"width": 0}))
        strip = band_shape(start, end, fill=palette.gold, line={"width": 0})
        strip.update(y1=0.025, layer="above", name="gold-strip")
        shapes.append(strip)
        annotations.append(
            {
                "x": start - 0.5,
                "xref": "x",
                "y": 0.03,
                "yref": "paper",
                "xanchor": "left",
                "yanchor": "bottom",
                "text": f"<b>{html.escape(label)}</b>",
                "showarrow": False,
                "font": {"color": palette.gold, "size": 12},
                "bgcolor": "rgba(255,255,255,0.8)",
            }
        )
    return shapes, annotations


def _document_marks(labels: CorpusLabels, n: int) -> tuple[list[dict], list[dict]]:
    """A dashed line where each document starts, and its title at the top left of its span.

    A document too narrow for a readable title gets none (its bars' hover names it).
    """
    palette = PALETTE
    shapes: list[dict] = []
    annotations: list[dict] = []
    ends = (*labels.doc_starts[1:], n)
    for number, (start, end, title) in enumerate(zip(labels.doc_starts, ends, labels.titles, strict=True)):
        if number:
            shapes.append(
                {
                    "type": "line",
                    "xref": "x",
                    "yref": "paper",
                    "x0": start - 0.5,
                    "x1": start - 0.5,
                    "y0": 0,
                    "y1": 1,
                    "line": {"color": palette.boundary, "width": 1.5, "dash": "dash"},
                    "layer": "above",
                }
            )
        room = int((end - start) / max(n, 1) * _PLOT_WIDTH_GUESS / 8)  # characters that fit (~8 px each)
        if room < 8:
            continue  # too narrow for a readable title: the bars' hover names the document
        annotations.append(
            {
                "x": start - 0.5,
                "xref": "x",
                "y": 1,
                "yref": "paper",
                "xanchor": "left",
                "yanchor": "top",
                "xshift": 4,
                "yshift": -2,
                "text": html.escape(shorten(title, room)),
                "hovertext": html.escape(shorten(title, 200)),
                "showarrow": False,
                "font": {"color": palette.muted, "size": 13},
                "bgcolor": "rgba(255,255,255,0.75)",
            }
        )
    return shapes, annotations


def _legend_swatch(name: str, fill: str, line: str) -> dict:
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


def _base_layout(height: int, *, top: int, bottom: int) -> dict:
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


def _x_axis(n: int, title: str) -> dict:
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


# --- the comparison chart ---

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

    shapes, annotations = _segment_marks(result, query, n)
    boundary_shapes, _ = _document_marks(labels, n)
    shapes += boundary_shapes
    low = min(float(values.min(initial=0.0)), 0.0)
    high = max(float(values.max(initial=0.0)), 0.0)
    span = (high - low) or 1.0
    layout = _base_layout(height, top=48, bottom=10)
    layout.update(
        barmode="overlay",
        uirevision=f"compare/{result.corpus.key}/{query}",
        xaxis={**_x_axis(n, "Chunk, in document order"), "anchor": "y2"},
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
