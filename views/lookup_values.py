"""The beta and decay lookup values of a scores board, drawn where a class reads them by hand.

Shared by the board (Worked example → Board, its "Lookup values" expander) and the exercises
that start from scores (E08, E09), so both print the same numbers as the handout:
:func:`rse_core.teaching.board.board_lookups`, formatted by its own ``*_cells`` methods.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_ui.page_state.worked_board import BoardState
from app_ui.safe_text import md
from rse_core.teaching.board import BoardLookups, board_lookups
from rse_core.teaching.course import COURSE_PARAMS


def render_lookups(lookups: BoardLookups, *, key: str) -> None:
    """The beta CDF of every score and the decay of every rank, side by side."""
    beta_column, decay_column = st.columns(2)
    with beta_column:
        st.markdown(f"**beta.cdf of each score** ({md(lookups.shape_text)})")
        cells = lookups.beta_cells()
        st.dataframe(
            pd.DataFrame(cells, columns=["score", "beta.cdf"]),
            key=f"{key}_beta",
            hide_index=True,
            height=38 + 35 * len(cells),
        )
    with decay_column:
        st.markdown(f"**Decay of each rank** ({md(lookups.decay_text)})")
        cells = lookups.decay_cells()
        st.dataframe(
            pd.DataFrame(cells, columns=["rank", "decay"]),
            key=f"{key}_decay",
            hide_index=True,
            height=38 + 35 * len(cells),
        )


def render_board_lookups(scores: list[float], board: BoardState, *, key: str) -> None:
    """The board's "Lookup values" expander: every score's beta CDF and every rank's decay, under the
    board's own beta shape and decay rate."""
    params = COURSE_PARAMS.with_changes(
        beta_a=board.beta_a, beta_b=board.beta_b, decay_rate=board.decay_rate, irrelevant_chunk_penalty=board.penalty
    )
    with st.expander("Lookup values: beta.cdf of every score on the board, exp(−rank/decay) of every rank"):
        st.caption("Computed by the app's own value functions, to 3 decimals: enough to fill in the board by hand.")
        render_lookups(board_lookups(scores, params), key=key)
