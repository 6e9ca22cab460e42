"""The beta and decay lookup values of a scores board, drawn where a class reads them by hand.

Shared by the board (Worked example → Board, beside its table) and the exercises
that start from scores (E08, E09), so both print the same numbers as the handout:
:func:`rse_core.teaching.board.board_lookups`, formatted by its own ``*_cells`` methods.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_ui.safe_text import md
from rse_core.teaching.board import BoardLookups


def render_lookups(lookups: BoardLookups, *, key: str) -> None:
    """The beta CDF of every score and the decay of every rank, side by side."""
    beta_column, decay_column = st.columns(2)
    with beta_column:
        _table(
            f"**beta.cdf of each score** ({md(lookups.shape_text)})",
            lookups.beta_cells(),
            ["score", "beta.cdf"],
            f"{key}_beta",
        )
    with decay_column:
        _table(
            f"**Decay of each rank** ({md(lookups.decay_text)})",
            lookups.decay_cells(),
            ["rank", "decay"],
            f"{key}_decay",
        )


def _table(heading: str, cells: list[tuple[str, str]], columns: list[str], key: str) -> None:
    """A heading over a two-column table tall enough to show every row."""
    st.markdown(heading)
    st.dataframe(pd.DataFrame(cells, columns=columns), key=key, hide_index=True, height=38 + 35 * len(cells))
