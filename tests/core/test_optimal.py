"""The exact solver: equal to brute force on small inputs, never worse than the greedy search."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import ParameterError, StopReason, find_best_segments
from rse_core.search.optimal import compare_with_greedy, find_optimal_segments, total_value

BUDGET_BINDS = [0.6, 0.7, 0.5, -0.4, 0.3, 0.9, 0.8, -0.2]
GAPPED = [-0.2, -0.2, 0.4, 0.8, -0.1, 0.6, 0.3, -0.2, -0.2]


def brute_force(rows, max_length, overall, minimum, splits=()):
    """(best total, fewest chunks at that total) over every set of allowed, non-overlapping segments."""
    n = len(rows[0])
    bounds = [0, *sorted(s for s in set(splits) if 0 < s < n), n]
    document = np.searchsorted(bounds, np.arange(n), side="right")
    segments = []
    for start in range(n):
        for end in range(start + 1, min(n, start + max_length) + 1):
            if document[start] != document[end - 1]:
                continue
            worth = [sum(row[start:end]) for row in rows if row[start] >= 0 and row[end - 1] >= 0]
            worth = [w for w in worth if w >= minimum]
            if worth:
                segments.append((start, end, max(worth)))

    @functools.cache
    def best(position, budget):
        # segments sorted by start: choose the next segment starting at or after ``position``
        result = (0.0, 0)
        for start, end, worth in segments:
            if start >= position and end - start <= budget:
                total, chunks = best(end, budget - (end - start))
                candidate = (total + worth, chunks + end - start)
                if candidate[0] > result[0] + 1e-9 or (
                    math.isclose(candidate[0], result[0], abs_tol=1e-9) and candidate[1] < result[1]
                ):
                    result = candidate
        return result

    return best(0, overall)


def check_feasible(result, rows, max_length, overall, minimum, splits=()):
    taken = set()
    for segment in result:
        row = rows[segment.query]
        chunks = set(range(segment.start, segment.end))
        assert not chunks & taken
        taken |= chunks
        assert 1 <= len(segment) <= max_length
        assert row[segment.start] >= 0 and row[segment.end - 1] >= 0
        assert not any(segment.start < s < segment.end for s in splits)
        assert segment.score == sum(row[segment.start : segment.end]) >= minimum
    assert len(taken) <= overall


def test_overall_budget_binds_greedy_2_7_optimal_3_0():
    comparison = compare_with_greedy(BUDGET_BINDS, max_length=20, overall_max_length=4, minimum_value=0.7)
    assert [(s.start, s.end - 1) for s in comparison.greedy] == [(4, 6), (1, 1)]
    assert comparison.greedy_value == pytest.approx(2.7)
    assert sorted((s.start, s.end - 1) for s in comparison.optimal) == [(0, 1), (5, 6)]
    assert comparison.optimal_value == pytest.approx(3.0)
    assert comparison.gap == pytest.approx(0.3) and not comparison.greedy_is_optimal
    assert comparison.message == (
        "Greedy takes 4-6 (2.00) + 1 (0.70) = 2.70; the optimum is 5-6 (1.70) + 0-1 (1.30) = 3.00, 0.30 more."
    )
    assert comparison.optimal.stop_reason is StopReason.BUDGET_SPENT


def test_the_optimum_drops_a_gap_when_both_sides_clear_the_minimum():
    comparison = compare_with_greedy(GAPPED, max_length=20, overall_max_length=30, minimum_value=0.7)
    assert [(s.start, s.end) for s in comparison.greedy] == [(2, 7)]
    assert sorted((s.start, s.end) for s in comparison.optimal) == [(2, 4), (5, 7)]
    assert comparison.optimal_value == pytest.approx(2.1)
    # with a minimum of 1.0 the right side (0.9) cannot stand alone: crossing the gap is optimal
    strict = compare_with_greedy(GAPPED, max_length=20, overall_max_length=30, minimum_value=1.0)
    assert strict.greedy_is_optimal and [(s.start, s.end) for s in strict.optimal] == [(2, 7)]


def test_a_segment_worth_exactly_the_minimum_is_kept():
    assert [
        (s.start, s.end)
        for s in find_optimal_segments([0.3, 0.4], max_length=5, overall_max_length=5, minimum_value=0.7)
    ] == [(0, 2)]
    assert list(find_optimal_segments([0.3, 0.39], max_length=5, overall_max_length=5, minimum_value=0.7)) == []


def test_limits_are_checked_like_the_greedy():
    with pytest.raises(ParameterError):
        find_optimal_segments([0.1], max_length=0, overall_max_length=3, minimum_value=0.1)
    assert list(find_optimal_segments([], max_length=2, overall_max_length=3, minimum_value=0.1)) == []


values = st.floats(-1, 1, allow_nan=False, allow_infinity=False)
minimums = st.floats(-0.5, 1.5)


@st.composite
def cases(draw, elements=values, minimum=minimums):
    n = draw(st.integers(1, 8))
    queries = draw(st.integers(1, 2))
    rows = [draw(st.lists(elements, min_size=n, max_size=n)) for _ in range(queries)]
    splits = sorted(draw(st.sets(st.integers(1, max(1, n - 1)), max_size=2))) if n > 1 else []
    return rows, draw(st.integers(1, n)), draw(st.integers(1, n + 1)), draw(minimum), splits


@settings(max_examples=400, deadline=None)
@given(cases())
def test_equals_brute_force_and_is_never_worse_than_greedy(case):
    rows, max_length, overall, minimum, splits = case
    limits = {"max_length": max_length, "overall_max_length": overall, "minimum_value": minimum}
    optimal = find_optimal_segments(rows, **limits, document_splits=splits)
    check_feasible(optimal, rows, max_length, overall, minimum, splits)
    expected, _ = brute_force(rows, max_length, overall, minimum, splits)
    assert total_value(optimal) == pytest.approx(expected, abs=1e-8)  # sums of up to 16 floats, added in other orders
    greedy = find_best_segments(rows, **limits, document_splits=splits)
    assert total_value(optimal) >= total_value(greedy) - 1e-8


@settings(max_examples=300, deadline=None)
@given(cases(elements=st.integers(-5, 9).map(float), minimum=st.integers(0, 12).map(float)))
def test_on_exact_numbers_it_uses_the_fewest_chunks_of_any_optimum(case):
    rows, max_length, overall, minimum, splits = case
    optimal = find_optimal_segments(
        rows, max_length=max_length, overall_max_length=overall, minimum_value=minimum, document_splits=splits
    )
    expected, fewest = brute_force(rows, max_length, overall, minimum, splits)
    assert total_value(optimal) == expected
    assert sum(len(s) for s in optimal) == fewest


def test_the_classroom_case_carries_both_answers():
    from rse_core.teaching.classroom import EXAMPLES

    example = EXAMPLES["Overall budget binds"]
    comparison = example.greedy_vs_optimal()
    assert (round(comparison.greedy_value, 9), round(comparison.optimal_value, 9)) == (2.7, 3.0)
    assert "2.7 in all" in example.point and "worth 3.0" in example.point
    optimal = {name: example.greedy_vs_optimal().greedy_is_optimal for name, example in EXAMPLES.items()}
    assert optimal == {
        "Course example 1: one cluster": True,
        "Course example 2: a gap worth crossing": False,  # 2-3 + 5-6 = 2.1 beats 2-6 = 2.0
        "Two clusters: two segments": True,
        "Max length binds": False,  # 0-2 + 3-4 = 2.4 beats 1-3 = 1.6 (0 and 4 alone are below 0.7)
        "Overall budget binds": False,
        "Nothing clears the minimum": True,
    }
