"""The segment on its page: a strip of page thumbnails, then the pages a segment or chunk spans
with exactly its characters highlighted (PDF), or the marked text (text and Markdown files).

Thin UI over :mod:`rse_core.figures.page_view`; rendered images are remembered by what is drawn on
them (:mod:`app_ui.panels.page_images`), so moving an unrelated widget does not redraw pages.
"""

from __future__ import annotations

import base64
import html

import streamlit as st

from rse_core import ExtractionResult, RSEError
from rse_core.figures.page_view import (
    GAP,
    PADDING,
    SEGMENT,
    STYLE_LABELS,
    THUMBNAIL_ZOOM,
    TOP_K,
    Mark,
    pages_of,
    reflow,
    segment_marks,
    text_html,
    thumbnail_pages,
    top_k_marks,
)
from rse_core.figures.style import PALETTE

from .. import components, keys, navigation, state
from ..built_html import html as html_element
from ..caching import session_memo
from ..page_state import evaluate as evaluate_state
from ..safe_text import md
from . import page_select_panel
from .page_images import PAGES_KEPT, THUMBS_KEPT, page_images, png_width

PAGE_MODE, REFLOW_MODE, EXACT_MODE = "On the page", "Reflowed text", "Exact text (as sent)"
CLICKED = "clicked"
MAX_PAGES_SHOWN = 3  # more on request: every page drawn costs a rerun time

CSS = f"""
<style>
mark.rse-mark {{ color: inherit; padding: 0; background: transparent; }}
.rse-mark.segment {{ background: rgba(37, 99, 235, 0.22); }}
.rse-mark.gap {{ background: {PALETTE.gap_fill}; outline: 1px solid {PALETTE.gap}; }}
.rse-mark.padding {{ background: rgba(147, 197, 253, 0.35); }}
.rse-mark.top_k {{ text-decoration: underline 2px {PALETTE.top_k}; text-underline-offset: 3px; }}
.rse-mark.gold {{ background: {PALETTE.gold_band}; outline: 1px solid {PALETTE.gold}; }}
.rse-page-text {{ white-space: pre-wrap; font-family: ui-serif, Georgia, serif; line-height: 1.55;
                 background: #fff; border: 1px solid #e2e8f0; padding: 0.8em 1em; }}
.rse-thumbs {{ display: flex; flex-wrap: wrap; gap: 6px; padding: 4px 0 8px 0; }}
.rse-thumb {{ text-align: center; font-size: 0.75em; color: #475569; flex: 0 0 auto; }}
.rse-thumb img {{ height: 96px; border: 1px solid #cbd5e1; display: block; }}
.rse-thumb.marked img {{ border: 3px solid {PALETTE.segment}; }}
.rse-thumb.shown img {{ outline: 3px solid #111827; }}
</style>
"""


def legend_html() -> str:
    swatches = {
        SEGMENT: "rse-mark segment",
        GAP: "rse-mark gap",
        PADDING: "rse-mark padding",
        TOP_K: "rse-mark top_k",
    }
    return (
        '<div class="rse-legend">'
        + " · ".join(
            f'<mark class="{css}">{html.escape(STYLE_LABELS[style])}</mark>' for style, css in swatches.items()
        )
        + "</div>"
    )


@components.guarded_fragment
def render_page_view_panel(result: ExtractionResult, selected_chunk: int | None = None) -> None:
    """Pick a segment (or the clicked chunk), see it on its pages, with zoom and top-k.

    A fragment: changing the zoom or the segment redraws only this panel."""
    html_element(CSS)
    options: list[object] = [segment.number for segment in result.segments]
    if selected_chunk is not None:
        options.append(CLICKED)
    if not options:
        st.caption(
            "Nothing to draw: RSE kept no text (the message above says why). Click a bar to see that chunk here."
        )
        return

    def label(option: object) -> str:
        return _target_label(result, option, selected_chunk)

    state.keep_choice(keys.PAGE_VIEW_TARGET, options, options[0], label)
    controls = st.columns([3, 2, 2, 3])
    target = controls[0].selectbox("Show", options, key=keys.PAGE_VIEW_TARGET, format_func=label)
    show_top_k = controls[1].toggle("Mark top-k chunks", value=True, key=keys.PAGE_VIEW_TOP_K)
    selecting = controls[1].toggle(
        "Select a gold span",
        key=keys.PAGE_VIEW_SELECT,
        help="Drag across the pages from an answer's first word to its last: the characters between become a "
        "gold span for a golden set (Evaluate's form).",
    )
    zoom = controls[2].slider("Zoom", 0.6, 3.0, 1.3, 0.1, key=keys.PAGE_VIEW_ZOOM)
    mode = controls[3].radio("View", (PAGE_MODE, REFLOW_MODE, EXACT_MODE), key=keys.PAGE_VIEW_MODE, horizontal=True)

    focus = _focus_marks(result, target, selected_chunk)
    marks = [mark for segment in result.segments for mark in segment_marks(result, segment)]
    if show_top_k:
        marks += top_k_marks(result, result.top_k)
    document = result.corpus.documents_by_id[focus[0].doc_id]
    start, end = min(m.start for m in focus), max(m.end for m in focus)
    st.html(legend_html())

    if mode != PAGE_MODE:
        _render_text(document.text[start:end], mode)
        return
    if document.layout is None:  # text or Markdown: the same marks on the text itself
        st.caption(f"{html.escape(document.name)} has no pages; its text with the same marks.")
        html_element(f'<div class="rse-page-text">{text_html(document, marks, context=400)}</div>')
        return
    try:
        _render_pages(result, document, focus, marks, zoom, selecting)
    except RSEError as error:  # a page too large to draw, or a document with too many glyphs to map
        st.warning(md(str(error), 300), icon=":material/warning:")


