"""State of the Lesson page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


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
