"""Chunk size as a study, drawn on the Evaluate page under the golden set's results.

Runs :func:`rse_core.evaluation.chunk_study.chunk_size_study` on the golden set chosen on Evaluate, at the
sidebar's scorer and parameters, for chunk sizes 200-1,600 (the minilm scorer caches embeddings
on disk per chunk text, so each size is embedded once). It only runs when asked (embedding a
document at 200 characters takes a while on a CPU) and is remembered per settings for the
session. Widget keys start with ``cs_``.
"""

from __future__ import annotations

import streamlit as st

from app_ui import caching, components, scorers, state
from app_ui.page_state import chunk_size as chunk_size_state
from app_ui.safe_text import md
from rse_core import RSEError
from rse_core.evaluation.chunk_study import DEFAULT_CHUNK_SIZES, ChunkSizeRow, chunk_size_study
from rse_core.evaluation.golden import GoldenSet
from rse_core.evaluation.metrics import METHOD_LABELS
from rse_core.figures.evaluation import study_figure

K = chunk_size_state.Keys

MEMO_ENTRIES = 4


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
        if not st.button("Run the chunk-size study", key=K.RUN, icon=":material/straighten:"):
            return
        try:
            with st.spinner("Evaluating the golden set at every chunk size..."):
                memo[key] = _run(golden, inputs)
        except RSEError as error:
            st.error(md(error), icon=":material/error:")
            return
    rows = memo[key]
    st.plotly_chart(study_figure(rows), key=K.CHART, config=components.chart_config("chunk-size-study"))
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
        key=K.TABLE,
        hide_index=True,
    )


def _run(golden: GoldenSet, inputs: state.Inputs) -> list[ChunkSizeRow]:
    """Every method at every size, pooled over the set's queries ("all" rows only)."""
    scorer = scorers.scorer_of(inputs, private=False)
    rows = chunk_size_study([golden], inputs.params, scorer, DEFAULT_CHUNK_SIZES)
    return [row for row in rows if row.kind == "all"]
