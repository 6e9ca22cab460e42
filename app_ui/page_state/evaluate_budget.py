"""State of Evaluate's equal-budget section: its keys, the last auto-tune the view reads, the
budget's default, and the callback that applies a tuned setting to the sidebar."""

from __future__ import annotations

from collections.abc import Collection, Hashable
from typing import Final

import streamlit as st

from rse_core import RSEParams
from rse_core.evaluation.tuning import TuneResult

from . import sidebar_settings


class Keys:
    """The widget and state keys of views/evaluate_budget.py."""

    KIND: Final = "ev_budget_kind"
    BUDGET: Final = "ev_tune_budget"
    TUNE: Final = "ev_tune_run"
    APPLY: Final = "ev_tune_apply"
    CHART: Final = "ev_budget_chart"
    RESULT: Final = "_ev_tune_result"  # (settings key, TuneResult) of the last auto-tune on this page
    BUDGET_TABLE: Final = "ev_budget_table"


DEFAULT_BUDGET: Final = 8000
"""Characters per query the auto-tune starts from."""


def init_budget(key: str) -> None:
    """An auto-tune's budget (this section's, or the knowledge-base section's), once per session,
    before its box is drawn."""
    st.session_state.setdefault(key, DEFAULT_BUDGET)


def tuned_for(settings: Hashable) -> TuneResult | None:
    """The last auto-tune, if it was run at these settings (set, scorer, parameters)."""
    stored = st.session_state.get(Keys.RESULT)
    return stored[1] if stored and stored[0] == settings else None


def keep_tuned(settings: Hashable, tuned: TuneResult) -> None:
    """Keep an auto-tune's result for the settings it was run at."""
    st.session_state[Keys.RESULT] = (settings, tuned)


def apply_tuned(params: RSEParams, fields: Collection[str]) -> None:
    """Callback of "Apply to the sidebar": the tuned ``fields`` of ``params`` into the sidebar's
    sliders (within their ranges), the preset they match (or custom)."""
    sidebar_settings.set_sidebar_params(**{field: getattr(params, field) for field in fields})
