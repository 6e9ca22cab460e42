"""RSE vs top-k vs the fixed window: the same scores, three ways to build an LLM's context.

Top-k sends the k best-scored chunks, each cut out of its surroundings; the fixed window (the
lesson's own baseline) grows each of those hits by w neighbours on both sides and merges
overlaps; RSE sends the runs of chunks whose values add up best. This page shows all three at
the chosen k (or at RSE's character budget): their sizes, what each keeps, and the context
strings themselves, in the order the sidebar's "context order" says (document order by
default, as in the lesson). Colours as everywhere: segment blue, top-k orange, window green,
inner gap amber.
"""

from __future__ import annotations

import html

import streamlit as st

from app_ui import components
from app_ui.live_chart import ScreenFit, live_plotly_chart
from app_ui.page_state import compare as compare_state
from app_ui.panels import answers_panel
from app_ui.panels.report_button import render_report_download
from app_ui.safe_text import md
from rse_core import ExtractionResult
from rse_core.figures.compare import chunk_sets, compare_chart

K = compare_state.Keys

CONTEXT_HEIGHT = 420
AT_K, AT_BUDGET = "k", "budget"
COMPARE_MIN_HEIGHT = 380
"""Pixels under which the chart's method rows would overlap their labels: it never fits itself smaller."""
ORDER_WORDS = {"document": "in document order", "score": "best first"}


@components.guarded
def render() -> None:
    result = components.page_start(
        "RSE vs top-k",
        "Same document, same scores. Top-k keeps the k best chunks wherever they are and sends them cut out of "
        "their surroundings; the fixed window (the lesson's baseline) grows each of them by the same number of "
        "neighbours; RSE keeps whole runs of chunks, including weaker chunks between strong ones.",
    )
    if result is None:
        return
    empty = result.empty_reason()
    if empty:
        st.warning(
            f"RSE found no segment, so only the baselines have a context. {md(empty)}", icon=":material/search_off:"
        )

    choice, *method_columns = st.columns([1.1, 1, 1, 1])
    with choice:
        k, w = result.params.top_k, result.params.window
        variant = st.radio(
            "Compare RSE with the baselines",
            (AT_K, AT_BUDGET),
            format_func=lambda v: f"at k = {k}" if v == AT_K else "at RSE's character budget",
            key=K.VARIANT,
            help=f"At k: the {k} best chunks, and the same {k} hits with {w} neighbours on each side. At RSE's budget: "
            "hits in rank order while the characters sent stay within what RSE sends.",
        )
    top_k = result.top_k if variant == AT_K else result.top_k_equal_budget
    windows = result.window if variant == AT_K else result.window_equal_budget
    render_sizes(result, top_k, windows, variant, method_columns)
    with st.container(key=K.CHART_AREA):  # keyed: the chart's frame stays while what is above changes
        live_plotly_chart(
            compare_chart(result),
            key=K.CHART,
            config=components.chart_config("rse-vs-top-k"),
            fit=ScreenFit(min=COMPARE_MIN_HEIGHT),
        )
    label = f"top-k (k={k})" if variant == AT_K else "top-k with RSE's characters"
    render_overlap(result, top_k, label)
    render_contexts(result, top_k, windows, label)

    st.subheader("The answer each context gets")
    answers_panel.render_settings(K.PREFIX)
    answers_panel.render_answers(result, K.PREFIX)

    st.subheader("Share")
    components.render_share_and_export(result, K.PREFIX, downloads=False)
    render_report_download(result, K.PREFIX, top_k)


