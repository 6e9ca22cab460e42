"""State of the Transform lab page: its keys (the page keeps no state of its own; a suggested
penalty moves the sidebar's slider, :func:`app_ui.page_state.sidebar_settings.apply_penalty`)."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/transform_lab.py."""

    QUERY: Final = "tl_query"
    STAGE: Final = "tl_stage"
    BETA: Final = "tl_beta"
    DECAY: Final = "tl_decay"
    HISTOGRAMS: Final = "tl_histograms"
    STAGE_CHART: Final = "tl_stage_chart"
    PREDICTION: Final = "tl_prediction"
    REVEAL: Final = "tl_reveal"
    PREDICT_RUN: Final = "tl_predict_run"
    PREDICT_BUNCHED: Final = "tl_predict_bunched"

    @staticmethod
    def apply_penalty(number: int) -> str:
        return f"tl_apply_penalty_{number}"
