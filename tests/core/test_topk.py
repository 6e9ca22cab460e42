"""The baselines: top-k, the fixed window (hand cases and properties) and the negative-chunk split."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import ParameterError
from rse_core.topk import WindowSegment, split_negatives, top_k, window, window_within_budget


def test_window_grows_each_hit_and_merges_overlaps():
    # 12 chunks; hits 5, 2, 10 (best first). w = 1: 4-6, 1-3 and 9-11; 1-3 and 4-6 touch -> 1-6.
    ranking = [5, 2, 10, 0, 1, 3, 4, 6, 7, 8, 9, 11]
    assert window(ranking, 3, 1) == [WindowSegment(1, 7, (5, 2), 0), WindowSegment(9, 12, (10,), 2)]


def test_window_stops_at_document_edges_and_never_merges_across_them():
    # documents 0-3 and 4-7; hits 3 and 4 sit on each side of the split.
    ranking = [3, 4, 0, 1, 2, 5, 6, 7]
    segments = window(ranking, 2, 2, document_splits=[4])
    assert [(s.start, s.end) for s in segments] == [(1, 4), (4, 7)]
    assert segments[0].padding == (1, 2) and segments[1].padding == (5, 6)


def test_window_zero_is_top_k_in_document_order():
    ranking = [7, 2, 3, 0, 1, 4, 5, 6]
    assert [(s.start, s.end) for s in window(ranking, 3, 0)] == [(2, 4), (7, 8)]
    assert sorted(top_k(ranking, 3)) == [2, 3, 7]


def test_window_refuses_a_negative_width():
    with pytest.raises(ParameterError, match="0 or more"):
        window([0, 1], 1, -1)


def test_window_within_budget_stops_at_the_first_overflow():
    ranking = [5, 1, 9, 0, 2, 3, 4, 6, 7, 8]
    lengths = [100] * 10
    # hit 5 -> 4-6 (300), hit 1 -> 0-2 (300, total 600), hit 9 -> 8-9 (200): 800 > 700, stop.
    assert [(s.start, s.end) for s in window_within_budget(ranking, lengths, 700, 1)] == [(0, 3), (4, 7)]
    # a hit whose window is already sent adds nothing and costs nothing (documents 0-3, 4-6, 7-9)
    budgeted = window_within_budget([5, 4, 9], [100] * 10, 300, 1, document_splits=[4, 7])
    assert budgeted == [WindowSegment(4, 7, (5, 4), 0)]


def test_split_negatives_tells_inner_gaps_from_edge_padding():
    values = np.array([-0.3, 0.5, -0.1, -0.2, 0.4, -0.5, -0.6])
    assert split_negatives(values, 0, 7) == ((2, 3), (0, 5, 6))
    assert split_negatives(values, 1, 5) == ((2, 3), ())  # an RSE-like segment: ends non-negative
    assert split_negatives(values, 5, 7) == ((), (5, 6))


@st.composite
def window_cases(draw):
    n = draw(st.integers(1, 40))
    ranking = draw(st.permutations(range(n)))
    splits = sorted(draw(st.sets(st.integers(1, max(1, n - 1)), max_size=3))) if n > 1 else []
    return ranking, draw(st.integers(1, n)), draw(st.integers(0, 4)), splits


@settings(max_examples=300, deadline=None)
@given(window_cases())
def test_window_segments_are_exactly_the_union_of_the_grown_hits(case):
    ranking, k, w, splits = case
    n = len(ranking)
    bounds = [0, *splits, n]
    document = np.searchsorted(bounds, np.arange(n), side="right")
    expected = set()
    for hit in ranking[:k]:
        expected |= {i for i in range(hit - w, hit + w + 1) if 0 <= i < n and document[i] == document[hit]}
    segments = window(ranking, k, w, document_splits=splits)
    covered = [i for s in segments for i in range(s.start, s.end)]
    assert sorted(covered) == sorted(expected) and len(covered) == len(set(covered))
    for left, right in itertools.pairwise(segments):
        # merged: two segments only touch at a document split
        assert left.end < right.start or (left.end == right.start and left.end in splits)
    for segment in segments:
        assert document[segment.start] == document[segment.end - 1]
        assert set(segment.hits) <= set(range(segment.start, segment.end))
    assert sorted(hit for s in segments for hit in s.hits) == sorted(ranking[:k])


@settings(max_examples=200, deadline=None)
@given(window_cases(), st.lists(st.integers(1, 50), min_size=40, max_size=40), st.integers(0, 800))
def test_window_within_budget_respects_the_budget(case, lengths, budget):
    ranking, _, w, splits = case
    segments = window_within_budget(ranking, lengths, budget, w, document_splits=splits)
    assert sum(lengths[i] for s in segments for i in range(s.start, s.end)) <= budget
