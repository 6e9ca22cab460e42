"""State of the Worked example's board modes (scores -> values, round-robin): their keys, what the
view reads, their defaults (the classroom's examples) and their callbacks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import streamlit as st

from rse_core.teaching.classroom import ROUND_ROBIN_EXAMPLE, SCORES_EXAMPLE


class Keys:
    """The widget and state keys of views/worked_board.py."""

    SCORES: Final = "we_board_scores"
    REVEAL: Final = "we_board_reveal"
    RR_STEP: Final = "we_rr_step"
    BOARD_TABLE: Final = "we_board_table"
    BOARD_LOOKUP: Final = "we_board_lookup"
    RR_NEXT: Final = "we_rr_next"
    RR_TABLE: Final = "we_rr_table"
    BETA_A: Final = "we_board_a"
    BETA_B: Final = "we_board_b"
    DECAY: Final = "we_board_decay"
    PENALTY: Final = "we_board_penalty"
    RR_FIRST: Final = "we_rr_first"
    RR_SECOND: Final = "we_rr_second"
    RR_MAX_LENGTH: Final = "we_rr_max_length"
    RR_OVERALL: Final = "we_rr_overall"
    RR_MINIMUM: Final = "we_rr_minimum"
    HOTKEYS: Final = "we_board_hotkeys"

    @staticmethod
    def rr_chart(query: int) -> str:
        return f"we_rr_chart_{query}"


DEFAULT_SCORES: Final = ", ".join(f"{score:g}" for score in SCORES_EXAMPLE.scores)
"""The classroom's raw-scores example: a cluster near 1 with a low chunk (4) inside, a gap after the values."""
DEFAULT_FIRST, DEFAULT_SECOND = (", ".join(f"{v:g}" for v in query) for query in ROUND_ROBIN_EXAMPLE.queries)
"""The classroom's round-robin example: query 2's best run is cut by query 1's first pick."""


@dataclass(frozen=True)
class BoardState:
    """What the board's widgets hold, typed."""

    scores_text: str
    beta_a: float
    beta_b: float
    decay_rate: float
    penalty: float
    revealed: int


def init() -> None:
    """Both modes' starting values, each set once per session (before the widgets are drawn)."""
    defaults = {
        Keys.SCORES: DEFAULT_SCORES,
        Keys.BETA_A: SCORES_EXAMPLE.params.beta_a,
        Keys.BETA_B: SCORES_EXAMPLE.params.beta_b,
        Keys.DECAY: SCORES_EXAMPLE.params.decay_rate,
        Keys.PENALTY: SCORES_EXAMPLE.params.irrelevant_chunk_penalty,
        Keys.REVEAL: 0,  # predict, then reveal: the class fills in the columns first
        Keys.RR_FIRST: DEFAULT_FIRST,
        Keys.RR_SECOND: DEFAULT_SECOND,
        Keys.RR_STEP: 0,  # turn 0: the class predicts query 1's pick before any is drawn
        Keys.RR_MAX_LENGTH: ROUND_ROBIN_EXAMPLE.max_length,
        Keys.RR_OVERALL: ROUND_ROBIN_EXAMPLE.overall_max_length,
        Keys.RR_MINIMUM: ROUND_ROBIN_EXAMPLE.minimum_value,
    }
    for key, value in defaults.items():
        st.session_state.setdefault(key, value)


def read_board() -> BoardState:
    state = st.session_state
    return BoardState(
        scores_text=str(state[Keys.SCORES]),
        beta_a=float(state[Keys.BETA_A]),
        beta_b=float(state[Keys.BETA_B]),
        decay_rate=float(state[Keys.DECAY]),
        penalty=float(state[Keys.PENALTY]),
        revealed=int(state[Keys.REVEAL]),
    )


def on_round_robin_change() -> None:
    """Callback of the round-robin's values and limits: the turns start again at turn 0 (predict)."""
    st.session_state[Keys.RR_STEP] = 0
