"""Evaluate, budget part: recall against characters sent, and auto-tune within a budget.

Thin: the curves come from :func:`rse_core.evaluation.curves.budget_curves`, the tuning from
:func:`rse_core.evaluation.tuning.tune`, both on the golden set's cached scores (``compute.scored_for``).
Applying the tuned setting writes the four sidebar sliders it changes.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app_ui import caching, components, compute, state
from app_ui.page_state import evaluate_budget as evaluate_budget_state
from app_ui.panels.params_export import render_params_export
from app_ui.safe_text import md
from rse_core import Document, RSEError, RSEParams
from rse_core.evaluation.curves import MAX_CHARACTERS, Curve, budget_curves
from rse_core.evaluation.golden import GoldenSet
from rse_core.evaluation.scored_sets import ScoredSet
from rse_core.evaluation.tuning import TunePoint, TuneResult, tune
from rse_core.figures.evaluation import budget_figure
from rse_core.handoff import HandOff
from rse_core.param_specs import PARAM_SPECS

K = evaluate_budget_state.Keys

TUNED_FIELDS = tuple(spec.name for spec in PARAM_SPECS if spec.tuned)


def equal_budget_table(scored: ScoredSet, curves: dict[str, list[Curve]], params: RSEParams) -> pd.DataFrame:
    """Per kind: RSE's recall and characters, top-k's and the window's recall at the same characters, areas."""
    from rse_core.evaluation.scored_sets import evaluate_scored

    summary = evaluate_scored(scored, params).summary()
    rows = []
    for kind, group in curves.items():
        by_method = {row["method"]: row for row in summary if row["kind"] == kind}
        areas = {curve.method: curve.area for curve in group}
        rows.append(
            {
                "kind": kind,
                "queries": by_method["rse"]["queries"],
                "RSE recall": by_method["rse"]["recall"],
                "top-k recall at RSE's characters": by_method["top_k_equal_budget"]["recall"],
                "window recall at RSE's characters": by_method["window_equal_budget"]["recall"],
                "characters": by_method["rse"]["characters"],
                "area RSE": areas["rse"],
                "area top-k": areas["top_k"],
                "area window": areas["window"],
            }
        )
    return pd.DataFrame(rows)


def _settings_key(golden: GoldenSet, inputs: state.Inputs) -> tuple:
    """What a tuning result depends on: the set, scorer and every parameter the tuner does not change."""
    untuned = tuple((name, value) for name, value in inputs.params.to_dict().items() if name not in TUNED_FIELDS)
    return (golden.document_name, tuple(q.id for q in golden.queries), inputs.scorer, inputs.scorer_options, untuned)


def render_budget(golden: GoldenSet, document: Document, inputs: state.Inputs) -> None:
    """The recall-vs-characters chart with the equal-budget table, and auto-tune."""
    st.subheader("Recall vs characters sent")
    st.caption(
        "Recall alone rewards sending more. Each point applies one setting to every query of this set: RSE "
        "over a sweep of the irrelevant chunk penalty (other parameters from the sidebar), top-k over k, and the "
        f"fixed window (each top-k hit with {inputs.params.window} neighbouring chunk(s) on each side) over k. The "
        f"area is the best recall reachable at each budget, averaged from 0 to {MAX_CHARACTERS:,} characters "
        "(1 = everything for free)."
    )
    try:
        scored = compute.scored_for(golden, document, inputs)
        curves = caching.session_memo(
            "budget_curves",
            (_settings_key(golden, inputs), inputs.params),
            lambda: budget_curves(scored, inputs.params),
            4,
        )
    except RSEError as error:
        st.error(md(error), icon=":material/error:")
        return
    kinds = list(curves)
    state.keep_choice(K.KIND, kinds, "all")
    kind = st.radio("Queries", kinds, key=K.KIND, horizontal=True)
    key = _settings_key(golden, inputs)
    tuned = evaluate_budget_state.tuned_for(key)
    current_curve = next(curve for curve in curves[kind] if curve.method == "rse")
    here = next((p for p in current_curve.points if p.setting == getattr(inputs.params, current_curve.parameter)), None)
    current = None if here is None else TunePoint(inputs.params, here.recall, here.characters)
    st.plotly_chart(
        budget_figure(curves[kind], current, tuned if kind == "all" else None),
        key=K.CHART,
        config=components.chart_config("recall_vs_characters"),
    )
    st.dataframe(
        equal_budget_table(scored, curves, inputs.params),
        hide_index=True,
        key=K.BUDGET_TABLE,
        column_config=components.number_columns(
            {
                "RSE recall": "%.2f",
                "top-k recall at RSE's characters": "%.2f",
                "window recall at RSE's characters": "%.2f",
                "characters": "%d",
                "area RSE": "%.3f",
                "area top-k": "%.3f",
                "area window": "%.3f",
            }
        ),
    )
    _render_tune(scored, key, inputs, tuned)


def budget_row(key: str, noun: str, help_text: str) -> tuple[int, DeltaGenerator]:
    """An auto-tune's character budget per ``noun`` (query, question), and the column beside it
    for its button."""
    budget_column, button_column = st.columns([2, 1], vertical_alignment="bottom")
    evaluate_budget_state.init_budget(key)
    budget = budget_column.number_input(
        f"Character budget per {noun} (mean)", min_value=500, max_value=50_000, step=500, key=key, help=help_text
    )
    return budget, button_column


def _render_tune(scored: ScoredSet, key: tuple, inputs: state.Inputs, tuned: TuneResult | None) -> None:
    st.subheader("Auto-tune")
    budget, run_column = budget_row(
        K.BUDGET,
        "query",
        "The best mean recall among penalty, minimum value, decay rate and max chunks per segment "
        "settings that send at most this many characters per query on average.",
    )
    if run_column.button("Auto-tune", key=K.TUNE, icon=":material/tune:", type="primary"):
        with st.spinner(f"Trying settings on {len(scored.cases)} queries..."):
            try:
                tuned = tune(scored, float(budget), inputs.params)
            except RSEError as error:
                st.error(md(error), icon=":material/error:")
                return
        evaluate_budget_state.keep_tuned(key, tuned)
        st.rerun()  # redraw the chart above with the winner on it
    if tuned is None:
        st.caption("Finds the setting with the best recall within the budget, from the scores already computed.")
        return
    if tuned.best is None:
        st.warning(md(tuned.message), icon=":material/warning:")
        return
    st.success(md(tuned.message), icon=":material/check_circle:")
    st.caption(
        f"This recall is measured on the {tuned.queries} queries it was tuned on, so it flatters the setting. "
        "For a fair figure, tune on one set and score on another: "
        "`python -m rse_core.evaluate samples --tune --budget 8000` reports the held-out sets."
    )
    st.button(
        "Apply to the sidebar",
        key=K.APPLY,
        icon=":material/check:",
        on_click=evaluate_budget_state.apply_tuned,
        args=(tuned.best.params, TUNED_FIELDS),
        help="Sets the penalty, minimum segment value, decay rate and max chunks per segment sliders.",
    )
    render_params_export(
        HandOff.of(tuned.best.params, scored.scorer), model="", calibration=scored.calibration.describe()
    )
