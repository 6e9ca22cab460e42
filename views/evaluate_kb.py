"""Evaluate, knowledge-base part: a set's questions asked of one whole knowledge base, on request.

Thin: the sets and their cached first stages come from :mod:`app_ui.kb_evaluation`, the scores
and curves from :func:`rse_core.evaluation.kb_eval.evaluate_kb` (the numbers equal
``python -m rse_core.evaluate samples-kb``'s), the targets from
:mod:`rse_core.evaluation.retrieval_targets`, auto-tune from
:func:`rse_core.evaluation.kb_tuning.tune_kb`. It runs at the Knowledge base page's settings, and
a tuned setting goes back to that page.
"""

from __future__ import annotations

import logging

import pandas as pd
import streamlit as st

from app_ui import components, kb_evaluation, state, widgets
from app_ui import knowledge_bases as kbs
from app_ui.page_state import evaluate_kb as evaluate_kb_state
from app_ui.page_state import knowledge_base as kb_state
from app_ui.safe_text import md
from rse_core import RSEError, RSEParams
from rse_core.evaluation.curves import MAX_CHARACTERS
from rse_core.evaluation.kb_eval import BUDGETS, METHOD_LABELS, KBEvaluation, budget_cell
from rse_core.evaluation.kb_tuning import KBTuneResult, tune_kb
from rse_core.evaluation.retrieval_targets import check_kb_targets
from rse_core.evaluation.tuning import TunePoint
from rse_core.figures.evaluation import budget_figure
from rse_core.kb import KBQueryParams
from views.evaluate_budget import budget_row

K = evaluate_kb_state.Keys
LOGGER = logging.getLogger(__name__)
COLUMNS = {  # summary field -> (column label, number format)
    "questions": ("questions", "%d"),
    "rse_characters": ("characters", "localized"),
    "rse_recall": ("RSE recall", "%.2f"),
    "top_k_recall": ("top-k recall at RSE's chars", "%.2f"),
    "rse_page_hit": ("RSE page hit", "%.2f"),
    "top_k_page_hit": ("top-k page hit at RSE's chars", "%.2f"),
    "area_rse": ("area RSE", "%.3f"),
    "area_top_k": ("area top-k", "%.3f"),
    "rse_first_in_document": ("RSE 1st in right document", "%.2f"),
    "window_recall": ("window recall at RSE's chars", "%.2f"),
    "window_page_hit": ("window page hit at RSE's chars", "%.2f"),
    "area_window": ("area window", "%.3f"),
}


def render_kb_evaluation() -> None:
    st.subheader("Over a knowledge base")
    st.caption(
        "Every question goes to one whole knowledge base, as in production: the first stage picks the documents, "
        "RSE runs over them, and top-k and the fixed window get RSE's characters question by question."
    )
    offered = kb_evaluation.offered()
    state.keep_choice(K.SET, list(offered), kb_evaluation.SAMPLES)
    pick, run = st.columns([3, 1], vertical_alignment="bottom")
    name = pick.selectbox("Knowledge-base set", list(offered), format_func=offered.__getitem__, key=K.SET)
    params, kb_params = kb_state.saved_settings()
    st.caption(md(_settings_line(params, kb_params)))
    missing = kb_evaluation.not_offered()
    if missing:
        st.caption(md("Not offered until built on the server: " + "; ".join(missing) + "."))
    run_key = (name, params, kb_params)
    if run.button("Run", key=K.RUN, icon=":material/play_arrow:", type="primary"):
        _run(name, params, kb_params, run_key)
    stored = evaluate_kb_state.last_run()
    if stored is None or stored[0] != run_key:
        st.caption(
            "Press **Run** to ask this set's questions of its base"
            + (" again: the settings changed since the last run." if stored else ".")
        )
        return
    _render_result(stored[1], name, run_key)


def _settings_line(params: RSEParams, kb_params: KBQueryParams) -> str:
    return (
        f"Settings: first stage {kb_params.first_stage.value}, top {kb_params.top_n} hits, "
        f"{kb_params.selection}, ranks "
        f"{'across' if kb_params.rank_across_documents else 'within'} documents; penalty "
        f"{params.irrelevant_chunk_penalty:g}, decay {params.decay_rate:g}, minimum {params.minimum_value:g}, "
        f"max {params.max_length} chunks per segment, {params.overall_max_length} overall. "
        "Change them on the Knowledge base page."
    )


def _run(name: str, params: RSEParams, kb_params: KBQueryParams, run_key: tuple) -> None:
    try:
        with widgets.progress_bar("Opening the knowledge base...") as bar:
            chosen = kb_evaluation.open_set(name, bar)
            cases = kb_evaluation.cases(chosen, kb_params, bar)
        with st.spinner(f"Scoring {len(cases)} questions and drawing the curves..."):
            evaluation = kb_evaluation.evaluation(chosen, cases, kbs.rse_params_for(chosen.base, params), kb_params)
    except (KeyError, RSEError, OSError):
        LOGGER.exception("knowledge-base evaluation %s failed", name)
        st.error(
            f"The {kb_evaluation.LABELS.get(name, name)} evaluation could not run (the server log says why).",
            icon=":material/error:",
        )
        return
    evaluate_kb_state.keep_run(run_key, evaluation)


