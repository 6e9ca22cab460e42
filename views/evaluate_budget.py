"""Evaluate, budget part: recall against characters sent, and auto-tune within a budget.

Thin: the curves come from :func:`rse_core.evaluation.curves.budget_curves`, the tuning from
:func:`rse_core.evaluation.tuning.tune`, both on the golden set's cached scores (``compute.scored_for``).
Applying the tuned setting writes the four sidebar sliders it changes.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app_ui import caching, components, compute, keys, state
from app_ui.panels.params_export import render_params_export
from app_ui.safe_text import md
from rse_core import Document, RSEError, RSEParams
from rse_core.evaluation.curves import MAX_CHARACTERS, Curve, budget_curves
from rse_core.evaluation.golden import GoldenSet
from rse_core.evaluation.scored_sets import ScoredSet
from rse_core.evaluation.tuning import TunePoint, TuneResult, tune
from rse_core.figures.style import PALETTE

TUNED_FIELDS = ("irrelevant_chunk_penalty", "minimum_value", "decay_rate", "max_length")
CURVE_STYLE = {
    "rse": ("RSE, penalty sweep", PALETTE.segment),
    "top_k": ("top-k, k = 1-20", PALETTE.top_k),
    "window": ("fixed window, k = 1-20", "#7c3aed"),
}


def budget_figure(curves: list[Curve], current: TunePoint | None = None, tuned: TuneResult | None = None) -> go.Figure:
    """Recall vs characters: one line per method (area in its name), the current and tuned settings."""
    figure = go.Figure()
    for curve in curves:
        name, color = CURVE_STYLE.get(curve.method, (curve.method, "#64748b"))
        setting = "penalty" if curve.method == "rse" else "k"
        figure.add_trace(
            go.Scatter(
                x=[p.characters for p in curve.points],
                y=[p.recall for p in curve.points],
                customdata=[p.setting for p in curve.points],
                mode="lines+markers",
                line={"color": color, "width": 2, "shape": "linear"},
                marker={"size": 6},
                name=f"{name} (area {curve.area:.3f})",
                hovertemplate=f"{setting} %{{customdata:g}}<br>%{{x:,.0f}} characters"
                "<br>recall %{y:.2f}<extra></extra>",
            )
        )
    if current is not None:
        figure.add_trace(_marker(current, "Sidebar setting", "circle-open", "#0f172a", 14))
    if tuned is not None and tuned.best is not None:
        figure.add_trace(_marker(tuned.best, "Auto-tuned", "star", "#16a34a", 16))
        figure.add_vline(
            x=tuned.budget,
            line={"dash": "dash", "color": "#16a34a", "width": 1},
            annotation_text=f"budget {tuned.budget:,.0f}",
            annotation_position="top left",
        )
    figure.add_vline(
        x=MAX_CHARACTERS,
        line={"dash": "dot", "color": "#94a3b8", "width": 1},
        annotation_text="area up to here",
        annotation_position="bottom right",
        annotation_font_color="#64748b",
    )
    figure.update_layout(
        height=380,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"title": "characters sent per query (mean)", "rangemode": "tozero", "tickformat": ",d"},
        yaxis={"title": "recall (mean)", "range": [0, 1.05]},
        legend={"orientation": "h", "y": -0.22},
    )
    return figure


def _marker(point: TunePoint, name: str, symbol: str, color: str, size: int) -> go.Scatter:
    p = point.params
    text = (
        f"{name}<br>penalty {p.irrelevant_chunk_penalty:g}, minimum {p.minimum_value:g}, decay {p.decay_rate:g}, "
        f"max chunks {p.max_length}<br>%{{x:,.0f}} characters, recall %{{y:.2f}}<extra></extra>"
    )
    return go.Scatter(
        x=[point.characters],
        y=[point.recall],
        mode="markers",
        marker={"symbol": symbol, "size": size, "color": color, "line": {"width": 2, "color": color}},
        name=name,
        hovertemplate=text,
    )


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
    untuned = replace(inputs.params, irrelevant_chunk_penalty=0.0, minimum_value=0.0, decay_rate=1.0, max_length=1)
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
    state.keep_choice(keys.EvaluateBudget.KIND, kinds, "all")
    kind = st.radio("Queries", kinds, key=keys.EvaluateBudget.KIND, horizontal=True)
    key = _settings_key(golden, inputs)
    stored = st.session_state.get(keys.EvaluateBudget.RESULT)
    tuned: TuneResult | None = stored[1] if stored and stored[0] == key else None
    current_curve = next(curve for curve in curves[kind] if curve.method == "rse")
    here = next((p for p in current_curve.points if p.setting == inputs.params.irrelevant_chunk_penalty), None)
    current = None if here is None else TunePoint(inputs.params, here.recall, here.characters)
    st.plotly_chart(
        budget_figure(curves[kind], current, tuned if kind == "all" else None),
        key=keys.EvaluateBudget.CHART,
        config=components.chart_config("recall_vs_characters"),
    )
    st.dataframe(
        equal_budget_table(scored, curves, inputs.params),
        hide_index=True,
        key=keys.EvaluateBudget.BUDGET_TABLE,
        column_config={
            name: st.column_config.NumberColumn(name, format=fmt)
            for name, fmt in (
                ("RSE recall", "%.2f"),
                ("top-k recall at RSE's characters", "%.2f"),
                ("window recall at RSE's characters", "%.2f"),
                ("characters", "%d"),
                ("area RSE", "%.3f"),
                ("area top-k", "%.3f"),
                ("area window", "%.3f"),
            )
        },
    )
    _render_tune(scored, key, inputs, tuned)


def _render_tune(scored: ScoredSet, key: tuple, inputs: state.Inputs, tuned: TuneResult | None) -> None:
    st.subheader("Auto-tune")
    budget_column, run_column = st.columns([2, 1], vertical_alignment="bottom")
    if keys.EvaluateBudget.BUDGET not in st.session_state:
        st.session_state[keys.EvaluateBudget.BUDGET] = 8000
    budget = budget_column.number_input(
        "Character budget per query (mean)",
        min_value=500,
        max_value=50_000,
        step=500,
        key=keys.EvaluateBudget.BUDGET,
        help="The best mean recall among penalty, minimum value, decay rate and max chunks per segment "
        "settings that send at most this many characters per query on average.",
    )
    if run_column.button("Auto-tune", key=keys.EvaluateBudget.TUNE, icon=":material/tune:", type="primary"):
        with st.spinner(f"Trying settings on {len(scored.cases)} queries..."):
            try:
                tuned = tune(scored, float(budget), inputs.params)
            except RSEError as error:
                st.error(md(error), icon=":material/error:")
                return
        st.session_state[keys.EvaluateBudget.RESULT] = (key, tuned)
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
        key=keys.EvaluateBudget.APPLY,
        icon=":material/check:",
        on_click=apply_tuned,
        args=(tuned.best.params,),
        help="Sets the penalty, minimum segment value, decay rate and max chunks per segment sliders.",
    )
    render_params_export(tuned.best.params, scorer=scored.scorer, model="", calibration=scored.calibration.describe())


def apply_tuned(params: RSEParams) -> None:
    """Callback: set the four tuned sliders and mark the preset as matching (or custom)."""
    for field in TUNED_FIELDS:
        spec = state.SLIDER_BY_FIELD[field]
        value = spec.clamp(getattr(params, field))
        st.session_state[keys.PARAM_KEYS[field]] = int(value) if field == "max_length" else float(value)
    st.session_state[keys.PRESET] = state.matching_preset(state.read_params())
