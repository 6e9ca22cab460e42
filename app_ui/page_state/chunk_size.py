"""State of the ChunkSize page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/chunk_size.py."""

    RUN: Final = "cs_run"
    CHART: Final = "cs_chart"
    TABLE: Final = "cs_table"
