"""A gold span selected on a PDF's pages, shared by the page view (Explore) and the golden-set
form (Evaluate).

A drag on either page becomes one stored span (document, start, end), so a span found on
Explore's page view reaches Evaluate's form as it is, and the pages draw it in the gold style
wherever they are shown. Each component's drag is taken once (by its time stamp): a component
keeps its last value across runs, and an old drag must not overwrite a newer span made elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from rse_core import Document, ExtractionResult, RSEError
from rse_core.figures.page_view import GOLD, Mark

from .. import keys
from ..page_select import is_drag, select_on_pages, span_from_value
from ..page_state import evaluate as evaluate_state
from ..page_state import once, page_gold
from ..page_state.page_gold import PageSpan
from ..safe_text import md
from ..text_select import TextSpan
from .page_images import PAGES_KEPT, page_images

ZOOM = 1.2
HINT = (
    "Drag on the page from the answer's first word to its last (as you would select text); "
    "the characters between are the gold span, shown in purple."
)


def stored_span(document: Document) -> TextSpan | None:
    """The span last selected on ``document``'s pages, if the last selection was on it."""
    span = st.session_state.get(keys.PAGE_GOLD_SPAN)
    if isinstance(span, PageSpan) and span.doc_id == document.doc_id and span.end <= len(document.text):
        return TextSpan(span.start, span.end)
    return None


def take_drag(document: Document, key: str) -> bool:
    """Store the span the component under ``key`` reports, if it is a drag not taken before; whether it was."""
    value = st.session_state.get(key)
    if value is None or not is_drag(value) or not once.take_once(keys.page_gold_drag(key), value["at"]):
        return False  # no drag, a value the component drops (select_on_pages), or one taken already
    try:
        span = span_from_value(value, document)
    except RSEError as error:  # a page with more characters than RSE_MAX_GLYPHS
        st.warning(md(str(error), 300), icon=":material/warning:")
        return False
    if span is None:
        return False
    page_gold.keep_page_span(PageSpan(document.doc_id, span.start, span.end))
    return True


def gold_marks(document: Document) -> list[Mark]:
    span = stored_span(document)
    return [] if span is None else [Mark(document.doc_id, span.start, span.end, GOLD, "gold")]


def render_selectable_pages(
    document: Document, pages: Sequence[int], marks: list[Mark], *, key: str, zoom: float = ZOOM, height: int = 760
) -> TextSpan | None:
    """``pages`` of ``document`` with ``marks`` and the stored gold span, for dragging across;
    returns the stored span (after taking a new drag)."""
    if take_drag(document, key):
        st.rerun()  # the chart and the gold metrics above, drawn earlier in this run, show the new span
    # The page view's store: switching its selection on draws no page again (until a span is on it).
    images = page_images(document, list(pages), [*marks, *gold_marks(document)], zoom, PAGES_KEPT)
    select_on_pages(list(zip(pages, images, strict=True)), key=key, height=height)
    return stored_span(document)


def render_page_selection(document: Document, result: ExtractionResult | None) -> tuple[int, int] | None:
    """Evaluate's "On the page": a page of ``document`` and the next one to drag across, opening
    on the stored span's page (else the result's first segment in it); the span, if any."""
    if document.layout is None:
        st.info(f"{md(document.name)} has no pages: select its text instead.", icon=":material/info:")
        return None
    take_drag(document, keys.page_select("ev", document.doc_id))
    page_count = document.layout.page_count
    span = stored_span(document)
    arrived = evaluate_state.take_arrival()  # from the page view's button
    evaluate_state.show_page_for_selecting(
        document.doc_id,
        document.pages_of_span(span.start, span.end)[0] if span is not None and arrived else None,
        lambda: _opening_page(document, result, span),
    )
    page_key = evaluate_state.Keys.select_page(document.doc_id)
    page = int(st.number_input("Page", 1, page_count, key=page_key, help="This page and the next are shown."))
    st.caption(HINT)
    try:
        span = render_selectable_pages(
            document, list(range(page, min(page + 1, page_count) + 1)), [], key=keys.page_select("ev", document.doc_id)
        )
    except RSEError as error:  # a page too large to draw or to map
        st.warning(md(str(error), 300), icon=":material/warning:")
        return None
    return None if span is None else (span.start, span.end)


def _opening_page(document: Document, result: ExtractionResult | None, span: TextSpan | None) -> int:
    if span is not None:
        return document.pages_of_span(span.start, span.end)[0]
    segments = [s for s in (result.segments if result is not None else ()) if s.doc_id == document.doc_id]
    return segments[0].first_page if segments else 1
