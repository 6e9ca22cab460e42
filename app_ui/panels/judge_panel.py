"""Evaluate's LLM judge, on request only: the judge prompt, the cost stated before anything runs,
then mean grades per kind beside recall, quoted as "graded by MODEL"."""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from rse_core.evaluation.runs import Evaluation
from rse_core.llm.answers import prompt_text
from rse_core.llm.judge import estimate, grade_summary, judge_items, judge_messages, run_judge

from ..page_state import evaluate as evaluate_state
from ..safe_text import md
from . import answers_panel

METHOD_NAMES = {
    "rse": "RSE",
    "top_k": "Top-k",
    "top_k_equal_budget": "Top-k, RSE's characters",
    "window": "Window",
    "window_equal_budget": "Window, RSE's characters",
}


def render_judge_panel(evaluation: Evaluation, prefix: str = evaluate_state.Keys.PREFIX) -> None:
    with st.expander("Grade the answers with an LLM (on request)", icon=":material/grading:"):
        st.caption(
            "Each method's context is sent with the question (the prompt of RSE vs top-k), then the answer is "
            "graded 0-10 against the gold span's text by the same model. A grade is that model's opinion, "
            "not ground truth: recall above is measured, this is judged."
        )
        st.code(prompt_text(judge_messages("{question}", "{gold span text}", "{answer}")), language=None)
        answers_panel.render_settings(f"{prefix}_judge")
        settings, endpoint, problem = answers_panel.current_settings()
        items = judge_items(evaluation)
        cache = evaluate_state.judge_cache()
        if settings is None:
            st.info(f"{md(problem)} Configure an LLM above to grade; nothing is sent until you ask.")
            return
        calls, tokens = estimate(items, cache.keys(), settings.model)
        st.caption(
            f"{len(items)} answers to grade: {calls} calls to {html.escape(settings.describe())}, about "
            f"{tokens:,} input tokens (estimated; answers already graded with this model are cached)."
        )
        if st.button(f"Grade with {settings.model}", key=f"{prefix}_judge_run", icon=":material/grading:"):
            client = endpoint.client(settings)
            bar = st.progress(0.0, text="Grading...")
            results = run_judge(items, client, cache, lambda done, total: bar.progress(done / total))
            bar.empty()
            evaluate_state.keep_judge_results(_identity(evaluation), settings.model, results)
        results = evaluate_state.judge_results_for(_identity(evaluation), settings.model)
        if results is None:
            return
        model = settings.model
        errors = [r.error for r in results if r.error]
        if errors:
            st.warning(f"{len(errors)} of {len(results)} calls failed; first: {md(errors[0], 300)}")
        recall = {(row["kind"], row["method"]): row["recall"] for row in evaluation.summary()}
        rows = [
            {
                "kind": row["kind"],
                "method": METHOD_NAMES[row["method"]],
                "recall": recall.get((row["kind"], row["method"])),
                f"mean grade (graded by {model})": row["mean grade"],
                "graded": row["graded"],
            }
            for row in grade_summary(results)
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{prefix}_judge_table")
        st.caption(f"Grades 0-10, graded by {html.escape(model)}; recall is the share of the gold span sent.")


def _identity(evaluation: Evaluation) -> tuple:
    """What the grades depend on besides the model: the golden set, scorer and parameters."""
    return (
        evaluation.golden.document_name,
        tuple(query.id for query in evaluation.queries),
        evaluation.scorer,
        evaluation.params,
    )
