"""Recall-vs-characters curves and their area: known answers, properties, and equality with run_rse."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import RSEParams
from rse_core.evaluation.curves import (
    MAX_CHARACTERS,
    Curve,
    CurvePoint,
    area_under,
    budget_curves,
    prepare,
    rse_curve,
    rse_outcome,
    top_k_curve,
    top_k_outcome,
    window_outcome,
)
from rse_core.evaluation.scored_sets import evaluate_scored
from tests.support.eval_support import CHUNK_SIZE, scored_set

PARAMS = RSEParams(chunk_size=CHUNK_SIZE, minimum_value=0.3)


# ----------------------------------------------------------------------------------- the area


@pytest.mark.parametrize(
    ("points", "area"),
    [
        ([], 0.0),  # nothing sent: recall 0 everywhere
        ([(0, 1.0)], 1.0),  # full recall for free
        ([(6000, 0.5)], 0.5 * 6000 / 12000),  # nothing below 6,000 characters, 0.5 from there
        ([(24000, 1.0)], 0.0),  # a setting beyond the limit earns nothing
        ([(3000, 0.6), (9000, 0.3)], 0.6 * 9000 / 12000),  # the worse, dearer point changes nothing
        ([(9000, 0.3), (3000, 0.6)], 0.6 * 9000 / 12000),  # order does not matter
        ([(4000, 0.4), (8000, 0.8)], (0.4 * 4000 + 0.8 * 4000) / 12000),
    ],
)
def test_area_known_answers(points, area):
    assert area_under(points) == pytest.approx(area)


def test_area_of_a_curve_uses_its_points_and_recall_at_interpolates():
    curve = Curve("rse", "all", "penalty", (CurvePoint(0.2, 4000, 0.4), CurvePoint(0.1, 8000, 0.8)))
    assert curve.area == pytest.approx(area_under([(4000, 0.4), (8000, 0.8)]))
    assert curve.recall_at(6000) == 0.4
    assert curve.recall_at(8000) == 0.8
    assert curve.recall_at(20000) == 0.8
    assert curve.recall_at(2000) == 0.0


point_lists = st.lists(
    st.tuples(st.floats(0, 30000, allow_nan=False), st.floats(0, 1, allow_nan=False)), min_size=0, max_size=12
)


@given(point_lists, st.tuples(st.floats(0, 30000), st.floats(0, 1)))
@settings(max_examples=200, deadline=None)
def test_area_is_a_share_and_another_point_never_lowers_it(points, extra):
    area = area_under(points)
    assert 0.0 <= area <= 1.0 + 1e-12
    assert area_under([*points, extra]) >= area - 1e-12


@given(point_lists)
@settings(max_examples=100, deadline=None)
def test_area_matches_a_direct_riemann_sum(points):
    # R(c) straight from its definition, on a grid of 1-character steps (midpoints)
    grid = np.arange(MAX_CHARACTERS) + 0.5
    best = np.zeros_like(grid)
    for characters, recall in points:
        best = np.where(grid >= characters, np.maximum(best, recall), best)
    assert area_under(points) == pytest.approx(best.mean(), abs=1e-3)


# ------------------------------------------------------------------------------- the curves

# Chunks 5-9 answer; the middle one (7) scores below every unrelated chunk (0.1).
GAPPED = [0.1] * 5 + [0.9, 0.9, 0.0, 0.9, 0.9] + [0.1] * 10


def test_fast_outcomes_equal_run_rse_through_evaluate_scored():
    rng = np.random.default_rng(7)
    cases = [("g", "gapped", (5, 9), GAPPED)] + [
        (f"r{n}", "factoid", (n, n + 1), rng.random(20) ** 3) for n in range(0, 18, 3)
    ]
    scored = scored_set(cases)
    for params in (PARAMS, PARAMS.with_changes(irrelevant_chunk_penalty=0.05, max_length=3, decay_rate=5, window=2)):
        evaluation = evaluate_scored(scored, params)
        prepared = prepare(scored, params)
        for query, case in zip(evaluation.queries, prepared, strict=True):
            outcome = rse_outcome(case, params)
            assert outcome.recall == pytest.approx(query.scores["rse"].recall, abs=1e-12)
            assert outcome.characters == query.scores["rse"].characters
            top = top_k_outcome(case, params.top_k)
            assert top.recall == pytest.approx(query.scores["top_k"].recall, abs=1e-12)
            assert top.characters == query.scores["top_k"].characters
            windowed = window_outcome(case, params.top_k, params.window)
            assert windowed.recall == pytest.approx(query.scores["window"].recall, abs=1e-12)
            assert windowed.characters == query.scores["window"].characters


def test_rse_bridges_the_gap_that_top_k_drops_so_its_curve_has_more_area():
    scored = scored_set([("g", "gapped", (5, 9), GAPPED)])
    prepared = prepare(scored, PARAMS)
    rse = rse_curve(prepared, PARAMS, penalties=(0.3, 0.4))
    top = top_k_curve(prepared, ks=range(1, 8))
    gold_characters = scored.cases[0].case.span[1] - scored.cases[0].case.span[0]
    assert any(p.recall == 1.0 and p.characters == gold_characters for p in rse.points)
    # top-k reaches full recall only once the low-scored middle chunk comes up, after noise chunks
    assert all(p.recall < 1.0 for p in top.points if p.characters <= gold_characters)
    assert rse.area > top.area


def test_budget_curves_per_kind_and_all():
    scored = scored_set([("g", "gapped", (5, 9), GAPPED), ("f", "factoid", (2, 2), [0.0, 0.0, 1.0] + [0.0] * 17)])
    curves = budget_curves(scored, PARAMS)
    assert list(curves) == ["gapped", "factoid", "all"]
    assert [curve.method for curve in curves["all"]] == ["rse", "top_k", "window"]
    factoid_top_k = curves["factoid"][1]
    assert factoid_top_k.points[0].recall == 1.0  # the one right chunk is ranked first
