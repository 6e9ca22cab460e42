"""Explore: the chunk-value chart with its segments, beside the text RSE would send.

Reads the result ``app.py`` computed for this run (``run_state.current_outcome()``), never scores
anything itself. The chart block is a fragment: clicking a bar or toggling the stages reruns only
that block. The corpus index of the last clicked chunk is kept by
:mod:`app_ui.page_state.explore` for the "explain a chunk" panel (see
:func:`render_selected_chunk`); the explain panel below the chart reads it.
"""

from __future__ import annotations

import html

import streamlit as st

from app_ui import components, compute, state
from app_ui.built_html import html as html_element
from app_ui.caching import session_memo
from app_ui.gold import GoldSource, GoldSpan, all_gold_spans, gold_score
from app_ui.live_chart import ScreenFit, live_plotly_chart
from app_ui.page_state import evaluate as evaluate_state
from app_ui.page_state import explore as explore_state
from app_ui.page_state import page_gold
from app_ui.panels.explain_panel import render_explain_panel
from app_ui.panels.page_view_panel import render_page_view_panel
from app_ui.panels.params_export import render_params_export
from app_ui.panels.report_button import render_report_download
from app_ui.safe_text import md
from rse_core import ExtractionResult
from rse_core.figures.values import RANGE_SLIDER_ABOVE, value_chart_spec
from rse_core.search.optimal import GreedyVsOptimal

K = explore_state.Keys

TEXT_PANEL_HEIGHT = 600


@components.guarded
def render() -> None:
    result = components.page_start(
        "Explore",
        "Each bar is one chunk's value for the query, in document order: above zero it helps a segment, below "
        "zero it costs one. RSE keeps the shaded runs whose values add up best. Ranks count from 0 (best = rank 0), "
        "as in the value formula. Click a bar to inspect it.",
    )
    if result is None:
        return
    render_headline(result)

    with st.container(key=K.BODY):  # keyed, so the chart's frame survives messages above it coming and going
        chart_column, text_column = st.columns([5, 3], gap="medium")
        with chart_column:
            render_chart_block(result)
        with text_column:
            render_segment_texts(result)

    selected = explore_state.valid_selection(result)
    if selected is not None:
        # Outside the chart fragment: "Apply this penalty" must rerun the whole app, so the
        # result is recomputed with the new slider value.
        st.subheader("Why is this chunk in or out?")
        render_explain_panel(result, selected)

    with st.expander("The segments on the page", icon=":material/picture_as_pdf:", expanded=True):
        render_page_view_panel(result, selected)

    st.subheader("Share and export")
    components.render_share_and_export(result, K.PREFIX)
    render_report_download(result, K.PREFIX)
    render_params_export(
        result.handoff(),
        model=result.model,
        calibration=result.calibration.describe(),
        key=K.EXPORT_CODE,
    )


def render_headline(result: ExtractionResult) -> None:
    """Headline numbers, why the search stopped, and (if nothing came back) why not."""
    top_k_chars = result.characters(result.top_k)
    gold = gold_score(result, gold_spans_of(result))
    columns = st.columns(5 if gold is None else 7)
    columns[0].metric("Segments", len(result.segments))
    columns[1].metric("Chunks kept", f"{len(result.rse_chunks)} of {len(result.corpus.chunks)}")
    columns[2].metric("Characters sent", f"{result.rse_characters:,}", help="Length of the context RSE builds.")
    columns[3].metric(
        f"Top-k characters (k={result.params.top_k})",
        f"{top_k_chars:,}",
        help="What the top-k baseline would send, for contrast (see the RSE vs top-k page).",
    )
    columns[4].metric(
        "Inner gaps kept",
        sum(len(segment.inner_gaps) for segment in result.segments),
        help="Chunks below zero between two kept chunks of a segment: the low-scored middle of a gapped cluster. "
        "Negative chunks at a segment's end (edge padding) are counted apart.",
    )
    if gold is not None:
        over = f" (mean over {gold.spans} gold spans)" if gold.spans > 1 else ""
        columns[5].metric(
            "Gold recall",
            f"{gold.recall:.2f}",
            help=f"Share of the gold answer's characters in RSE's segments{over}; top-k sending as many characters "
            f"covers {gold.top_k_recall:.2f}. The gold is drawn purple under the chart.",
        )
        columns[6].metric(
            "Gold precision", f"{gold.precision:.2f}", help=f"Share of RSE's characters that are gold answer{over}."
        )
    empty = result.empty_reason()
    if empty:  # said once, with what to change, above the chart it explains
        st.warning(md(empty), icon=":material/search_off:")


