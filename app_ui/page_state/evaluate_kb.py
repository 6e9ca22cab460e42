"""State of Evaluate's knowledge-base section: its keys, the last run and auto-tune the view reads
(each kept with the settings it was computed at), and the callback that applies a tuned setting
on the Knowledge base page. Its budget starts as the equal-budget section's
(:func:`app_ui.page_state.evaluate_budget.init_budget`)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final

import streamlit as st

from rse_core import RSEParams
from rse_core.evaluation.kb_eval import KBEvaluation
from rse_core.evaluation.kb_tuning import KBTuneResult

from . import knowledge_base, page_request


class Keys:
    """The widget and state keys of views/evaluate_kb.py."""

    SET: Final = "ev_kb_set"
    RUN: Final = "ev_kb_run"
    KIND: Final = "ev_kb_kind"
    CHART: Final = "ev_kb_chart"
    TABLE: Final = "ev_kb_table"
    EQUAL_TABLE: Final = "ev_kb_equal_table"
    BUDGET: Final = "ev_kb_budget"
    TUNE: Final = "ev_kb_tune"
    APPLY: Final = "ev_kb_apply"
    RESULT: Final = "_ev_kb_result"  # (run key, KBEvaluation) of the last run on this page
    TUNED: Final = "_ev_kb_tuned"  # (run key, budget, KBTuneResult) of the last auto-tune


def last_run() -> tuple[Hashable, KBEvaluation] | None:
    """The last run's settings (set, parameters) and its evaluation, whatever the settings now."""
    return st.session_state.get(Keys.RESULT)


def keep_run(settings: Hashable, evaluation: KBEvaluation) -> None:
    """Keep a run's evaluation; an auto-tune of an earlier run no longer applies."""
    st.session_state[Keys.RESULT] = (settings, evaluation)
    st.session_state.pop(Keys.TUNED, None)


def tuned_for(settings: Hashable, budget: float) -> KBTuneResult | None:
    """The last auto-tune, if it was run for this run's settings and this budget."""
    stored = st.session_state.get(Keys.TUNED)
    return stored[2] if stored and stored[0] == settings and stored[1] == budget else None


def keep_tuned(settings: Hashable, budget: float, tuned: KBTuneResult) -> None:
    st.session_state[Keys.TUNED] = (settings, budget, tuned)


def apply_on_kb_page(params: RSEParams, documents_selected: int) -> None:
    """Callback of "Apply on the Knowledge base page": the tuned setting becomes that page's, which opens."""
    knowledge_base.apply_tuned(params, documents_selected)
    page_request.request("Knowledge base")
