"""Score calibration: the minilm map, checked by hand and as properties.

The minilm calibration maps each document's 70th percentile to 0 and its best chunk to 1, with
both ends pulled towards fixed values as if the document held five more chunks. The hand
computations below are the ones the README and the explain panel quote.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core.scoring import Calibration
from rse_core.scoring.minilm import MINILM_CALIBRATION

PLAIN = Calibration("quantile", low=0.7, high=0.45)


@pytest.mark.parametrize(
    ("cosine", "expected"),
    [
        # floor = (0.6 + 5 * 0.3) / 6 = 0.35; ceiling = (0.6 + 5 * 0.45) / 6 = 0.475 -> 2.0, clipped to 1
        (0.6, 1.0),
        # floor = (0.4 + 1.5) / 6 = 0.31667; ceiling = (0.45 + 2.25) / 6 = 0.45 -> 0.08333 / 0.13333 = 0.625
        (0.4, 0.625),
        # floor = (0.3 + 1.5) / 6 = 0.3 = the cosine -> 0
        (0.3, 0.0),
    ],
)
def test_a_one_chunk_page_is_judged_on_the_fixed_scale(cosine, expected):
    assert MINILM_CALIBRATION(np.array([cosine]))[0] == pytest.approx(expected)
    # Without the pull, a one-chunk page's percentile is its own score: every such page maps to 0,
    # which left 47 of FinanceBench's 150 questions with nothing.
    assert PLAIN(np.array([cosine]))[0] == 0.0


def test_a_two_chunk_page_by_hand():
    raw = np.array([0.2, 0.5])
    q70 = 0.2 + 0.7 * 0.3  # numpy's linear interpolation: 0.41
    floor = (2 * q70 + 5 * 0.3) / 7
    ceiling = (2 * 0.5 + 5 * 0.45) / 7
    expected = np.clip((raw - floor) / (ceiling - floor), 0, 1)
    np.testing.assert_allclose(MINILM_CALIBRATION(raw), expected)
    assert expected[0] == 0 and 0.9 < expected[1] <= 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-0.2, 0.9, allow_nan=False), min_size=1, max_size=300))
def test_the_map_is_monotone_and_in_the_unit_interval(scores):
    raw = np.array(scores)
    calibrated = MINILM_CALIBRATION(raw)
    assert ((calibrated >= 0) & (calibrated <= 1)).all()
    order = np.argsort(raw, kind="stable")
    assert (np.diff(calibrated[order]) >= -1e-12).all()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.0, 0.8, allow_nan=False), min_size=400, max_size=600))
def test_a_long_document_sets_its_own_scale(scores):
    """Five pretend chunks barely move a document of hundreds: within 0.05 of the plain map."""
    raw = np.array(scores)
    if raw.max() - np.quantile(raw, 0.7) < 0.1:  # a flat document: both maps are ill-conditioned
        return
    np.testing.assert_allclose(MINILM_CALIBRATION(raw), PLAIN(raw), atol=0.05)


def test_no_pull_is_the_plain_quantile_map():
    raw = np.linspace(0, 0.7, 50)
    unpulled = Calibration("quantile", low=0.7, high=0.45, prior_floor=0.3, prior_chunks=0)
    np.testing.assert_allclose(unpulled(raw), PLAIN(raw))


def test_the_description_names_the_pull():
    text = MINILM_CALIBRATION.describe()
    assert "(n * q70 + 5 * 0.3) / (n + 5)" in text
    assert "(n * max(best, 0.45) + 5 * 0.45) / (n + 5)" in text
