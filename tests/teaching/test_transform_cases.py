"""The Transform lab's predict step, computed: where the beta CDF sends scores at the ends."""

from __future__ import annotations

import numpy as np
from scipy.stats import beta

from rse_core.teaching.course import DEFAULT_PARAMS
from rse_core.teaching.transform_cases import (
    Prediction,
    TransformCase,
    bunched_illustration,
    is_reranker,
    prediction_answer,
    reveal_text,
)
from rse_core.values import chunk_values


def test_the_illustration_is_seeded_labelled_and_bunches_near_both_ends():
    case = bunched_illustration(DEFAULT_PARAMS, 125)
    again = bunched_illustration(DEFAULT_PARAMS, 125)
    np.testing.assert_array_equal(case.calibrated, again.calibrated)
    assert case.illustration and case.title.startswith("Illustration")
    assert (case.calibrated < 0.1).sum() > 25 and (case.calibrated > 0.9).sum() > 25
    np.testing.assert_allclose(case.transformed, beta.cdf(case.calibrated, 0.4, 0.4))
    assert prediction_answer(case) is Prediction.SPREAD  # the lesson's "spreads out what bunches"


def test_scores_at_exactly_zero_stay_there():
    calibrated = np.array([0.0] * 8 + [0.3, 0.6])  # MiniLM-like: most chunks calibrate to 0
    values = chunk_values(calibrated, DEFAULT_PARAMS)
    case = TransformCase("run", values.calibrated, values.transformed)
    assert prediction_answer(case) is Prediction.STAY
    assert "8 of 10 chunks" in reveal_text(case) and "8 calibrate to exactly 0" in reveal_text(case)


def test_a_shape_above_one_pushes_scores_closer_to_the_ends():
    params = DEFAULT_PARAMS.with_changes(beta_a=3.0, beta_b=3.0)
    case = bunched_illustration(params, 200)
    assert prediction_answer(case) is Prediction.CLOSER


def test_only_rerankers_count_as_rerankers():
    assert is_reranker("cohere") and is_reranker("cross-encoder")
    assert not is_reranker("minilm") and not is_reranker("bm25") and not is_reranker("something else")
