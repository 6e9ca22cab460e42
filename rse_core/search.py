"""Greedy search for the best contiguous segments of chunks.

Semantics are those of the RSE authors' reference (dsRAG's ``get_best_segments``):

1. Queries take turns (round-robin). On its turn a query picks its best remaining segment: the
   contiguous run of chunks with the highest sum of values such that it starts and ends on a chunk
   with a non-negative value, is at most ``max_length`` chunks long, overlaps no segment already
   picked (by any query), does not cross a document split, and does not push the total number of
   chunks past ``overall_max_length``.
2. Ties go to the earliest start, then the shortest segment.
3. If that best segment is worth less than ``minimum_value`` (or there is none), the query retires.
4. The search ends when the chunk budget is spent or every query has retired.

The reference scans every (start, end) pair on every pick. Here each query's candidates (pairs
whose two ends are non-negative) are built once with numpy, sorted by value, and walked with a
pointer: a candidate that becomes invalid (it overlaps a pick, or no longer fits the budget) stays
invalid, so no candidate is looked at twice. Candidate sums are accumulated left to right, the
order in which Python's ``sum`` adds, and near-ties are settled with ``sum`` itself, so scores and
tie-breaks match the reference to the last bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from .errors import ParameterError

# Sums closer than this to the best are re-added with Python's ``sum`` before a tie is broken.
_TIE_TOLERANCE = 1e-9
_BLOCK = 2048


class StopReason(StrEnum):
    """Why the search (or one query of it) stopped."""

    BUDGET_SPENT = "budget_spent"
    BELOW_MINIMUM = "below_minimum"
    NO_CANDIDATES = "no_candidates"

    @property
    def explanation(self) -> str:
        return {
            StopReason.BUDGET_SPENT: "the overall chunk budget is spent",
            StopReason.BELOW_MINIMUM: "the best remaining segment is worth less than the minimum segment value",
            StopReason.NO_CANDIDATES: "no segment can be formed: no unused chunk with a non-negative value fits",
        }[self]


@dataclass(frozen=True)
class Segment:
    """Chunks ``start`` to ``end`` (end exclusive) of the (meta-)document, picked for ``query``."""

    start: int
    end: int
    score: float
    query: int = 0

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class SearchStep:
    """One turn of the greedy search.

    Attributes:
        query: index of the query whose turn it was.
        best: the best remaining segment for that query, or ``None`` when there was none.
        accepted: whether ``best`` was added to the result.
        retired: why the query retired on this turn (``None`` when ``best`` was accepted).
        chunks_used: total chunks in the result after this turn.
    """

    query: int
    best: Segment | None
    accepted: bool
    retired: StopReason | None
    chunks_used: int


class SearchResult(list):
    """The picked segments in pick order (a plain ``list`` of :class:`Segment`), plus the trace.

    Attributes:
        stop_reason: why the whole search ended.
        steps: every turn, in order, for step-through displays.
        query_stops: per query, why it retired (``None`` if it was still active at the end).
    """

    def __init__(
        self,
        segments: Sequence[Segment],
        stop_reason: StopReason,
        steps: Sequence[SearchStep],
        query_stops: Sequence[StopReason | None],
    ) -> None:
        super().__init__(segments)
        self.stop_reason = stop_reason
        self.steps = tuple(steps)
        self.query_stops = tuple(query_stops)

    @property
    def segments(self) -> list[Segment]:
        return list(self)

    @property
    def chunks_used(self) -> int:
        return sum(len(segment) for segment in self)


class _Candidates:
    """All segments of one query whose first and last chunk are non-negative, best first."""

    def __init__(self, values: list[float], max_length: int, doc_of: np.ndarray) -> None:
        self.values = values
        array = np.asarray(values, dtype=np.float64)
        n = len(array)
        starts = np.flatnonzero(array >= 0)
        run = np.zeros(len(starts))
        all_starts, all_ends, all_sums = [], [], []
        for offset in range(min(max_length, n)):
            ends = starts + offset  # inclusive end
            inside = ends < n
            starts, ends, run = starts[inside], ends[inside], run[inside]
            run = run + array[ends]  # left-to-right, as ``sum`` adds
            keep = (array[ends] >= 0) & (doc_of[ends] == doc_of[starts])
            all_starts.append(starts[keep])
            all_ends.append(ends[keep] + 1)
            all_sums.append(run[keep])
            # Segments that already cross a split stay crossed as they grow.
            same_doc = doc_of[ends] == doc_of[starts]
            starts, run = starts[same_doc], run[same_doc]
        if all_starts:
            starts = np.concatenate(all_starts)
            ends = np.concatenate(all_ends)
            sums = np.concatenate(all_sums)
        else:
            starts = ends = np.zeros(0, dtype=np.int64)
            sums = np.zeros(0)
        order = np.lexsort((ends, starts, -sums))
        self.starts = starts[order]
        self.ends = ends[order]
        self.sums = sums[order]
        self.pointer = 0

    def best(self, occupied_prefix: np.ndarray, budget: int) -> Segment | None:
        """Best candidate that overlaps no pick and is at most ``budget`` chunks long."""
        first = self._first_valid(occupied_prefix, budget)
        if first is None:
            return None
        self.pointer = first
        # Candidates whose float sums are within the tolerance of the best: settle exactly.
        cutoff = self.sums[first] - _TIE_TOLERANCE * max(1.0, abs(self.sums[first]))
        last = int(np.searchsorted(-self.sums, -cutoff, side="right"))
        near = np.arange(first, max(last, first + 1))
        near = near[self._valid(near, occupied_prefix, budget)]
        if len(near) == 1:
            start, end = int(self.starts[first]), int(self.ends[first])
            return Segment(start, end, sum(self.values[start:end]))
        scored = [
            (sum(self.values[int(self.starts[i]) : int(self.ends[i])]), int(self.starts[i]), int(self.ends[i]))
            for i in near
        ]
        best_sum = max(score for score, _, _ in scored)
        start, end = min((start, end) for score, start, end in scored if score == best_sum)
        return Segment(start, end, best_sum)

    def _valid(self, indices: np.ndarray, occupied_prefix: np.ndarray, budget: int) -> np.ndarray:
        starts, ends = self.starts[indices], self.ends[indices]
        return (ends - starts <= budget) & (occupied_prefix[ends] == occupied_prefix[starts])

    def _first_valid(self, occupied_prefix: np.ndarray, budget: int) -> int | None:
        position = self.pointer
        total = len(self.starts)
        while position < total:
            block = np.arange(position, min(position + _BLOCK, total))
            valid = np.flatnonzero(self._valid(block, occupied_prefix, budget))
            if len(valid):
                return int(block[valid[0]])
            position = int(block[-1]) + 1
            self.pointer = position  # everything before is invalid for good
        return None


def find_best_segments(
    values: Sequence[float] | Sequence[Sequence[float]] | np.ndarray,
    *,
    max_length: int,
    overall_max_length: int,
    minimum_value: float,
    document_splits: Sequence[int] = (),
) -> SearchResult:
    """Pick the best non-overlapping segments, greedily, as RSE's authors define it.

    Args:
        values: chunk values in document order for one query, or one such sequence per query
            (all the same length; queries then take turns).
        max_length: most chunks in one segment.
        overall_max_length: most chunks in all segments together.
        minimum_value: a query stops when its best remaining segment is worth less than this.
        document_splits: chunk indices where a new document starts; no segment crosses one.

    Returns:
        A :class:`SearchResult`: the segments in the order they were picked, with
        ``stop_reason`` and the step-by-step trace.

    Raises:
        ParameterError: a limit is out of range, or the values are ragged or not finite.
    """
    queries = _as_query_lists(values)
    _check_limits(max_length, overall_max_length, minimum_value)
    n = len(queries[0]) if queries else 0
    splits = np.array(sorted({int(split) for split in document_splits}), dtype=np.int64)
    doc_of = np.searchsorted(splits, np.arange(n), side="right")
    candidates = [_Candidates(query_values, max_length, doc_of) for query_values in queries]

    occupied = np.zeros(n, dtype=np.int64)
    occupied_prefix = np.zeros(n + 1, dtype=np.int64)
    picked: list[Segment] = []
    steps: list[SearchStep] = []
    query_stops: list[StopReason | None] = [None] * len(queries)
    total = 0
    turn = 0
    while total < overall_max_length and any(stop is None for stop in query_stops):
        query = turn % len(queries)
        turn += 1
        if query_stops[query] is not None:
            continue
        best = candidates[query].best(occupied_prefix, overall_max_length - total)
        if best is None or best.score < minimum_value:
            reason = StopReason.NO_CANDIDATES if best is None else StopReason.BELOW_MINIMUM
            query_stops[query] = reason
            best = None if best is None else Segment(best.start, best.end, best.score, query)
            steps.append(SearchStep(query, best, False, reason, total))
            continue
        segment = Segment(best.start, best.end, best.score, query)
        picked.append(segment)
        total += len(segment)
        occupied[segment.start : segment.end] = 1
        occupied_prefix[1:] = np.cumsum(occupied)
        steps.append(SearchStep(query, segment, True, None, total))

    if total >= overall_max_length and queries:
        stop_reason = StopReason.BUDGET_SPENT
    elif StopReason.BELOW_MINIMUM in query_stops:
        stop_reason = StopReason.BELOW_MINIMUM
    else:
        stop_reason = StopReason.NO_CANDIDATES
    return SearchResult(picked, stop_reason, steps, query_stops)


def _as_query_lists(values: object) -> list[list[float]]:
    """One list of Python floats per query; validates shape and finiteness."""
    array_like = values.tolist() if isinstance(values, np.ndarray) else values
    if not isinstance(array_like, Sequence) or isinstance(array_like, (str, bytes)):
        raise ParameterError("values must be a sequence of numbers, or a list of such sequences (one per query).")
    if len(array_like) and isinstance(array_like[0], (Sequence, np.ndarray)):
        queries = [list(query.tolist() if isinstance(query, np.ndarray) else query) for query in array_like]
    else:
        queries = [list(array_like)]
    lengths = {len(query) for query in queries}
    if len(lengths) > 1:
        raise ParameterError(f"every query needs one value per chunk; got lengths {sorted(lengths)}.")
    cleaned = []
    for number, query in enumerate(queries):
        try:
            floats = [float(value) for value in query]
        except (TypeError, ValueError) as error:
            raise ParameterError(f"values of query {number} must be numbers ({error}).") from error
        bad = next((index for index, value in enumerate(floats) if not math.isfinite(value)), None)
        if bad is not None:
            raise ParameterError(f"value of chunk {bad} (query {number}) is {floats[bad]}; values must be finite.")
        cleaned.append(floats)
    return cleaned


def _check_limits(max_length: object, overall_max_length: object, minimum_value: object) -> None:
    for label, limit in (("max_length", max_length), ("overall_max_length", overall_max_length)):
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise ParameterError(f"{label} must be a whole number of chunks, at least 1; got {limit!r}.")
    if not isinstance(minimum_value, (int, float, np.floating)) or not math.isfinite(minimum_value):
        raise ParameterError(f"minimum_value must be a finite number; got {minimum_value!r}.")
