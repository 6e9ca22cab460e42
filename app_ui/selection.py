"""The chunk the user clicked on Explore, kept across reruns and pages.

Explore's chart stores its last click; the selection is the chunk's corpus index together with
the corpus it belongs to, so a new chunking or another document set never points it at the
wrong chunk. The explain panel and Evaluate's span marking read it from here.
"""

from __future__ import annotations

from numbers import Integral

import streamlit as st

from rse_core import Document, ExtractionResult

from .page_state import explore as explore_state


def read_click(result: ExtractionResult) -> bool:
    """Store a newly clicked chunk; return whether there was one.

    The chart's value is its last click (with the click's time, so clicking the same bar again
    is a new click); a click already handled does not overwrite a chunk chosen some other way.
    """
    event = st.session_state.get(explore_state.Keys.CHART)
    if not isinstance(event, dict):
        return False
    try:
        index = round(float(event["x"]))
    except (KeyError, TypeError, ValueError, OverflowError):
        return False
    # Only numbers are kept: the value comes from the browser, and a deeply nested "curve" made
    # the comparison below recurse until the session broke (issue 23).
    curve, at = event.get("curve"), event.get("at")
    click = (index, curve if _is_number(curve) else None, at if _is_number(at) else None)
    if click != st.session_state.get(explore_state.Keys.LAST_CLICK) and 0 <= index < len(result.corpus.chunks):
        st.session_state[explore_state.Keys.LAST_CLICK] = click
        st.session_state[explore_state.Keys.SELECTED_CHUNK] = index
        st.session_state[explore_state.Keys.SELECTED_CORPUS] = result.corpus.key
        return True
    return False


def valid_selection(result: ExtractionResult) -> int | None:
    """The selected chunk, or ``None`` (and cleared) if it belongs to other documents or chunking."""
    selected = st.session_state.get(explore_state.Keys.SELECTED_CHUNK)
    if selected is None:
        return None
    corpus_key = st.session_state.get(explore_state.Keys.SELECTED_CORPUS)
    if corpus_key is None:  # set from outside this page: adopt the current corpus
        st.session_state[explore_state.Keys.SELECTED_CORPUS] = corpus_key = result.corpus.key
    if (
        corpus_key != result.corpus.key
        or not isinstance(selected, int)
        or not 0 <= selected < len(result.corpus.chunks)
    ):
        st.session_state[explore_state.Keys.SELECTED_CHUNK] = st.session_state[explore_state.Keys.SELECTED_CORPUS] = (
            None
        )
        return None
    return selected


def clicked_chunk_in(result: ExtractionResult | None, document: Document) -> int | None:
    """The chunk number (in ``document``) of the chunk clicked on Explore, if it is in ``document``."""
    index = st.session_state.get(explore_state.Keys.SELECTED_CHUNK)
    if result is None or isinstance(index, bool) or not isinstance(index, Integral):
        return None
    if not 0 <= index < len(result.corpus.chunks):
        return None
    chunk = result.corpus.chunks[index]
    return chunk.index if chunk.doc_id == document.doc_id else None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
