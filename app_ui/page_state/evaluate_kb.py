"""State of the EvaluateKB page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/evaluate_kb.py."""

    SET: Final = "ev_kb_set"
    RUN: Final = "ev_kb_run"
    KIND: Final = "ev_kb_kind"
    CHART: Final = "ev_kb_chart"
    TABLE: Final = "ev_kb_table"
    BUDGET: Final = "ev_kb_budget"
    TUNE: Final = "ev_kb_tune"
    APPLY: Final = "ev_kb_apply"
    RESULT: Final = "_ev_kb_result"  # (run key, KBEvaluation) of the last run on this page
    TUNED: Final = "_ev_kb_tuned"  # (run key, budget, KBTuneResult) of the last auto-tune
