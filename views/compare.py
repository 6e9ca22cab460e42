"""RSE vs top-k: the same scores, two ways to build an LLM's context.

Top-k sends the k best-scored chunks, each cut out of its surroundings, best first; RSE sends
whole passages in document order. This page shows both at the chosen k and at RSE's character
budget: what each keeps, what only one keeps, how long each context is, and the context strings
themselves. Colours as everywhere: segment blue, top-k orange, gap amber.
"""

from __future__ import annotations

import html

import streamlit as st

from app_ui import components
from rse_core import ExtractionResult
from rse_core.charts import chunk_sets, compare_chart

VARIANT_KEY = "compare_variant"
CHART_KEY = "compare_chart"
CONTEXT_HEIGHT = 420
AT_K, AT_BUDGET = "k", "budget"


@components.guarded
def render() -> None:
    result = components.page_start(
        "RSE vs top-k",
        "Same document, same scores. Top-k keeps the k best chunks wherever they are and sends them cut out of "
        "their surroundings; RSE keeps whole runs of chunks, including weaker chunks between strong ones.",
    )
    if result is None:
        return
    empty = result.empty_reason()
    if empty:
        st.warning(f"RSE found no segment, so only top-k has a context. {empty}", icon=":material/search_off:")

    render_sizes(result)
    st.plotly_chart(
        compare_chart(result),
        key=CHART_KEY,
        config=components.chart_config("rse-vs-top-k"),
        theme=None,
        width="stretch",
    )

    k = result.params.top_k
    variant = st.radio(
        "Compare RSE with",
        (AT_K, AT_BUDGET),
        format_func=lambda v: (
            f"top-k at k = {k}"
            if v == AT_K
            else f"top-k with RSE's character budget ({components.plural(len(result.top_k_equal_budget), 'chunk')})"
        ),
        horizontal=True,
        key=VARIANT_KEY,
    )
    top_k = result.top_k if variant == AT_K else result.top_k_equal_budget
    label = f"top-k (k={k})" if variant == AT_K else "top-k with RSE's characters"
    render_overlap(result, top_k, label)
    render_contexts(result, top_k, label)

    st.subheader("Share")
    components.render_share_and_export(result, "compare", downloads=False)


def render_sizes(result: ExtractionResult) -> None:
    """Context size of each method: characters, chunks and separate passages."""
    columns = st.columns(3)
    rows = (
        ("segment", "RSE", result.rse_chunks),
        ("topk", f"Top-k (k={result.params.top_k})", list(result.top_k)),
        ("topk", "Top-k, up to the same characters as RSE", list(result.top_k_equal_budget)),
    )
    for column, (chip, title, indices) in zip(columns, rows, strict=True):
        with column:
            st.html(f'<span class="rse-chip {chip}">{html.escape(title)}</span>')
            st.metric("Characters of document text", f"{result.characters(indices):,}")
            pieces = components.passages(result, indices)
            st.caption(f"{components.plural(len(indices), 'chunk')} in {components.passages_phrase(pieces)}")


def render_overlap(result: ExtractionResult, top_k: tuple[int, ...], label: str) -> None:
    """Which chunks both keep, which only RSE keeps (gap chunks flagged), which only top-k keeps."""
    sets = chunk_sets(result, top_k)
    gaps = [index for segment in result.segments for index in segment.gap_chunks]
    gaps_only_rse = [index for index in gaps if index in set(sets["rse_only"])]
    st.subheader(f"Who keeps which chunks: RSE and {label}")
    columns = st.columns(3)
    blocks = (
        ("both", f"Both keep · {len(sets['both'])}", sets["both"], "Chunks RSE and top-k agree on.", ()),
        (
            "segment",
            f"Only RSE keeps · {len(sets['rse_only'])}",
            sets["rse_only"],
            f"The context around the best chunks; {len(gaps_only_rse)} of them are gap chunks (below zero, "
            "kept because their neighbours outweigh them), which top-k never keeps.",
            gaps_only_rse,
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


def render_contexts(result: ExtractionResult, top_k: tuple[int, ...], label: str) -> None:
    """The two context strings exactly as an LLM would receive them."""
    st.subheader("The context each method sends")
    left, right = st.columns(2)
    rse_context = result.rse_context()
    top_context = result.top_k_context(top_k)
    with left:
        st.html(
            f'<span class="rse-chip segment">RSE</span> {len(rse_context):,} characters with the source lines, '
            "segments best first"
        )
        if rse_context:
            st.code(rse_context, language=None, wrap_lines=True, height=CONTEXT_HEIGHT)
        else:
            st.info(result.empty_reason() or "No segment.", icon=":material/search_off:")
    with right:
        title = html.escape(label[:1].upper() + label[1:])
        st.html(
            f'<span class="rse-chip topk">{title}</span> {len(top_context):,} characters with the source lines, '
            "chunks best first"
        )
        st.code(top_context or "(no chunk)", language=None, wrap_lines=True, height=CONTEXT_HEIGHT)
