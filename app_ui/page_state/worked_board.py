"""State of the WorkedBoard page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


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
