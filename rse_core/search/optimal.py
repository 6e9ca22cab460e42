"""The exact answer to the problem the greedy search approximates, by dynamic programming.

**Optimal**, precisely: over ``Q`` queries with values ``v_q`` on ``n`` chunks, a *segment* is a
run of chunks ``start:end`` assigned to one query ``q`` such that (the greedy search's rules)

- it lies within one document (it crosses no document split),
- it is at most ``max_length`` chunks long,
- its first and last chunk have a non-negative value for ``q``,
- its value, the sum of ``v_q`` over it, is at least ``minimum_value`` (dsRAG's ``>=``: a
  segment worth exactly the minimum is allowed).

An *answer* is a set of segments that do not overlap (whichever queries they belong to: the
queries share one pool of chunks and one budget) and hold at most ``overall_max_length``
chunks together. The optimal answer has the largest total value; among those, the fewest
chunks; two touching segments of one query that may be one segment are reported as one. A
segment is assigned to the query for which it is worth most.

The greedy search (:func:`~rse_core.search.find_best_segments`) picks the best remaining
segment again and again, and its answer is one such set, so the optimum is never worth less.
It can be worth more: with values 0.6, 0.7, 0.5, -0.4, 0.3, 0.9, 0.8, -0.2 and a budget of 4
chunks the greedy takes chunks 4-6 (2.0) and then only one chunk fits (chunk 1, 0.7): 2.7 in
all; chunks 0-1 and 5-6 are worth 1.3 + 1.7 = 3.0. And the optimum keeps an inner gap only
when it must: in the course's example -0.2, -0.2, 0.4, 0.8, -0.1, 0.6, 0.3, -0.2, -0.2 the
greedy crosses the gap (chunks 2-6, 2.0), while chunks 2-3 (1.2) and 5-6 (0.9) each clear the
minimum of 0.7 and together are worth 2.1. Round-robin between queries is a rule of the greedy
search only; the optimum pools the queries.

The dynamic programme: ``best[e, c]`` is the highest total over chunks ``0:e`` using at most
``c`` chunks. Either chunk ``e - 1`` is unused (``best[e - 1, c]``) or a segment of length
``l`` ends there (``best[e - l, c - l] + w[e, l]``, with ``w`` the segment's value or ``-inf``
if it is not allowed). Layer ``c`` needs only layers ``c - l < c``, so each layer is one
vectorised max over (end, length) followed by a running maximum along the ends:
O(n x max_length x overall_max_length) work in numpy, O(n x overall_max_length) memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.search import SearchResult, Segment, StopReason
from rse_core.search.greedy import _as_query_arrays, _check_limits, _split_points

_TOLERANCE = 1e-9


def _segment_values(
    array: np.ndarray, max_length: int, splits: np.ndarray, minimum_value: float
) -> tuple[np.ndarray, np.ndarray]:
    """(sums, allowed) of every segment by end ``e`` (1..n) and length ``l`` (1..L): shape (n + 1, L + 1).

    Sums are accumulated from each start to the right (the order Python's ``sum`` adds), so a
    segment worth exactly the minimum is not lost to rounding in a prefix-sum difference.
    """
    n = len(array)
    length = min(max_length, n)
    ends = np.arange(n + 1)[:, None]
    lengths = np.arange(length + 1)[None, :]
    starts = ends - lengths
    inside = (starts >= 0) & (lengths >= 1)
    safe_starts = np.clip(starts, 0, max(n - 1, 0))
    # Running sums from each start: sums_from[s, j] = v[s] + ... + v[s + j], left to right.
    offsets = np.arange(length)
    terms = array[np.clip(np.arange(n)[:, None] + offsets, 0, max(n - 1, 0))] if n else np.zeros((0, length))
    sums_from = np.cumsum(terms, axis=1)
    sums = np.full(ends.shape[:1] + lengths.shape[1:], -np.inf)
    rows, cols = np.nonzero(inside)
    sums[rows, cols] = sums_from[safe_starts[rows, cols], cols - 1]
    # One document: the next split after the start must come at or after the end.
    next_split = splits[np.searchsorted(splits, safe_starts, side="right").clip(max=len(splits) - 1)]
    last = np.clip(ends - 1, 0, max(n - 1, 0))
    allowed = inside & (ends <= next_split) & (array[safe_starts] >= 0) & (array[last] >= 0)
    near = allowed & (np.abs(sums - minimum_value) <= _TOLERANCE * max(1.0, abs(minimum_value)))
    for e, size in zip(*np.nonzero(near), strict=True):  # settle the boundary with Python's own sum
        sums[e, size] = sum(array[e - size : e].tolist())
    allowed &= sums >= minimum_value
    return sums, allowed


def find_optimal_segments(
    values: Sequence[float] | Sequence[Sequence[float]] | np.ndarray,
    *,
    max_length: int,
    overall_max_length: int,
    minimum_value: float,
    document_splits: Sequence[int] = (),
) -> SearchResult:
    """The optimal set of segments (defined in the module docstring) under the greedy's limits.

    Args and limits are those of :func:`~rse_core.search.find_best_segments`.

    Returns:
        A :class:`~rse_core.search.SearchResult` like the greedy's: the segments best first
        (ties: earliest start), each scored with Python's ``sum`` like the greedy; one trace
        step per segment; ``stop_reason`` ``budget_spent`` when the answer fills the budget,
        else ``below_minimum`` (every segment that still fits is worth less than the minimum, or
        adds nothing) or ``no_candidates`` (no unused non-negative chunk is left).

    Raises:
        ParameterError: a limit is out of range, or the values are ragged or not finite.
    """
    _check_limits(max_length, overall_max_length, minimum_value)
    queries = _as_query_arrays(values)
    arrays = [array for array, *_ in queries]
    n = len(arrays[0])
    if n == 0:
        return _as_result([], arrays, overall_max_length)
    budget = min(overall_max_length, n)
    splits = _split_points(document_splits, n)
    length = min(max_length, n)

    weight, owner = _segment_weights(arrays, n, length, max_length, splits, minimum_value)
    best, choice = _budget_layers(weight, n, budget, length)
    segments = _trace_back(best, choice, owner, queries, n)
    segments = _merge_touching(segments, queries, max_length, splits, minimum_value)
    segments.sort(key=lambda segment: (-segment.score, segment.start))
    return _as_result(segments, arrays, overall_max_length)


def _segment_weights(arrays, n: int, length: int, max_length: int, splits, minimum_value: float):
    """w[e, l]: the best query's value of segment (e - l):e, -inf where no query may take it; and that query."""
    weight = np.full((n + 1, length + 1), -np.inf)
    owner = np.zeros((n + 1, length + 1), dtype=np.int64)
    for query, array in enumerate(arrays):
        sums, allowed = _segment_values(array, max_length, splits, minimum_value)
        candidate = np.where(allowed, sums, -np.inf)
        better = candidate > weight
        weight[better] = candidate[better]
        owner[better] = query
    return weight, owner


def _budget_layers(weight: np.ndarray, n: int, budget: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Layers by budget, each a contiguous row over the ends: best[c, e], choice[c, e]."""
    best = np.zeros((budget + 1, n + 1))
    choice = np.zeros((budget + 1, n + 1), dtype=np.int32)  # length of the segment ending at e, 0 = none
    by_length = np.ascontiguousarray(weight.T)  # by_length[l, e] = w[e, l]
    for c in range(1, budget + 1):
        ending = np.full(n + 1, -np.inf)
        pick = np.zeros(n + 1, dtype=np.int32)
        for size in range(1, min(length, c) + 1):
            # a segment of ``size`` chunks ending at e, after the best of chunks 0:e - size
            totals = best[c - size, : n + 1 - size] + by_length[size, size:]
            better = totals > ending[size:]  # strict: ties keep the shorter segment
            ending[size:][better] = totals[better]
            pick[size:][better] = size
        layer = np.maximum.accumulate(np.maximum(ending, 0.0))
        best[c] = layer
        # A segment ends at e when it beats leaving chunk e - 1 unused.
        takes = np.zeros(n + 1, dtype=bool)
        takes[1:] = ending[1:] > layer[:-1]
        choice[c, takes] = pick[takes]
    return best, choice


def _trace_back(best: np.ndarray, choice: np.ndarray, owner: np.ndarray, queries, n: int) -> list[Segment]:
    """The segments of the best total, read back from the last layer that reaches it (the smallest budget)."""
    budget = best.shape[0] - 1
    top = best[budget, n]
    used_budget = int(np.flatnonzero(best[:, n] >= top - _TOLERANCE * max(1.0, abs(top)))[0])
    segments: list[Segment] = []
    e, c = n, used_budget
    while e > 0 and c > 0:
        size = int(choice[c, e])
        if size and best[c, e] > best[c, e - 1]:
            query = int(owner[e, size])
            exact = queries[query][1]
            segments.append(Segment(e - size, e, float(sum(exact[e - size : e])), query))
            e, c = e - size, c - size
        else:
            e -= 1
    return segments


def _merge_touching(segments, queries, max_length, splits, minimum_value) -> list[Segment]:
    """Join touching segments of one query when the join is itself an allowed segment.

    The chunks and the total stay the same; the answer reads as fewer, whole segments.
    """
    merged: list[Segment] = []
    for segment in sorted(segments, key=lambda s: s.start):
        if merged:
            last = merged[-1]
            exact = queries[segment.query][1]
            if (
                last.query == segment.query
                and last.end == segment.start
                and segment.end - last.start <= max_length
                and not ((splits > last.start) & (splits < segment.end)).any()
            ):
                score = float(sum(exact[last.start : segment.end]))
                if score >= minimum_value:
                    merged[-1] = Segment(last.start, segment.end, score, segment.query)
                    continue
        merged.append(segment)
    return merged


def _as_result(segments: list[Segment], arrays: list[np.ndarray], overall_max_length: int) -> SearchResult:
    used = 0
    trace = []
    for segment in segments:
        used += len(segment)
        trace.append((segment.query, (segment.start, segment.end, segment.score), None, used))
    taken = np.zeros(len(arrays[0]), dtype=bool)
    for segment in segments:
        taken[segment.start : segment.end] = True
    free = any(bool(((array >= 0) & ~taken).any()) for array in arrays)
    if used >= overall_max_length:
        stop = StopReason.BUDGET_SPENT
    elif free:
        stop = StopReason.BELOW_MINIMUM
    else:
        stop = StopReason.NO_CANDIDATES
    return SearchResult(segments, stop, trace, [None] * len(arrays))


def total_value(segments: Sequence[Segment]) -> float:
    """The summed value of a set of segments (what the optimum maximises)."""
    return math.fsum(segment.score for segment in segments)


@dataclass(frozen=True)
class GreedyVsOptimal:
    """The greedy answer and the optimal one on the same values and limits, and the gap.

    Attributes:
        greedy: :func:`~rse_core.search.find_best_segments`'s answer (pick order).
        optimal: :func:`find_optimal_segments`'s answer (best first).
        greedy_value, optimal_value: their total values.
        gap: ``optimal_value - greedy_value`` (0 when the greedy is optimal; never below 0).
    """

    greedy: SearchResult
    optimal: SearchResult
    greedy_value: float
    optimal_value: float

    @property
    def gap(self) -> float:
        return max(0.0, self.optimal_value - self.greedy_value)

    @property
    def greedy_is_optimal(self) -> bool:
        return self.gap <= _TOLERANCE * max(1.0, abs(self.optimal_value))

    @property
    def message(self) -> str:
        """One line for a page: both totals and what each takes."""

        def runs(result: SearchResult) -> str:
            if not result:
                return "nothing"
            return " + ".join(
                f"{s.start}-{s.end - 1} ({s.score:.2f})" if len(s) > 1 else f"{s.start} ({s.score:.2f})" for s in result
            )

        if self.greedy_is_optimal:
            return f"The greedy answer is optimal: {runs(self.greedy)} = {self.greedy_value:.2f}."
        return (
            f"Greedy takes {runs(self.greedy)} = {self.greedy_value:.2f}; the optimum is "
            f"{runs(self.optimal)} = {self.optimal_value:.2f}, {self.gap:.2f} more."
        )


def compare_with_greedy(
    values: Sequence[float] | Sequence[Sequence[float]] | np.ndarray,
    *,
    max_length: int,
    overall_max_length: int,
    minimum_value: float,
    document_splits: Sequence[int] = (),
) -> GreedyVsOptimal:
    """Run the greedy search and the exact solver on the same input (limits as for both)."""
    from rse_core.search import find_best_segments

    limits = {
        "max_length": max_length,
        "overall_max_length": overall_max_length,
        "minimum_value": minimum_value,
        "document_splits": document_splits,
    }
    greedy = find_best_segments(values, **limits)
    optimal = find_optimal_segments(values, **limits)
    return GreedyVsOptimal(greedy, optimal, total_value(greedy), total_value(optimal))
