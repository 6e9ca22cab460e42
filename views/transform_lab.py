"""Transform lab: the value formula taken apart for the current document and query.

``value = beta.cdf(calibrated, a, b) × exp(−rank / decay) − penalty  [× length factor]``

Shows the beta CDF with the chunks' calibrated scores as a rug, histograms of the scores at each
stage, the rank decay with every chunk on it, and each chunk before and after one stage. Warns
when the scores look uncalibrated for RSE and says what to change. Reads the result ``app.py``
computed from cached scores; widget keys start with ``tl_``.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from app_ui import components
from app_ui.page_state import sidebar_settings
from app_ui.page_state import transform_lab as transform_lab_state
from app_ui.safe_text import md
from rse_core import ExtractionResult
from rse_core.figures.teaching import Stage, beta_cdf_chart, decay_chart, score_histograms, stage_chart
from rse_core.figures.transform_predict import predict_histogram
from rse_core.teaching.calibration import calibration_warnings
from rse_core.teaching.transform_cases import (
    Prediction,
    TransformCase,
    bunched_illustration,
    is_reranker,
    prediction_answer,
    reveal_text,
    run_case,
)

K = transform_lab_state.Keys

CHART_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d", "autoScale2d"]}


@components.guarded
def render() -> None:
    result = components.page_start(
        "Transform lab",
        "Each stage that turns a scorer's raw score into a chunk value, for the current document and "
        "query: calibration, the beta CDF, the rank decay, the penalty.",
    )
    if result is None:
        st.info("Pick a document and type a query in the sidebar to see its scores here.")
        return
    render_lab(result)


def render_lab(result: ExtractionResult) -> None:
    """Everything below the title, for one result (separate so a test can call it directly)."""
    values = result.values[_query_choice(result)]
    _formula(result, values)
    _predict(result, values)
    _calibration_and_warnings(result, values)
    in_segment = _in_segment(result, len(values))
    _transform_charts(result, values, in_segment)
    _stage_charts(result, values)


def _query_choice(result: ExtractionResult) -> int:
    """Which query's values to show (a choice only when the run has several)."""
    query = 0
    if len(result.queries) > 1:
        query = st.radio(
            "Query",
            options=range(len(result.queries)),
            format_func=lambda q: f"Query {q + 1}: {md(result.queries[q], 80)}",  # radio options are Markdown
            key=K.QUERY,
            horizontal=True,
        )
    return query


def _formula(result: ExtractionResult, values) -> None:
    """The value formula with this run's numbers."""
    params = result.params
    n = len(values)
    st.markdown(
        f"**{n} chunks** scored by **{md(result.scorer or 'the scorer')}**; each chunk's value is "
        f"beta.cdf(calibrated, a = {params.beta_a:g}, b = {params.beta_b:g}) × exp(−rank / {params.decay_rate:g})"
        f" − {params.irrelevant_chunk_penalty:g}" + (" × length factor." if params.chunk_length_adjustment else ".")
    )


def _predict(result: ExtractionResult, values) -> None:
    """Predict, then reveal: this run's calibrated scores beside scores that bunch near 0 and 1, the
    transform hidden until the class has committed to where it sends them."""
    params = result.params
    cases = [run_case(values, result.scorer)]
    if not is_reranker(result.scorer):  # a reranker's own run already bunches: no stand-in needed
        cases.append(bunched_illustration(params, len(values)))
    question, reveal = st.columns([4, 1], vertical_alignment="bottom")
    question.radio(
        f"**Predict:** where does beta.cdf (a = {params.beta_a:g}, b = {params.beta_b:g}) send the scores near 0 "
        "and 1?",
        options=list(Prediction),
        format_func=lambda choice: Prediction(choice).label,
        index=None,
        key=K.PREDICTION,
        horizontal=True,
    )
    revealed = reveal.toggle("Reveal", key=K.REVEAL, help="Show the transformed scores and the measured answer.")
    for column, case, key in zip(st.columns(2), cases, (K.PREDICT_RUN, K.PREDICT_BUNCHED), strict=False):
        with column:
            st.plotly_chart(
                predict_histogram(case.calibrated, case.transformed if revealed else None, title=case.title),
                key=key,
                theme=None,
                config={**CHART_CONFIG, "displayModeBar": False},
            )
            if case.illustration:
                st.caption(
                    "**Illustration, not a reranker's output:** generated scores shaped like a reranker's (most "
                    "near 0 or 1), because this run's scorer is not a reranker. Pick Cohere or a cross-encoder "
                    "in the sidebar to see a real one."
                )
            if revealed:
                _answer(case)


