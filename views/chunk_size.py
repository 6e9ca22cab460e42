"""Chunk size as a study, drawn on the Evaluate page under the golden set's results.

Runs :func:`rse_core.evaluation.chunk_study.chunk_size_study` on the golden set chosen on Evaluate, at the
sidebar's scorer and parameters, for chunk sizes 200-1,600 (the minilm scorer caches embeddings
on disk per chunk text, so each size is embedded once). It only runs when asked (embedding a
document at 200 characters takes a while on a CPU) and is remembered per settings for the
session. Widget keys start with ``cs_``.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from app_ui import caching, components, keys, scorers, state
from app_ui.safe_text import md
from rse_core import RSEError
from rse_core.evaluation.chunk_study import DEFAULT_CHUNK_SIZES, ChunkSizeRow, chunk_size_study
from rse_core.evaluation.golden import GoldenSet
from rse_core.evaluation.metrics import METHOD_LABELS, METHODS

MEMO_ENTRIES = 4
COLORS = {
    "rse": "#2563eb",
    "top_k": "#ea580c",
    "top_k_equal_budget": "#fdba74",
    "window": "#16a34a",
    "window_equal_budget": "#86efac",
}


def study_figure(rows: list[ChunkSizeRow]) -> go.Figure:
    """Recall and characters sent against chunk size, one line per method."""
    figure = make_subplots(
        rows=1, cols=2, subplot_titles=["Recall of the gold span", "Characters sent"], horizontal_spacing=0.1
    )
    for method in [m for m in METHODS if any(row.method == m for row in rows)]:
        mine = [row for row in rows if row.method == method]
        for column, metric in ((1, "recall"), (2, "characters")):
            figure.add_trace(
                go.Scatter(
                    x=[row.chunk_size for row in mine],
                    y=[getattr(row, metric) for row in mine],
                    mode="lines+markers",
                    name=METHOD_LABELS.get(method, method),
                    legendgroup=method,
                    showlegend=column == 1,
                    line={"color": COLORS.get(method), "width": 3 if method == "rse" else 2},
                    hovertemplate=f"{METHOD_LABELS.get(method, method)}, chunk size %{{x}}: %{{y:,.2f}}<extra></extra>",
                ),
                row=1,
                col=column,
            )
    figure.update_xaxes(title_text="chunk size (characters)", tickvals=sorted({row.chunk_size for row in rows}))
    figure.update_yaxes(range=[0, 1.05], row=1, col=1)
    figure.update_layout(
        height=360, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend={"orientation": "h", "y": -0.25}
    )
    return figure


def render_study(golden: GoldenSet, inputs: state.Inputs) -> None:
    st.subheader("Chunk size as a study")
    st.caption(
        f"RSE, top-k and the baselines on this golden set at chunk sizes {', '.join(map(str, DEFAULT_CHUNK_SIZES))} "
        "(everything else from the sidebar). The lesson: RSE finds passages without fixing the chunk size in "
        "advance, while top-k's context grows with the chunk size. Each size is scored once and cached; with "
        "minilm, the first run embeds the document at every size (a minute or more on a CPU)."
    )
    others = tuple((name, value) for name, value in inputs.params.to_dict().items() if name != "chunk_size")
    key = (golden.to_json(), inputs.scorer, inputs.scorer_options, others)
    memo = caching.memo_store("chunk_size_study", MEMO_ENTRIES)
    if key not in memo:
        if not st.button("Run the chunk-size study", key=keys.ChunkSize.RUN, icon=":material/straighten:"):
            return
        try:
            with st.spinner("Evaluating the golden set at every chunk size..."):
                memo[key] = _run(golden, inputs)
        except RSEError as error:
            st.error(md(error), icon=":material/error:")
            return
    rows = memo[key]
    st.plotly_chart(study_figure(rows), key=keys.ChunkSize.CHART, config=components.chart_config("chunk-size-study"))
    st.dataframe(
        [
            {
                "chunk size": row.chunk_size,
                "method": METHOD_LABELS.get(row.method, row.method),
                "recall": round(row.recall, 2),
                "full coverage": round(row.covered, 2),
                "characters": round(row.characters),
            }
            for row in rows
        ],
        key=keys.ChunkSize.TABLE,
        hide_index=True,
    )


def _run(golden: GoldenSet, inputs: state.Inputs) -> list[ChunkSizeRow]:
    """Every method at every size, pooled over the set's queries ("all" rows only)."""
    scorer = scorers.scorer_of(inputs, private=False)
    rows = chunk_size_study([golden], inputs.params, scorer, DEFAULT_CHUNK_SIZES)
    return [row for row in rows if row.kind == "all"]