def render_sizes(result: ExtractionResult, top_k, windows, variant: str, columns: list) -> None:
    """Context size of each method: characters, with chunks and passages in a line under them (the
    window's reasoning in its tooltip), compact so that the chart below starts on the first screen."""
    k, w = result.params.top_k, result.params.window
    window_chunks = [index for segment in windows for index in range(segment.start, segment.end)]
    hits = sum(len(segment.hits) for segment in windows)
    padding = sum(len(segment.padding) for segment in windows)
    suffix = "" if variant == AT_K else ", up to RSE's characters"
    inner = sum(len(segment.inner_gaps) for segment in result.segments)
    top_k_title = f"Top-k (k={k})" if variant == AT_K else "Top-k, up to the same characters as RSE"
    pieces = components.passages(result, list(top_k))
    methods = (
        (
            "segment",
            "RSE",
            result.characters(result.rse_chunks),
            f"{components.plural(len(result.rse_chunks), 'chunk')} in "
            f"{components.plural(len(result.segments), 'segment')}",
            f"{components.plural(inner, 'inner gap')} among them: chunks below zero kept between two stronger ones.",
        ),
        (
            "topk",
            top_k_title,
            result.characters(list(top_k)),
            f"{components.plural(len(top_k), 'chunk')} in {components.passages_phrase(pieces)}",
            None,
        ),
        (
            "window",
            f"Window (±{w}){suffix}",
            result.window_characters(windows),
            f"{components.plural(len(window_chunks), 'chunk')} in {components.plural(len(windows), 'window')}",
            f"{components.plural(hits, 'hit')} grown by {w} on each side: {padding} of the window chunks are padding "
            f"around the hits. The same width for every hit: a one-sentence answer gets "
            f"{components.plural(2 * w, 'chunk')} of padding, a long section is cut "
            f"{components.plural(w, 'chunk')} past its best hits.",
        ),
    )
    for column, (chip, title, characters, detail, why) in zip(columns, methods, strict=True):
        with column:
            st.html(f'<span class="rse-chip {chip}">{html.escape(title)}</span>')
            st.metric(detail, f"{characters:,} characters", help=why)


def render_overlap(result: ExtractionResult, top_k: tuple[int, ...], label: str) -> None:
    """Which chunks both keep, which only RSE keeps (inner gaps flagged), which only top-k keeps."""
    sets = chunk_sets(result, top_k)
    only_rse = set(sets["rse_only"])
    inner = [index for segment in result.segments for index in segment.inner_gaps if index in only_rse]
    all_inner = [index for segment in result.segments for index in segment.inner_gaps]
    inner_in_top_k = len(set(all_inner) & set(top_k))
    st.subheader(f"Who keeps which chunks: RSE and {label}")
    columns = st.columns(3)
    blocks = (
        ("both", f"Both keep · {len(sets['both'])}", sets["both"], "Chunks RSE and top-k agree on.", ()),
        (
            "segment",
            f"Only RSE keeps · {len(sets['rse_only'])}",
            sets["rse_only"],
            f"The context around the best chunks; {len(inner)} of them are inner gaps (below zero, between two "
            "chunks of the segment that outweigh them). Top-k keeps such a chunk only when it still ranks in its "
            f"top k: here {inner_in_top_k} of RSE's {len(all_inner)} inner gaps do.",
            inner,
        ),
        (
            "topk",
            f"Only top-k keeps · {len(sets['top_k_only'])}",
            sets["top_k_only"],
            "High-scoring chunks outside every segment: usually isolated hits without enough neighbours.",
            (),
        ),
    )
    for column, (chip, title, indices, note, flagged) in zip(columns, blocks, strict=True):
        with column:
            st.html(f'<span class="rse-chip {chip}">{html.escape(title)}</span>')
            st.caption(note)
            st.html(components.chunk_runs_html(result, indices, gap_chunks=flagged))


def render_contexts(result: ExtractionResult, top_k: tuple[int, ...], windows, label: str) -> None:
    """The three context strings exactly as an LLM would receive them, in the chosen order."""
    order = result.params.context_order.value
    st.subheader("The context each method sends")
    st.caption(
        f"Sent {ORDER_WORDS[order]} (the sidebar's context order; the lesson sends segments in document order). "
        "Labels keep their meaning in either order: S1 is RSE's first pick, 'rank 0' top-k's best chunk."
    )
    columns = st.columns(3)
    rse_context = result.rse_context()
    top_context = result.top_k_context(top_k)
    window_context = result.window_context(windows)
    with columns[0]:
        st.html(f'<span class="rse-chip segment">RSE</span> {len(rse_context):,} characters with the source lines')
        if rse_context:
            st.code(rse_context, language=None, wrap_lines=True, height=CONTEXT_HEIGHT)
        else:
            st.info(md(result.empty_reason() or "No segment."), icon=":material/search_off:")
    with columns[1]:
        title = html.escape(label[:1].upper() + label[1:])
        st.html(f'<span class="rse-chip topk">{title}</span> {len(top_context):,} characters with the source lines')
        st.code(top_context or "(no chunk)", language=None, wrap_lines=True, height=CONTEXT_HEIGHT)
    with columns[2]:
        st.html(
            f'<span class="rse-chip window">Window ±{result.params.window}</span> {len(window_context):,} '
            "characters with the source lines"
        )
        st.code(window_context or "(no chunk)", language=None, wrap_lines=True, height=CONTEXT_HEIGHT)
