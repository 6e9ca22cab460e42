"""Explore: the chunk-value chart with its segments, beside the text RSE would send.

Reads the result ``app.py`` computed for this run (``backend.current_outcome()``), never scores
anything itself. The chart block is a fragment: clicking a bar or toggling the stages reruns only
that block. The corpus index of the last clicked chunk is kept in
``st.session_state[SELECTED_CHUNK_KEY]`` for the "explain a chunk" panel (see
:func:`render_selected_chunk`); the explain panel below the chart reads it.
"""

from __future__ import annotations

import html

import streamlit as st

from app_ui import components
from app_ui.explain_panel import render_explain_panel
from rse_core import ExtractionResult
from rse_core.charts import shorten, value_chart

SELECTED_CHUNK_KEY = "explore_selected_chunk"
CHART_KEY = "explore_chart"
STAGES_KEY = "explore_stages"
QUERY_CHOICE_KEY = "explore_query"
_LAST_CLICK_KEY = "_explore_last_click"
_SELECTED_CORPUS_KEY = "_explore_selected_corpus"  # the corpus the selected index belongs to
TEXT_PANEL_HEIGHT = 600


@components.guarded
def render() -> None:
    result = components.page_start(
        "Explore",
        "Each bar is one chunk's value for the query, in document order: above zero it helps a segment, below "
        "zero it costs one. RSE keeps the shaded runs whose values add up best. Click a bar to inspect it.",
    )
    if result is None:
        return
    render_headline(result)

    chart_column, text_column = st.columns([5, 3], gap="medium")
    with chart_column:
        render_chart_block(result)
    with text_column:
        render_segment_texts(result)

    selected = _valid_selection(result)
    if selected is not None:
        # Outside the chart fragment: "Apply this penalty" must rerun the whole app, so the
        # result is recomputed with the new slider value.
        st.subheader("Why is this chunk in or out?")
        render_explain_panel(result, selected)

    st.subheader("Share and export")
    components.render_share_and_export(result, "explore")


def render_headline(result: ExtractionResult) -> None:
    """Headline numbers, why the search stopped, and (if nothing came back) why not."""
    top_k_chars = result.characters(result.top_k)
    columns = st.columns(5)
    columns[0].metric("Segments", len(result.segments))
    columns[1].metric("Chunks kept", f"{len(result.rse_chunks)} of {len(result.corpus.chunks)}")
    columns[2].metric("Characters sent", f"{result.rse_characters:,}", help="Length of the context RSE builds.")
    columns[3].metric(
        f"Top-k characters (k={result.params.top_k})",
        f"{top_k_chars:,}",
        help="What the top-k baseline would send, for contrast (see the RSE vs top-k page).",
    )
    columns[4].metric("Gap chunks kept", sum(len(segment.gap_chunks) for segment in result.segments))
    empty = result.empty_reason()
    if empty:  # said once, with what to change; the stop sentence would only repeat it
        st.warning(empty, icon=":material/search_off:")
    else:
        st.html(f'<div class="rse-stop">{html.escape(components.stop_sentence(result))}</div>')


@st.fragment
def render_chart_block(result: ExtractionResult) -> None:
    """Query choice, stages toggle, the chart, and the clicked chunk (reruns on its own)."""
    query = _chosen_query(result)
    st.toggle(
        "Show value stages",
        key=STAGES_KEY,
        help="Overlay each step of the value formula: calibrated score, beta-transformed, times the rank "
        "decay, and the final value after the penalty.",
    )
    if _read_click(result):
        st.rerun()  # the whole page, so the text panel (outside this fragment) marks the chunk too
    selected = _valid_selection(result)
    figure = value_chart(result, query, show_stages=bool(st.session_state.get(STAGES_KEY)), selected_chunk=selected)
    st.plotly_chart(
        figure,
        on_select="rerun",
        selection_mode="points",
        key=CHART_KEY,
        config=components.chart_config("rse-values"),
        theme=None,
        width="stretch",
    )
    render_selected_chunk(result, query, selected)


def _chosen_query(result: ExtractionResult) -> int:
    """With several queries, a choice of whose values to chart (segments of all are shown)."""
    if len(result.queries) == 1:
        return 0
    options = list(range(len(result.queries)))
    if st.session_state.get(QUERY_CHOICE_KEY) not in options:
        st.session_state[QUERY_CHOICE_KEY] = 0
    return st.radio(
        "Chart the values of",
        options,
        format_func=lambda i: f"Q{i + 1}: {shorten(result.queries[i], 48)}",
        horizontal=True,
        key=QUERY_CHOICE_KEY,
    )