def render_stop_reason(result: ExtractionResult) -> None:
    """Why the search stopped, under the chart (an empty result says why above it instead)."""
    if not result.empty_reason():
        st.html(f'<div class="rse-stop">{html.escape(components.stop_sentence(result))}</div>')


def render_chart_options(result: ExtractionResult) -> bool:
    """The chart's optional layers, folded into one line above it so the chart starts on the first screen;
    whether the zoom strip is on."""
    with st.popover("Chart layers", icon=":material/layers:"):
        st.toggle(
            "Show value stages",
            key=K.STAGES,
            help="Overlay each step of the value formula: calibrated score, beta-transformed, times the rank "
            "decay, and the final value after the penalty.",
        )
        st.toggle(
            "Compare with the optimal search",
            key=K.OPTIMAL,
            help="Outline (dashed, O1, O2 ...) the segments of the exact search under the same limits, and give "
            "both totals. The app's segments come from the greedy search, as in dsRAG.",
        )
        return len(result.corpus.chunks) > RANGE_SLIDER_ABOVE and st.toggle(
            "Zoom strip under the chart",
            key=K.ZOOM_STRIP,
            help="A range slider under the chunks for zooming into a long document. Off by default: it draws every "
            "bar twice, which slows each redraw; dragging over the chart zooms too (double-click to reset).",
        )


@components.guarded_fragment
def render_chart_block(result: ExtractionResult) -> None:
    """Query choice, stages toggle, the chart, and the clicked chunk (reruns on its own)."""
    query = _chosen_query(result)
    if explore_state.read_click(result):
        st.rerun()  # the whole page, so the text panel (outside this fragment) marks the chunk too
    zoom_strip = render_chart_options(result)
    selected = explore_state.valid_selection(result)
    gold = [span for span in gold_spans_of(result) if span.answers(query)]
    switches = explore_state.read()
    comparison = compute.greedy_vs_optimal(result) if switches.show_optimal else None
    figure = value_chart_spec(
        result,
        query,
        show_stages=switches.show_stages,
        selected_chunk=selected,
        gold_spans=[(span.start, span.end, span.label) for span in gold],
        optimal=[(s.start, s.end) for s in comparison.optimal] if comparison else (),
        range_slider=bool(zoom_strip),
    )
    if comparison is not None:
        render_optimal_line(comparison)
    with st.container(key=K.CHART_AREA):  # the same frame when the optimal line above comes and goes
        live_plotly_chart(figure, key=K.CHART, config=components.chart_config("rse-values"), fit=ScreenFit())
    render_stop_reason(result)
    if gold:
        st.caption(
            "Purple under the bars: "
            + "; ".join(_gold_caption(result, span) for span in gold)
            + ". Low bars inside purple are real gaps in the answer; kept chunks outside purple go beyond the answer."
        )
    render_selected_chunk(result, query, selected)


def render_optimal_line(comparison: GreedyVsOptimal) -> None:
    """Both totals and the gap, in one line above the chart (corpus chunk indices)."""
    if comparison.greedy_is_optimal:
        text = f"Greedy total {comparison.greedy_value:.2f} = optimal total: the greedy search is optimal here."
    else:
        text = (
            f"Greedy total {comparison.greedy_value:.2f}, optimal total {comparison.optimal_value:.2f}: the greedy "
            f"search gives up {comparison.gap:.2f}. Dashed outlines: the optimal segments (corpus chunks "
            + ", ".join(f"{s.start}-{s.end - 1}" if len(s) > 1 else str(s.start) for s in comparison.optimal)
            + ")."
        )
    st.html(f'<div class="rse-legend"><b>Greedy vs optimal:</b> {html.escape(text)}</div>')


