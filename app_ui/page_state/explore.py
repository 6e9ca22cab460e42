"""State of the Explore page: its keys, and the chunk the user clicked, kept across reruns and pages.

Explore's chart stores its last click; the selection is the chunk's corpus index together with
the corpus it belongs to, so a new chunking or another document set never points it at the
wrong chunk. The explain panel and Evaluate's span marking read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Final

import streamlit as st

from rse_core import Document, ExtractionResult


class Keys:
    """The widget and state keys of views/explore.py (``SELECTED_CHUNK``: corpus index of the chunk clicked on
    Explore; Evaluate reads it)."""

    PREFIX: Final = "explore"
    SELECTED_CHUNK: Final = "explore_selected_chunk"
    CHART: Final = "explore_chart"
    CHART_AREA: Final = "explore_chart_area"
    EXPORT_CODE: Final = "explore_export_code"  # the parameters-as-code panel drawn on request
    BODY: Final = "explore_body"
    STAGES: Final = "explore_stages"
    OPTIMAL: Final = "explore_optimal"
    ZOOM_STRIP: Final = "explore_zoom_strip"
    QUERY_CHOICE: Final = "explore_query"
    LAST_CLICK: Final = "_explore_last_click"
    SELECTED_CORPUS: Final = "_explore_selected_corpus"  # the corpus the selected index belongs to


@dataclass(frozen=True)
class ExploreState:
    """The chart's switches, as the page's toggles hold them."""

    show_stages: bool
    show_optimal: bool


def read() -> ExploreState:
    return ExploreState(
        show_stages=bool(st.session_state.get(Keys.STAGES)),
        show_optimal=bool(st.session_state.get(Keys.OPTIMAL)),
    )


def read_click(result: ExtractionResult) -> bool:
    """Store a newly clicked chunk; return whether there was one.

    The chart's value is its last click (with the click's time, so clicking the same bar again
    is a new click); a click already handled does not overwrite a chunk chosen some other way.
    """
    event = st.session_state.get(Keys.CHART)
    if not isinstance(event, dict):
        return False
    try:
        index = round(float(event["x"]))
    except (KeyError, TypeError, ValueError, OverflowError):
        return False
    # Only numbers are kept: the value comes from the browser, and a deeply nested "curve" made
    # the comparison below recurse until the session broke.
    curve, at = event.get("curve"), event.get("at")
    click = (index, curve if _is_number(curve) else None, at if _is_number(at) else None)
    if click != st.session_state.get(Keys.LAST_CLICK) and 0 <= index < len(result.corpus.chunks):
        st.session_state[Keys.LAST_CLICK] = click
        st.session_state[Keys.SELECTED_CHUNK] = index
        st.session_state[Keys.SELECTED_CORPUS] = result.corpus.key
        return True
    return False


def valid_selection(result: ExtractionResult) -> int | None:
    """The selected chunk, or ``None`` (and cleared) if it belongs to other documents or chunking."""
    selected = st.session_state.get(Keys.SELECTED_CHUNK)
    if selected is None:
        return None
    corpus_key = st.session_state.get(Keys.SELECTED_CORPUS)
    if corpus_key is None:  # set from outside this page: adopt the current corpus
        st.session_state[Keys.SELECTED_CORPUS] = corpus_key = result.corpus.key
    if (
        corpus_key != result.corpus.key
        or not isinstance(selected, int)
        or not 0 <= selected < len(result.corpus.chunks)
    ):
        st.session_state[Keys.SELECTED_CHUNK] = st.session_state[Keys.SELECTED_CORPUS] = None
        return None
    return selected


def clicked_chunk_in(result: ExtractionResult | None, document: Document) -> int | None:
    """The chunk number (in ``document``) of the chunk clicked on Explore, if it is in ``document``."""
    index = st.session_state.get(Keys.SELECTED_CHUNK)
    if result is None or isinstance(index, bool) or not isinstance(index, Integral):
        return None
    if not 0 <= index < len(result.corpus.chunks):
        return None
    chunk = result.corpus.chunks[index]
    return chunk.index if chunk.doc_id == document.doc_id else None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
