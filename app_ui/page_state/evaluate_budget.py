"""State of the EvaluateBudget page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/evaluate_budget.py."""

    KIND: Final = "ev_budget_kind"
    BUDGET: Final = "ev_tune_budget"
    TUNE: Final = "ev_tune_run"
    APPLY: Final = "ev_tune_apply"
    CHART: Final = "ev_budget_chart"
    RESULT: Final = "_ev_tune_result"  # (settings key, TuneResult) of the last auto-tune on this page
    BUDGET_TABLE: Final = "ev_budget_table"
