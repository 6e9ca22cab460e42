"""State of the class plan: the block the class is on, and staging a block's page before it opens.

Staging means: presenter mode on, the page's section or mode chosen, and every step-through of
that page back at its prediction (no pick drawn, no column revealed, the answer hidden), so the
teacher opens each block with the class still to predict.
"""

from __future__ import annotations

from typing import Final

import streamlit as st

from rse_core.teaching.class_plan import CLASS_PLAN, Block
from rse_core.teaching.classroom import EXAMPLES

from .. import keys
from . import lesson, page_request, worked_board, worked_example


class Keys:
    """The widget and state keys of views/class_plan.py and the presenter bar's block controls."""

    BLOCK: Final = "cp_block"  # the index of the block the class is on; absent before the class starts
    OPEN: Final = "cp_open"  # prefix of each block's Open button
    NEXT: Final = "cp_next"
    START: Final = "cp_start"


def current() -> int | None:
    """The block the class is on, or ``None`` when no block was opened from the plan."""
    index = st.session_state.get(Keys.BLOCK)
    return int(index) if index is not None and 0 <= int(index) < len(CLASS_PLAN) else None


def _stage(block: Block) -> None:
    """The block's page at its first, unrevealed screen (only state keys; the page draws the rest)."""
    state = st.session_state
    state[keys.PRESENT] = True
    if block.page == "lesson":
        state[lesson.Keys.SECTION] = block.view or lesson.FIRST_SECTION
        state[lesson.Keys.STEP] = 0
    elif block.page == "worked-example":
        worked_example.init()
        state[worked_example.Keys.MODE] = block.view or "segments"
        if block.example in EXAMPLES:
            state[worked_example.Keys.EXAMPLE] = block.example
            worked_example.on_example_change()  # its values and limits; turn 0, answer hidden
        state[worked_example.Keys.STEP] = 0
        state[worked_example.Keys.REVEAL] = False
        state[worked_example.Keys.RUNS_REVEAL] = 0
        worked_board.init()
        state[worked_board.Keys.REVEAL] = 0
        state[worked_board.Keys.RR_STEP] = 0


def open_block(index: int) -> None:
    """Callback of a block's Open button and of "Next block": stage the block and open its page."""
    index = min(max(index, 0), len(CLASS_PLAN) - 1)
    st.session_state[Keys.BLOCK] = index
    block = CLASS_PLAN[index]
    _stage(block)
    page_request.request(block.page)


def next_block() -> None:
    """Callback of "Next block": the block after the current one (the first, before the class starts)."""
    index = current()
    open_block(0 if index is None else index + 1)