def gold_spans_of(result: ExtractionResult) -> list[GoldSpan]:
    """The gold spans of the run's queries: the samples', my golden set's and the span selected on a page.

    Memoised on what decides them (corpus, queries, my set, the selected span): not redone on a slider move.
    """
    mine = evaluate_state.read().built
    dragged = page_gold.read()
    selected = None if dragged is None else (dragged.doc_id, dragged.start, dragged.end)
    key = (result.corpus.key, tuple(result.queries), mine, selected)
    return session_memo("gold_spans", key, lambda: all_gold_spans(result.corpus, result.queries, mine, selected), 4)


def _gold_caption(result: ExtractionResult, span: GoldSpan) -> str:
    where = f"chunks {_chunk_numbers(result, span)}"
    if span.source is GoldSource.DRAGGED:
        return f"{span.source} ({where})"
    return f"the gold answer of {span.query_id} ({span.kind}, {where})"


def _chunk_numbers(result: ExtractionResult, span) -> str:
    first, last = result.corpus.chunks[span.start].index, result.corpus.chunks[span.end - 1].index
    return str(first) if first == last else f"{first}-{last}"


def _chosen_query(result: ExtractionResult) -> int:
    """With several queries, a choice of whose values to chart (segments of all are shown)."""
    if len(result.queries) == 1:
        return 0
    options = list(range(len(result.queries)))

    def label(i: int) -> str:
        return f"Q{i + 1}: {md(result.queries[i], 48)}"  # radio options are Markdown

    state.keep_choice(K.QUERY_CHOICE, options, 0, label)
    return st.radio("Chart the values of", options, format_func=label, horizontal=True, key=K.QUERY_CHOICE)


def render_selected_chunk(result: ExtractionResult, query: int, selected: int | None) -> None:
    """Hook for the "explain a chunk" panel: what the page shows about the clicked chunk.

    ``selected`` is a corpus index (``result.corpus.chunks[selected]``), the one
    :func:`app_ui.page_state.explore.valid_selection` keeps; ``query`` is the query whose values are charted.
    This one-line summary is the placeholder a fuller explanation replaces.
    """
    if selected is None:
        st.caption("Click a bar to see where that chunk's value comes from.")
        return
    chunk = result.corpus.chunks[selected]
    values = result.values[query]
    segment = next((s for s in result.segments if s.start <= selected < s.end), None)
    where = f"in {segment.label}" if segment else "not in a segment"
    if segment and selected in segment.inner_gaps:
        where += " (an inner gap)"
    elif segment and selected in segment.edge_padding:
        where += " (edge padding)"
    rank = int(values.rank[selected])
    in_top_k = " · in the top-k" if selected in result.top_k else ""
    st.html(
        '<div class="rse-legend"><b>Selected:</b> '
        f"{html.escape(components.doc_title(result, chunk.doc_id, 50))}, chunk {chunk.index} ({chunk.pages}) · "
        f"value {components.number(float(values.value[selected]), 3)} · rank {rank} (best = rank 0) · "
        f"{where}{in_top_k}</div>"
    )


def render_segment_texts(result: ExtractionResult) -> None:
    """Every segment's exact text in document order, chunk starts marked, negative chunks explained."""
    st.markdown("**Segments, in document order**")
    if not result.segments:  # the headline already says why; no legend for chips that aren't there
        st.caption(
            f"RSE sends no text for this query. Top-k would send {result.characters(result.top_k):,} characters "
            "(see the RSE vs top-k page)."
        )
        return
    st.html(
        '<div class="rse-legend"><span class="rse-chip segment">S1</span> segment, numbered in pick order · '
        '<span class="rse-chip gap">inner gap</span> below zero, between kept chunks · '
        '<span class="rse-chip padding">edge padding</span> below zero, at an end · '
        '<span class="rse-chip muted">12</span> where a chunk starts</div>'
    )
    with st.container(height=TEXT_PANEL_HEIGHT, border=True):
        selected = explore_state.valid_selection(result)
        for segment in components.segments_in_document_order(result):
            html_element(components.segment_html(result, segment, selected_chunk=selected))
