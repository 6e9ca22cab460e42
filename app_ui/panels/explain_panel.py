"""Explain one chunk: its text, pages, value stages, why it is in or out, and the penalty that flips it.

``render_explain_panel(result, chunk_index)`` draws into the current container; a page calls it
with the chunk the user clicked (Explore keeps it: :func:`app_ui.page_state.explore.valid_selection`).
The threshold comes from :func:`rse_core.teaching.explain_chunk` (scanned, bisected to 1e-4 and
verified with ``run_rse``) with the first value on the penalty slider's 0.01 grid that flips the
chunk (``explanation.applied``, also verified). The panel names both; "Apply penalty X" applies
exactly the X it shows, so the user sees the chunk change sides. Ranks count from 0 (best =
rank 0), as in the value formula. Widget keys start with ``xp_``.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import streamlit as st

from rse_core import ExtractionResult, RSEError, run_rse
from rse_core.teaching import ChunkExplanation, explain_chunk
from rse_core.teaching.chunk_explain import format_penalty

from .. import caching, keys
from ..page_state import sidebar_settings
from ..safe_text import md

if TYPE_CHECKING:
    import pandas as pd

CACHE_ENTRIES = 16
SLIDER_STEP = 0.01


def explanation_for(result: ExtractionResult, chunk_index: int) -> ChunkExplanation:
    """``explain_chunk`` for this result, cached per session (a scan is ~100 searches)."""
    return caching.session_memo(
        "explain",
        (result.settings_key, chunk_index),
        lambda: explain_chunk(
            result.corpus,
            result.queries,
            [values.raw for values in result.values],
            result.params,
            result.calibration,
            chunk_index,
        ),
        CACHE_ENTRIES,
    )


def in_segment_at(result: ExtractionResult, chunk_index: int, penalty: float) -> bool:
    """Whether RSE puts the chunk in a segment at this penalty, everything else as in ``result``."""
    rerun = run_rse(
        result.corpus,
        result.queries,
        [values.raw for values in result.values],
        result.params.with_changes(irrelevant_chunk_penalty=penalty),
        result.calibration,
    )
    return any(segment.start <= chunk_index < segment.end for segment in rerun.segments)


def penalty_to_apply(result: ExtractionResult, explanation: ChunkExplanation) -> float | None:
    """The slider value that flips the chunk: the one the explanation's message names
    (``explanation.applied``: the first value on the slider's 0.01 grid past the threshold,
    verified in the core)."""
    return explanation.applied


def stage_table(result: ExtractionResult, chunk_index: int) -> pd.DataFrame:
    """One row per query: every stage of the chunk's value."""
    import pandas as pd  # here, not at the top: the first screen never needs it (~0.25 s)

    params = result.params
    rows = []
    for number, values in enumerate(result.values, 1):
        decayed = float(values.transformed[chunk_index] * values.decay[chunk_index])
        row = {
            "raw score": float(values.raw[chunk_index]),
            "calibrated": float(values.calibrated[chunk_index]),
            "beta-transformed": float(values.transformed[chunk_index]),
            "rank (best = 0)": int(values.rank[chunk_index]),
            "decay exp(−rank/decay)": float(values.decay[chunk_index]),
            "beta × decay": decayed,
            f"− penalty {params.irrelevant_chunk_penalty:g}": decayed - params.irrelevant_chunk_penalty,
            "value": float(values.value[chunk_index]),
        }
        if params.chunk_length_adjustment:
            row["length factor"] = float(values.length_factor[chunk_index])
        if len(result.values) > 1:
            row = {"query": number, **row}
        rows.append(row)
    return pd.DataFrame(rows)


def render_explain_panel(result: ExtractionResult, chunk_index: int) -> None:
    """Draw the explanation of corpus chunk ``chunk_index`` of ``result``."""
    n = len(result.corpus.chunks)
    if not isinstance(chunk_index, int) or not 0 <= chunk_index < n:
        st.info("Click a bar of the chart to see why that chunk is in or out.")
        return
    chunk = result.corpus.chunks[chunk_index]
    document = result.corpus.document_of(chunk_index)
    st.html(
        '<div class="xp-head" style="font-size:1.1em;font-weight:600;margin-bottom:0.2em">'
        f"Chunk {chunk.index} · {html.escape(chunk.pages)} · {html.escape(document.title)}</div>"
    )
    if chunk.header:
        st.html(
            '<div class="xp-header" style="color:#555;margin-bottom:0.4em">'
            f"Scored with the header: <b>{html.escape(chunk.header)}</b> (used only for scoring; "
            "not part of the text sent)</div>"
        )
    try:
        explanation = explanation_for(result, chunk_index)
    except RSEError as error:
        st.error(f"This chunk cannot be explained: {md(error)}", icon=":material/error:")
        return
    message = explanation.message[0].upper() + explanation.message[1:]
    message = md(message if message.endswith(".") else message + ".")
    if explanation.in_segment:
        st.success(message, icon=":material/check_circle:")
    else:
        st.info(message, icon=":material/do_not_disturb_on:")
    apply = penalty_to_apply(result, explanation)
    if apply is not None:
        _render_flip(explanation, apply)
    stages = stage_table(result, chunk_index)
    st.dataframe(
        stages,
        key=keys.EXPLAIN_STAGES,
        hide_index=True,
        column_config={
            column: st.column_config.NumberColumn(format="%d" if column in ("rank (best = 0)", "query") else "%.3f")
            for column in stages.columns
        },
    )
    st.html(f'<div class="rse-text">{html.escape(chunk.text)}</div>')


def _render_flip(explanation: ChunkExplanation, apply: float) -> None:
    """The penalty at which the chunk changes sides, and a button that applies it."""
    change = "drops out" if explanation.in_segment else "joins a segment"
    step = SLIDER_STEP if apply > explanation.penalty else -SLIDER_STEP
    before = round(apply - step, 2)
    not_yet = (
        f" (at {before:.2f} it has not yet)"
        if min(explanation.penalty, apply) < before < max(explanation.penalty, apply)
        else ""
    )
    st.caption(
        f"Exact threshold {format_penalty(explanation.threshold)} (bisected to 0.0001). The penalty slider moves "
        f"in steps of {SLIDER_STEP:g}: the smallest step at which the chunk {change} is {apply:.2f}{not_yet}."
    )
    st.button(
        f"Apply penalty {apply:.2f}",
        key=keys.EXPLAIN_APPLY_PENALTY,
        on_click=sidebar_settings.apply_penalty,
        args=(apply,),
        icon=":material/tune:",
        help="Sets the sidebar's irrelevant chunk penalty to exactly this value, so you can watch the chunk "
        "change sides.",
    )
