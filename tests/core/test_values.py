"""Chunk values follow the RSE authors' formula stage by stage."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import beta

from rse_core import InvalidScoresError, ParameterError, RSEParams, chunk_values, preset
from rse_core.values import rank_decay, values_from_parts


def test_value_formula_matches_a_hand_computation():
    params = RSEParams(irrelevant_chunk_penalty=0.2, decay_rate=30, beta_a=0.4, beta_b=0.4)
    calibrated = [0.1, 0.9, 0.5]
    values = chunk_values(calibrated, params)
    assert values.rank.tolist() == [2, 0, 1]
    for index, score in enumerate(calibrated):
        expected = beta.cdf(score, 0.4, 0.4) * math.exp(-values.rank[index] / 30) - 0.2
        assert values.value[index] == pytest.approx(expected, abs=1e-12)


def test_beta_0_4_spreads_out_scores_bunched_at_the_ends():
    # A reranker's scores crowd near 0 and 1; the U-shaped beta(0.4, 0.4) CDF pulls them apart.
    transformed = chunk_values([0.01, 0.05, 0.5, 0.95, 0.99], RSEParams()).transformed
    assert transformed[1] - transformed[0] > 0.04 * 2
    assert transformed[0] > 0.01 and transformed[4] < 0.99
    assert transformed[2] == pytest.approx(0.5) and transformed[1] + transformed[3] == pytest.approx(1.0)


def test_beta_0_4_maps_the_four_documented_scores():
    # The numbers the module docstring, the teaching chart and the issue quote.
    transformed = chunk_values([0.01, 0.05, 0.95, 0.99], RSEParams()).transformed
    assert transformed.round(3).tolist() == [0.094, 0.18, 0.82, 0.906]


def test_ties_rank_in_document_order():
    values = chunk_values([0.5, 0.7, 0.5, 0.7], RSEParams())
    assert values.rank.tolist() == [2, 0, 3, 1]


def test_raw_scores_break_ties_created_by_calibration():
    values = chunk_values([1.0, 1.0], RSEParams(), raw=[0.8, 0.9])
    assert values.rank.tolist() == [1, 0]


def test_chunk_length_adjustment_scales_long_chunks_only():
    params = RSEParams(chunk_length_adjustment=True)
    plain = chunk_values([0.9, 0.9], RSEParams()).value
    adjusted = chunk_values([0.9, 0.9], params, chunk_lengths=[350, 1400]).length_factor
    assert adjusted.tolist() == [1.0, 2.0]
    assert chunk_values([0.9, 0.9], params, chunk_lengths=[350, 1400]).value[1] == pytest.approx(plain[1] * 2)


@pytest.mark.parametrize("bad", [[0.1, math.nan], [math.inf, 0.2]])
def test_nan_and_infinite_scores_are_refused(bad):
    with pytest.raises(InvalidScoresError, match="NaN or infinite"):
        chunk_values(bad, RSEParams())


def test_uncalibrated_scores_are_refused():
    with pytest.raises(InvalidScoresError, match=r"\[0, 1\]"):
        chunk_values([3.5, 0.2], RSEParams())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"decay_rate": 0}, "decay_rate"),
        ({"decay_rate": -3}, "decay_rate"),
        ({"beta_a": 0}, "beta_a"),
        ({"beta_b": -1}, "beta_b"),
        ({"max_length": 0}, "max_length"),
        ({"overall_max_length": 0}, "overall_max_length"),
        ({"irrelevant_chunk_penalty": 1.5}, "irrelevant_chunk_penalty"),
        ({"minimum_value": float("nan")}, "minimum_value"),
        ({"chunk_size": 20}, "chunk_size"),
        ({"top_k": 0}, "top_k"),
    ],
)
def test_invalid_parameters_are_refused_with_the_reason(change, message):
    with pytest.raises(ParameterError, match=message):
        RSEParams(**change)


def test_unknown_parameter_and_preset_names_list_the_choices():
    with pytest.raises(ParameterError, match="penalti"):
        RSEParams().with_changes(penalti=0.3)
    with pytest.raises(ParameterError, match="balanced, precision, find_all, course"):
        preset("fast")


def test_presets_carry_the_reference_numbers():
    find_all = preset("find_all")
    assert (find_all.max_length, find_all.overall_max_length, find_all.minimum_value) == (40, 200, 0.4)
    assert (find_all.irrelevant_chunk_penalty, find_all.decay_rate, find_all.chunk_length_adjustment) == (
        0.18,
        200,
        True,
    )
    balanced = preset("balanced")
    assert (
        balanced.max_length,
        balanced.overall_max_length,
        balanced.minimum_value,
        balanced.irrelevant_chunk_penalty,
    ) == (15, 30, 0.5, 0.18)
    precision = preset("precision")
    assert (precision.minimum_value, precision.irrelevant_chunk_penalty) == (0.7, 0.2)
    course = preset("course")
    assert (
        course.irrelevant_chunk_penalty,
        course.decay_rate,
        course.max_length,
        course.overall_max_length,
        course.minimum_value,
        course.chunk_length_adjustment,
    ) == (0.2, 30, 20, 30, 0.7, False)


def test_extreme_but_valid_penalties():
    assert (chunk_values([0.0, 0.0], RSEParams(irrelevant_chunk_penalty=0)).value >= 0).all()
    assert (chunk_values([1.0, 1.0], RSEParams(irrelevant_chunk_penalty=1)).value <= 0).all()
    assert np.isfinite(chunk_values([0.3], RSEParams(decay_rate=1e-6)).value).all()


@pytest.mark.parametrize("adjust", [False, True])
def test_values_from_parts_rebuild_chunk_values_bit_for_bit_at_another_penalty_and_decay(adjust):
    # The sweeps keep the beta-transformed scores and ranks and rebuild values for many settings.
    calibrated, lengths = [0.02, 0.97, 0.4, 0.6, 0.97], [300, 1500, 800, 700, 50]
    base = chunk_values(calibrated, RSEParams(chunk_length_adjustment=adjust), chunk_lengths=lengths)
    other = RSEParams(irrelevant_chunk_penalty=0.35, decay_rate=7, chunk_length_adjustment=adjust)
    direct = chunk_values(calibrated, other, chunk_lengths=lengths)
    rebuilt = values_from_parts(
        base.transformed, rank_decay(base.rank, 7), 0.35, base.length_factor if adjust else None
    )
    assert np.array_equal(rebuilt, direct.value)


@given(
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40),
    st.floats(0.1, 3.0),
    st.floats(0.1, 3.0),
)
def test_beta_transform_is_bit_identical_to_scipy_stats_beta_cdf(scores, a, b):
    # values.py uses scipy.special.betainc (imports ~3x faster); it must be the same function.
    params = RSEParams(beta_a=a, beta_b=b)
    assert np.array_equal(chunk_values(scores, params).transformed, beta.cdf(np.array(scores), a, b))


def test_importing_rse_core_loads_no_heavy_library():
    code = (
        "import sys, rse_core\n"
        "heavy = ['scipy', 'torch', 'pymupdf', 'sentence_transformers', 'transformers', 'plotly', 'onnxruntime']\n"
        "print([name for name in heavy if name in sys.modules])\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "[]"
