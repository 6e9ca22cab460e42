"""The greedy segment search: the course's worked examples, limits, and a brute-force oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import ParameterError, Segment, StopReason, find_best_segments

COURSE = {"max_length": 20, "overall_max_length": 30, "minimum_value": 0.7}


def test_course_example_one_cluster():
    result = find_best_segments([-0.2, -0.2, 0.4, 0.8, -0.1], **COURSE)
    assert [(s.start, s.end) for s in result] == [(2, 4)]
    assert result[0].score == pytest.approx(1.2)


def test_course_example_gapped_cluster_keeps_the_negative_chunk():
    values = [-0.2, -0.2, 0.4, 0.8, -0.1, 0.6, 0.3, -0.2, -0.2]
    result = find_best_segments(values, **COURSE)
    assert [(s.start, s.end) for s in result] == [(2, 7)]
    assert result[0].score == pytest.approx(2.0)
    assert values[4] < 0 and 4 in range(result[0].start, result[0].end)


def test_two_clusters_are_picked_best_first():
    values = [0.9, 0.5, -0.5, -0.5, -0.5, 0.3, 0.6, -0.3]
    result = find_best_segments(values, **COURSE)
    assert [(s.start, s.end) for s in result] == [(0, 2), (5, 7)]
    assert result.stop_reason is StopReason.NO_CANDIDATES


def test_minimum_value_retires_the_query():
    result = find_best_segments([0.5, -0.4, 0.3], max_length=5, overall_max_length=10, minimum_value=0.6)
    assert list(result) == []
    assert result.stop_reason is StopReason.BELOW_MINIMUM
    assert result.steps[-1].best == Segment(0, 1, 0.5, 0)


def test_budget_stops_the_search():
    result = find_best_segments([1.0, 1.0, 1.0, -5, 1.0, 1.0], max_length=2, overall_max_length=3, minimum_value=0)
    assert sum(len(s) for s in result) == 3
    assert result.stop_reason is StopReason.BUDGET_SPENT


def test_segments_never_cross_a_document_split():
    result = find_best_segments(
        [0.5, 0.5, 0.5, 0.5], max_length=4, overall_max_length=4, minimum_value=0, document_splits=[2]
    )
    assert sorted((s.start, s.end) for s in result) == [(0, 2), (2, 4)]


def test_ties_go_to_the_earliest_start_then_the_shortest():
    # (0, 1) and (0, 3) and (2, 3) are all worth 1.0.
    result = find_best_segments([1.0, -1.0, 1.0], max_length=3, overall_max_length=1, minimum_value=0)
    assert [(s.start, s.end) for s in result] == [(0, 1)]


def test_queries_take_turns():
    first = [1.0, 1.0, -1, -1, 0.1, -1]
    second = [-1, -1, -1, 2.0, -1, -1]
    result = find_best_segments([first, second], max_length=3, overall_max_length=10, minimum_value=0.05)
    assert [(s.start, s.end, s.query) for s in result] == [(0, 2, 0), (3, 4, 1), (4, 5, 0)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_length": 0}, "max_length"),
        ({"overall_max_length": -1}, "overall_max_length"),
        ({"minimum_value": math.nan}, "minimum_value"),
        ({"max_length": 2.5}, "max_length"),
    ],
)
def test_invalid_limits_are_refused_with_the_reason(kwargs, message):
    limits = {"max_length": 3, "overall_max_length": 5, "minimum_value": 0.5} | kwargs
    with pytest.raises(ParameterError, match=message):
        find_best_segments([0.1, 0.2], **limits)


def test_non_finite_values_are_refused():
    with pytest.raises(ParameterError, match="chunk 1"):
        find_best_segments([0.1, float("inf")], max_length=3, overall_max_length=5, minimum_value=0)


def test_ragged_queries_are_refused():
    with pytest.raises(ParameterError, match="lengths"):
        find_best_segments([[0.1, 0.2], [0.3]], max_length=3, overall_max_length=5, minimum_value=0)


def test_empty_input_gives_no_candidates():
    result = find_best_segments([], max_length=3, overall_max_length=5, minimum_value=0)
    assert list(result) == [] and result.stop_reason is StopReason.NO_CANDIDATES


# --- Oracle: a plain, independent statement of the rules, checked against the fast search. ---


def brute_force(all_values, splits, max_length, overall_max_length, minimum_value):
    picked, total, retired, turn = [], 0, set(), 0
    n = len(all_values[0])
    while total < overall_max_length and len(retired) < len(all_values):
        query = turn % len(all_values)
        turn += 1
        if query in retired:
            continue
        values = all_values[query]
        candidates = []
        for start in range(n):
            for end in range(start + 1, min(start + max_length, n) + 1):
                if values[start] < 0 or values[end - 1] < 0:
                    continue
                if any(start < b and end > a for a, b, _ in picked):
                    continue
                if any(start < split < end for split in splits):
                    continue
                if total + end - start > overall_max_length:
                    continue
                candidates.append((sum(values[start:end]), start, end))
        if not candidates:
            retired.add(query)
            continue
        best = max(score for score, _, _ in candidates)
        start, end = min((s, e) for score, s, e in candidates if score == best)
        if best < minimum_value:
            retired.add(query)
            continue
        picked.append((start, end, best))
        total += end - start
    return [(start, end) for start, end, _ in picked], [score for _, _, score in picked]


value_strategy = st.one_of(
    st.sampled_from([-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.4, 0.8]),  # many exact ties
    st.floats(min_value=-1, max_value=1, allow_nan=False),
)


@st.composite
def search_inputs(draw):
    n = draw(st.integers(0, 30))
    queries = draw(st.integers(1, 3))
    values = [draw(st.lists(value_strategy, min_size=n, max_size=n)) for _ in range(queries)]
    splits = draw(st.lists(st.integers(0, n), max_size=3, unique=True)) if n else []
    return (
        values,
        sorted(splits),
        draw(st.integers(1, 8)),
        draw(st.integers(1, 25)),
        draw(st.sampled_from([0.0, 0.3, 0.7, 1.5])),
    )


@settings(max_examples=400, deadline=None)
@given(search_inputs())
def test_fast_search_equals_the_brute_force_oracle(case):
    values, splits, max_length, overall_max_length, minimum_value = case
    result = find_best_segments(
        values,
        max_length=max_length,
        overall_max_length=overall_max_length,
        minimum_value=minimum_value,
        document_splits=splits,
    )
    expected_segments, expected_scores = brute_force(values, splits, max_length, overall_max_length, minimum_value)
    assert [(s.start, s.end) for s in result] == expected_segments
    assert [s.score for s in result] == expected_scores


@settings(max_examples=300, deadline=None)
@given(search_inputs())
def test_constraints_always_hold(case):
    values, splits, max_length, overall_max_length, minimum_value = case
    result = find_best_segments(
        np.array(values),
        max_length=max_length,
        overall_max_length=overall_max_length,
        minimum_value=minimum_value,
        document_splits=splits,
    )
    covered = set()
    for segment in result:
        query_values = values[segment.query]
        chunks = set(range(segment.start, segment.end))
        assert not covered & chunks, "segments overlap"
        covered |= chunks
        assert 1 <= len(segment) <= max_length
        assert query_values[segment.start] >= 0 and query_values[segment.end - 1] >= 0
        assert not any(segment.start < split < segment.end for split in splits)
        assert segment.score >= minimum_value
        assert segment.score == sum(query_values[segment.start : segment.end])
    assert len(covered) <= overall_max_length
    if result.stop_reason is StopReason.BUDGET_SPENT:
        assert len(covered) == overall_max_length
