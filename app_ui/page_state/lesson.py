"""State of the Lesson page: its keys, the section and the explained chunk the view reads, and
their defaults."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import streamlit as st


class Keys:
    """The widget and state keys of views/lesson.py."""

    CHART: Final = "ls_chart"
    MEASURED: Final = "ls_measured"
    SECTION: Final = "ls_section"
    OBJECTIVE_CHART: Final = "ls_objective_chart"
    STEP: Final = "ls_step"
    STEP_NEXT: Final = "ls_step_next"
    STEP_CHART: Final = "ls_step_chart"
    HOTKEYS: Final = "ls_hotkeys"
    HEADERS_TABLE: Final = "ls_headers_table"
    EXPLAIN_CHUNK: Final = "ls_explain_chunk"


FIRST_SECTION: Final = "cluster"
"""The section presenter mode opens on."""


@dataclass(frozen=True)
class LessonState:
    """The section presenter mode shows, and the chunk the explain panel beside the chart explains."""

    section: str
    explain_chunk: int | None


def init_section() -> None:
    """Presenter mode's section, once per session (before its control is drawn)."""
    st.session_state.setdefault(Keys.SECTION, FIRST_SECTION)


def init_explain_chunk(first_gap: int) -> None:
    """The chunk to explain first: the cluster's first gap (before its number box is drawn)."""
    st.session_state.setdefault(Keys.EXPLAIN_CHUNK, first_gap)


def read() -> LessonState:
    chunk = st.session_state.get(Keys.EXPLAIN_CHUNK)
    return LessonState(
        section=st.session_state.get(Keys.SECTION) or FIRST_SECTION,
        explain_chunk=None if chunk is None else int(chunk),
    )