def _render_result(evaluation: KBEvaluation, name: str, run_key: tuple) -> None:
    overall = evaluation.summary("all")
    columns = st.columns(4)
    columns[0].metric(
        "RSE recall",
        f"{overall['rse_recall']:.2f}",
        f"{overall['rse_recall'] - overall['top_k_recall']:+.2f} vs top-k",
        help="Share of the gold characters sent; top-k is given RSE's characters question by question.",
    )
    columns[1].metric(
        "Gold-page hit",
        f"{overall['rse_page_hit']:.2f}",
        f"{overall['rse_page_hit'] - overall['top_k_page_hit']:+.2f} vs top-k",
        help="Share of a question's gold pages that a segment touches.",
    )
    columns[2].metric("Characters per question", f"{overall['rse_characters']:,.0f}")
    columns[3].metric(
        "Area RSE / top-k",
        f"{overall.get('area_rse', 0.0):.3f} / {overall.get('area_top_k', 0.0):.3f}",
        help=f"Under recall vs characters, 0 to {MAX_CHARACTERS:,} characters (the chart below).",
    )
    kinds = [*evaluation.kinds(), "all"]
    state.keep_choice(K.KIND, kinds, "all")
    kind = st.radio("Questions", kinds, key=K.KIND, horizontal=True)
    row = evaluation.summary(kind)
    current = TunePoint(evaluation.params, float(row["rse_recall"]), float(row["rse_characters"]))
    st.plotly_chart(
        budget_figure(evaluation.curves.get(kind, []), current, current_label="Knowledge base page's setting"),
        key=K.CHART,
        config=components.chart_config("kb_recall_vs_characters"),
    )
    st.caption(
        "Recall vs characters over the base: RSE over a sweep of the penalty, top-k and the window over k; the "
        f"area is the best recall reachable at each budget, averaged from 0 to {MAX_CHARACTERS:,} characters."
    )
    table = pd.DataFrame(
        [
            {"type": row["kind"], **{label: _cell(field, row.get(field)) for field, (label, _) in COLUMNS.items()}}
            for row in evaluation.rows()
        ]
    )
    st.dataframe(
        table,
        hide_index=True,
        key=K.TABLE,
        column_config={label: st.column_config.NumberColumn(label, format=fmt) for label, fmt in COLUMNS.values()},
    )
    _render_at_budgets(evaluation, kind)
    targets = check_kb_targets(evaluation, name)
    st.caption(
        "The project's targets over a knowledge base: "
        + "; ".join(f"{'met' if c.met else 'missed'}: {md(c.target)} ({md(c.measured)})" for c in targets)
    )
    _render_tune(evaluation, run_key)


def _render_at_budgets(evaluation: KBEvaluation, kind: str) -> None:
    """The methods at equal characters (:meth:`KBEvaluation.at_budgets`), for the chosen question type."""
    rows = evaluation.at_budgets(BUDGETS, kind)
    table = pd.DataFrame(
        [
            {
                "method": METHOD_LABELS[str(row["method"])],
                **{f"page hit / recall ≤ {n:,} chars": budget_cell(row, n) for n in BUDGETS},
            }
            for row in rows
        ]
    )
    st.dataframe(table, hide_index=True, key=K.EQUAL_TABLE)
    st.caption(
        "At equal characters: each method's best gold-page hit / recall among its settings (RSE over the "
        "penalty, top-k and the window over k) that send at most that many characters a question on average."
    )


def _cell(field: str, value: object) -> object:
    """A summary value as the table shows it (characters as a whole number)."""
    return round(float(value)) if field == "rse_characters" and value is not None else value


def _render_tune(evaluation: KBEvaluation, run_key: tuple) -> None:
    st.markdown("**Auto-tune over the base**")
    budget, run_column = budget_row(
        K.BUDGET,
        "question",
        "The most gold pages touched among penalty, decay, max chunks, minimum value and documents-selected "
        "settings that send at most this many characters per question, tuned on half the documents' questions "
        "and scored on the other half.",
    )
    if run_column.button("Auto-tune", key=K.TUNE, icon=":material/tune:"):
        chosen = kb_evaluation.open_set(run_key[0])
        with st.spinner(f"Trying settings on {len(evaluation.cases)} questions..."):
            tuned = tune_kb(chosen.base.kb, evaluation.cases, evaluation.params, float(budget))
        evaluate_kb_state.keep_tuned(run_key, float(budget), tuned)
    tuned = evaluate_kb_state.tuned_for(run_key, float(budget))
    if tuned is not None:
        _render_tuned(tuned)


def _render_tuned(tuned: KBTuneResult) -> None:
    rows = []
    for label, setting in (
        ("the Knowledge base page's settings, held-out half", tuned.default_held),
        ("tuned, on the tuning half", tuned.best),
        ("tuned, held-out half", tuned.best_held),
    ):
        if setting is None:
            continue
        p = setting.params
        rows.append(
            {
                "setting": label,
                "page hit": setting.page_hit,
                "top-k page hit at its chars": setting.top_k_page_hit,
                "recall": setting.recall,
                "characters": round(setting.characters),
                "penalty": p.irrelevant_chunk_penalty,
                "decay": p.decay_rate,
                "max chunks": p.max_length,
                "minimum": p.minimum_value,
                "documents": setting.documents_selected,
            }
        )
    if tuned.best is None:
        st.warning(f"No setting sends at most {tuned.budget:,.0f} characters per question.", icon=":material/warning:")
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        column_config=components.number_columns(
            {
                "page hit": "%.2f",
                "top-k page hit at its chars": "%.2f",
                "recall": "%.2f",
                "characters": "localized",
            }
        ),
    )
    st.caption(
        f"{tuned.tried} settings tried on {tuned.tuned_on} questions, scored on the other {tuned.held_out} "
        "(split by document name, so a document's questions stay on one side)."
    )
    if tuned.best is not None:
        st.button(
            "Apply on the Knowledge base page",
            key=K.APPLY,
            icon=":material/check:",
            on_click=evaluate_kb_state.apply_on_kb_page,
            args=(tuned.best.params, tuned.best.documents_selected),
            help="Sets that page's penalty, decay, minimum, max chunks and documents-selected, and opens it.",
        )