def _render_text(text: str, mode: str) -> None:
    """The focus as text: reflowed for reading, or exactly as sent."""
    shown = reflow(text) if mode == REFLOW_MODE else text
    note = (
        "Line breaks of the PDF joined for reading; the LLM gets the exact text."
        if mode == REFLOW_MODE
        else "Exactly the characters sent, with the PDF's line breaks."
    )
    st.caption(f"{note} {len(text):,} characters.")
    html_element(f'<div class="rse-page-text">{html.escape(shown)}</div>')


def _render_pages(
    result: ExtractionResult, document, focus: list[Mark], marks: list[Mark], zoom: float, selecting: bool
) -> None:
    """The thumbnail strip, then the focus's pages (the first few unless all are asked for), as
    images or, when ``selecting``, in a frame that takes a drag as a gold span."""
    focus_pages = pages_of(document, focus)
    strip = thumbnail_pages(len(document.layout.page_sizes), pages_of(document, marks))
    thumbs = list(zip(strip, page_images(document, strip, marks, THUMBNAIL_ZOOM, THUMBS_KEPT), strict=True))
    marked_pages = set(pages_of(document, [m for m in marks if m.style != TOP_K]))
    # The same images and frames as a recent move's: the same 450 KB string, not encoded again.
    strip_key = (tuple((page, hash(image)) for page, image in thumbs), frozenset(marked_pages), frozenset(focus_pages))
    strip_html = session_memo(
        "thumbnail_strip", strip_key, lambda: thumbnail_strip_html(thumbs, marked_pages, set(focus_pages)), 2
    )
    html_element(strip_html)
    show_all = len(focus_pages) > MAX_PAGES_SHOWN and st.toggle(
        f"Show all {len(focus_pages)} pages", key=keys.PAGE_VIEW_ALL_PAGES
    )
    shown_pages = focus_pages if show_all else focus_pages[:MAX_PAGES_SHOWN]
    more = len(focus_pages) - len(shown_pages)
    st.caption(
        f"{html.escape(components.doc_title(result, document.doc_id, 60))}: "
        f"{components.plural(len(focus_pages), 'page')}"
        + (f" (the first {len(shown_pages)} shown)" if more > 0 else "")
        + ". Highlights are the exact characters, found by their offsets, not by searching the text."
    )
    if selecting:
        st.caption(page_select_panel.HINT)
        span = page_select_panel.render_selectable_pages(
            document, shown_pages, marks, key=keys.page_select("pv", document.doc_id), zoom=zoom
        )
        _render_gold_span(document, span)
        return
    images = page_images(document, shown_pages, marks, zoom, PAGES_KEPT)
    for page, image in zip(shown_pages, images, strict=True):
        # At its own width and format: otherwise Streamlit decodes, resizes and re-encodes it (as a
        # JPEG) on every run.
        st.image(image, caption=f"Page {page}", width=png_width(image), output_format="PNG")


def _render_gold_span(document, span) -> None:
    """The span dragged on the pages, and the way to Evaluate's form with it."""
    if span is None:
        return
    text = document.text[span.start : span.end].strip()
    first, last = document.pages_of_span(span.start, span.end)
    pages = f"p. {first}" if first == last else f"pp. {first}-{last}"
    st.markdown(f"**Gold span** ({pages}, characters {span.start:,}-{span.end:,}): {md(_ends(text), 400)}")
    if st.button(
        "Make golden queries of it (Evaluate)",
        key=keys.PAGE_VIEW_TO_GOLDEN,
        icon=":material/fact_check:",
        help="Opens Evaluate's golden-set form with this span: type the queries it answers there.",
    ):
        evaluate_state.mark_on_page(document.name)
        navigation.request("Evaluate")


def _ends(text: str, words: int = 12) -> str:
    """The first and last words of a long text, with an ellipsis between."""
    split = text.split()
    if len(split) <= 2 * words:
        return " ".join(split)
    return f"{' '.join(split[:words])} … {' '.join(split[-words:])}"


def thumbnail_strip_html(thumbs: list[tuple[int, bytes]], marked: set[int], shown: set[int]) -> str:
    """The pages small, wrapped in rows: pages with a segment framed blue, the pages below outlined."""
    cells = []
    for page, image in thumbs:
        classes = "rse-thumb" + (" marked" if page in marked else "") + (" shown" if page in shown else "")
        data = base64.b64encode(image).decode("ascii")
        cells.append(f'<div class="{classes}"><img alt="page {page}" src="data:image/png;base64,{data}">{page}</div>')
    return f'<div class="rse-thumbs">{"".join(cells)}</div>'


def _focus_marks(result: ExtractionResult, target: object, selected_chunk: int | None) -> list[Mark]:
    if target == CLICKED and selected_chunk is not None:
        chunk = result.corpus.chunks[selected_chunk]
        return [Mark(chunk.doc_id, chunk.start, chunk.end, SEGMENT, f"chunk {chunk.index}")]
    segment = next(s for s in result.segments if s.number == target)
    return segment_marks(result, segment)


def _target_label(result: ExtractionResult, option: object, selected_chunk: int | None) -> str:
    if option == CLICKED and selected_chunk is not None:
        chunk = result.corpus.chunks[selected_chunk]
        return f"Clicked chunk {chunk.index} ({chunk.pages})"
    segment = next(s for s in result.segments if s.number == option)
    pages = (
        f"p. {segment.first_page}"
        if segment.first_page == segment.last_page
        else (f"pp. {segment.first_page}-{segment.last_page}")
    )
    return f"{segment.label}: {pages}, {segment.end_char - segment.start_char:,} characters"