def _read_click(result: ExtractionResult) -> bool:
    """Store a newly clicked chunk; return whether there was one.

    Streamlit gives the chart a new identity whenever its figure changes, which clears its
    selection; so only a new, non-empty selection updates the stored chunk (and a selection that
    merely persists does not overwrite a chunk chosen some other way).
    """
    event = st.session_state.get(CHART_KEY)
    points = (event or {}).get("selection", {}).get("points", []) if hasattr(event, "get") else []
    if not points:
        return False
    try:
        index = round(float(points[0]["x"]))
    except (KeyError, TypeError, ValueError):
        return False
    click = (index, tuple(sorted(point.get("curve_number", 0) for point in points)))
    if click != st.session_state.get(_LAST_CLICK_KEY) and 0 <= index < len(result.corpus.chunks):
        st.session_state[_LAST_CLICK_KEY] = click
        st.session_state[SELECTED_CHUNK_KEY] = index
        st.session_state[_SELECTED_CORPUS_KEY] = result.corpus.key
        return True
    return False


def _valid_selection(result: ExtractionResult) -> int | None:
    """The selected chunk, or ``None`` (and cleared) if it belongs to other documents or chunking."""
    selected = st.session_state.get(SELECTED_CHUNK_KEY)
    if selected is None:
        return None
    corpus_key = st.session_state.get(_SELECTED_CORPUS_KEY)
    if corpus_key is None:  # set from outside this page: adopt the current corpus
        st.session_state[_SELECTED_CORPUS_KEY] = corpus_key = result.corpus.key
    if (
        corpus_key != result.corpus.key
        or not isinstance(selected, int)
        or not 0 <= selected < len(result.corpus.chunks)
    ):
        st.session_state[SELECTED_CHUNK_KEY] = st.session_state[_SELECTED_CORPUS_KEY] = None
        return None
    return selected


def render_selected_chunk(result: ExtractionResult, query: int, selected: int | None) -> None:
    """Hook for the "explain a chunk" panel: what the page shows about the clicked chunk.

    ``selected`` is a corpus index (``result.corpus.chunks[selected]``), also in
    ``st.session_state[SELECTED_CHUNK_KEY]``; ``query`` is the query whose values are charted.
    This one-line summary is the placeholder a fuller explanation replaces.
    """
    if selected is None:
        st.caption("Click a bar to see where that chunk's value comes from.")
        return
    chunk = result.corpus.chunks[selected]
    values = result.values[query]
    segment = next((s for s in result.segments if s.start <= selected < s.end), None)
    where = f"in {segment.label}" if segment else "not in a segment"
    if segment and selected in segment.gap_chunks:
        where += " (a gap chunk)"
    rank = int(values.rank[selected])
    in_top_k = " · in the top-k" if selected in result.top_k else ""
    st.html(
        '<div class="rse-legend"><b>Selected:</b> '
        f"{html.escape(components.doc_title(result, chunk.doc_id, 50))}, chunk {chunk.index} ({chunk.pages}) · "
        f"value {components.number(float(values.value[selected]), 3)} · rank {rank} · {where}{in_top_k}</div>"
    )


def render_segment_texts(result: ExtractionResult) -> None:
    """Every segment's exact text in document order, chunk starts marked, gap chunks explained."""
    st.markdown("**Segments, in document order**")
    if not result.segments:  # the headline already says why; no legend for chips that aren't there
        st.caption(
            f"RSE sends no text for this query. Top-k would send {result.characters(result.top_k):,} characters "
            "(see the RSE vs top-k page)."
        )
        return
    st.html(
        '<div class="rse-legend"><span class="rse-chip segment">S1</span> segment, numbered in pick order · '
        '<span class="rse-chip gap">gap</span> chunk below zero, kept · '
        '<span class="rse-chip muted">12</span> where a chunk starts</div>'
    )
    with st.container(height=TEXT_PANEL_HEIGHT, border=True):
        selected = _valid_selection(result)
        for segment in components.segments_in_document_order(result):
            st.html(components.segment_html(result, segment, selected_chunk=selected))