def _answer(case: TransformCase) -> None:
    """The measured answer for one case, and whether the class's prediction matched it."""
    right = prediction_answer(case)
    predicted = st.session_state.get(K.PREDICTION)
    text = f"**Answer: {md(right.label)}.** {md(reveal_text(case))}"
    if predicted is None:
        st.info(text, icon=":material/visibility:")
    elif Prediction(predicted) is right:
        st.success(f"Your prediction was right. {text}", icon=":material/check_circle:")
    else:
        st.warning(f"Your prediction: {md(Prediction(predicted).label)}. {text}", icon=":material/close:")


def _calibration_and_warnings(result: ExtractionResult, values) -> None:
    """How the raw scores were calibrated, and what looks off in the scores."""
    params = result.params
    with st.expander("How the raw scores were calibrated"):
        st.markdown(result.calibration.describe().replace("*", "\\*"))

    for number, warning in enumerate(calibration_warnings(values, params, scorer=result.scorer)):
        st.warning(warning.message, icon=":material/warning:")
        if warning.suggested_penalty is not None:
            st.button(
                f"Set the penalty to {warning.suggested_penalty:g}",
                key=K.apply_penalty(number),
                on_click=sidebar_settings.apply_penalty,
                args=(warning.suggested_penalty,),
                icon=":material/tune:",
            )


def _in_segment(result: ExtractionResult, n: int) -> np.ndarray:
    """Which of the ``n`` chunks RSE put in a segment."""
    in_segment = np.zeros(n, dtype=bool)
    for segment in result.segments:
        in_segment[segment.start : segment.end] = True
    return in_segment


def _transform_charts(result: ExtractionResult, values, in_segment: np.ndarray) -> None:
    """The beta transform and the rank decay, side by side."""
    params = result.params
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("① → ② Beta transform")
        st.plotly_chart(
            beta_cdf_chart(values.calibrated, in_segment, params.beta_a, params.beta_b),
            key=K.BETA,
            theme=None,
            config=CHART_CONFIG,
        )
        st.caption(
            "Each chunk sits on the curve at its calibrated score; the rug below the axis shows where the "
            "scores fall. With a, b < 1 the curve is steep at both ends and flat in the middle: scores "
            "crowded near 0 or near 1 (as a reranker's are) are pulled apart, so their order shows in the values."
        )
    with right:
        st.subheader("③ Rank decay")
        st.plotly_chart(decay_chart(values, params, in_segment), key=K.DECAY, theme=None, config=CHART_CONFIG)
        st.caption(
            "Ranks count from 0 (best = rank 0), as in exp(−rank / decay): the best chunk keeps all of its score. "
            "The curve is the most a chunk of that rank can be worth; each dot is a chunk's transformed score "
            "times its decay. Dots under the dashed line become negative after the penalty."
        )


def _stage_charts(result: ExtractionResult, values) -> None:
    """Histograms of every stage, and each chunk before and after one stage."""
    params = result.params
    st.subheader("Scores at each stage")
    st.plotly_chart(score_histograms(values), key=K.HISTOGRAMS, theme=None, config=CHART_CONFIG)

    st.subheader("Each chunk before and after one stage")
    stage = st.radio(
        "Stage",
        options=list(Stage),
        index=1,
        format_func=lambda s: s.label,
        key=K.STAGE,
        horizontal=True,
    )
    st.plotly_chart(
        stage_chart(values, params, Stage(stage), [(s.start, s.end) for s in result.segments]),
        key=K.STAGE_CHART,
        theme=None,
        config=CHART_CONFIG,
    )
