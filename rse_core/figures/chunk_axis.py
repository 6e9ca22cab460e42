"""What the chunk axis of the value and comparison charts carries: hover labels, segment bands,
document boundaries and gold spans.
"""

from __future__ import annotations

import html
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.figures.style import PALETTE, band_label, band_shape
from rse_core.pipeline import Corpus, ExtractionResult

SNIPPET_WORDS = 12


# Keyed by id(corpus) and checked against a weak reference: a Corpus is a frozen dataclass, so
# keying by the object would hash every chunk (and keep the corpus alive). Not cachetools: keyed
# by the object it has the same two problems; keyed by id() the weak-reference check and the purge
# of dead entries stay hand-written, and only the size limit would move (its FIFOCache also
# reorders a key on re-insertion, which this dict does not).
_LABEL_CACHE_ENTRIES = 8
_label_cache: dict[int, tuple[weakref.ref, CorpusLabels]] = {}
_label_lock = threading.Lock()


_PLOT_WIDTH_GUESS = 600  # px: the chart's plot area beside the text panel, for label spacing


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


def segment_bands(result: ExtractionResult, query: int, n: int) -> tuple[list[dict], list[dict]]:
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


def document_boundaries(labels: CorpusLabels, n: int) -> tuple[list[dict], list[dict]]:
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
