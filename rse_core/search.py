"""Greedy search for the best contiguous segments of chunks.

Semantics are those of the RSE authors' reference (dsRAG's ``get_best_segments``):

1. Queries take turns (round-robin). On its turn a query picks its best remaining segment: the
   contiguous run of chunks with the highest sum of values such that it starts and ends on a chunk
   with a non-negative value, is at most ``max_length`` chunks long, overlaps no segment already
   picked (by any query), does not cross a document split, and does not push the total number of
   chunks past ``overall_max_length``.
2. Ties go to the earliest start, then the shortest segment.
3. If that best segment is worth less than ``minimum_value`` (or there is none), the query retires.
   A segment worth exactly ``minimum_value`` is kept (dsRAG's ``>=``; one course text says
   "greater than", which differs only on that boundary).
4. The search ends when the chunk budget is spent or every query has retired.

The reference scans every (start, end) pair on every pick, in Python. Here each query's
candidates (pairs whose two ends are non-negative, within one document) are built once with numpy;
a pick removes the candidates it overlaps, and a shrinking budget removes those that no longer fit.
Both removals are permanent, so each pick is one vectorised max over what is left. Candidate sums
are accumulated left to right, the order in which Python's ``sum`` adds, and near-ties are settled
with ``sum`` itself, so scores and tie-breaks match the reference to the last bit.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from .errors import ParameterError

# Up to Python 3.11, ``sum`` of floats adds left to right, exactly like ``np.cumsum``; from 3.12
# it compensates rounding, so sums within this tolerance of the best are re-added with ``sum``.
_SUM_IS_SEQUENTIAL = sys.version_info < (3, 12)
_TIE_TOLERANCE = 1e-9


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
        steps: every turn, in order, for step-through displays (built on first use, so the
            search itself stays lean).
        query_stops: per query, why it retired (``None`` if it was still active at the end).
    """

    def __init__(
        self,
        segments: Sequence[Segment],
        stop_reason: StopReason,
        trace: Sequence[tuple[int, tuple[int, int, float] | None, StopReason | None, int]],
        query_stops: Sequence[StopReason | None],
    ) -> None:
        super().__init__(segments)
        self.stop_reason = stop_reason
        self.query_stops = tuple(query_stops)
        self._trace = trace
        self._steps: tuple[SearchStep, ...] | None = None

    @property
    def steps(self) -> tuple[SearchStep, ...]:
        if self._steps is None:
            self._steps = tuple(
                SearchStep(query, None if best is None else Segment(*best, query), retired is None, retired, used)
                for query, best, retired, used in self._trace
            )
        return self._steps

    @property
    def segments(self) -> list[Segment]:
        return list(self)

    @property
    def chunks_used(self) -> int:
        return sum(len(segment) for segment in self)


class _Candidates:
    """All segments of one query whose first and last chunk are non-negative.

    Built as a (non-negative start) x (length) grid: one cumulative sum along each row gives
    every candidate's sum, added left to right like Python's ``sum``. Flattened row by row, the
    candidates are in (start, end) order, so ``argmax`` (first of equal maxima) is the
    reference's tie-break. A candidate that overlaps a pick or outgrows the budget gets the sum
    ``-inf``; both are permanent, so each pick costs one ``argmax``.
    """

    def __init__(self, values: np.ndarray, exact: Sequence[float], max_length: int, splits: np.ndarray) -> None:
        self.exact = exact
        self.max_length = max_length
        n = len(values)
        starts = np.flatnonzero(values >= 0)
        ends = starts[:, None] + np.arange(min(max_length, n))  # inclusive ends
        clipped = np.minimum(ends, n - 1)
        terms = values[clipped]
        next_split = splits[splits.searchsorted(starts, side="right").clip(max=len(splits) - 1)]
        keep = (ends < next_split[:, None]) & (terms >= 0)
        flat = np.flatnonzero(keep)
        rows, offsets = np.divmod(flat, ends.shape[1]) if len(flat) else (flat, flat)
        self.sums = np.cumsum(terms, axis=1).ravel()[flat]
        self.starts = starts[rows]
        self.ends = self.starts + offsets + 1

    def best(self, budget: int) -> tuple[int, int, float] | None:
        """(start, end, sum) of the best live candidate at most ``budget`` chunks long.

        Ties go to the earliest start, then the shortest.
        """
        if budget < self.max_length:  # budgets only shrink: what no longer fits never will
            self.sums[self.ends - self.starts > budget] = -np.inf
        if not len(self.sums):
            return None
        index = int(self.sums.argmax())
        top = self.sums[index]
        if top == -np.inf:
            return None
        if not _SUM_IS_SEQUENTIAL:
            # This Python's ``sum`` compensates rounding: settle near-ties with ``sum`` itself.
            near = np.flatnonzero(self.sums >= top - _TIE_TOLERANCE * max(1.0, abs(top)))
            scored = [(self._exact_sum(i), i) for i in near.tolist()]
            best_sum = max(score for score, _ in scored)
            index = min(i for score, i in scored if score == best_sum)
        return int(self.starts[index]), int(self.ends[index]), self._exact_sum(index)

    def remove_overlapping(self, start: int, end: int) -> None:
        """Retire candidates overlapping chunks ``start:end`` (only starts in reach can)."""
        low = int(self.starts.searchsorted(start - self.max_length + 1))
        high = int(self.starts.searchsorted(end))
        window = self.sums[low:high]
        window[self.ends[low:high] > start] = -np.inf

    def _exact_sum(self, index: int) -> float:
        return sum(self.exact[int(self.starts[index]) : int(self.ends[index])])


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
    _check_limits(max_length, overall_max_length, minimum_value)
    queries = _as_query_arrays(values)
    n = len(queries[0][0])
    splits = _split_points(document_splits, n)
    candidates = [_Candidates(array, exact, max_length, splits) for array, exact in queries]

    picked: list[Segment] = []
    trace: list[tuple[int, tuple[int, int, float] | None, StopReason | None, int]] = []
    query_stops: list[StopReason | None] = [None] * len(queries)
    active = len(queries)
    total = 0
    turn = 0
    while total < overall_max_length and active:
        query = turn % len(queries)
        turn += 1
        if query_stops[query] is not None:
            continue
        best = candidates[query].best(overall_max_length - total)
        if best is None or best[2] < minimum_value:
            query_stops[query] = StopReason.NO_CANDIDATES if best is None else StopReason.BELOW_MINIMUM
            active -= 1
            trace.append((query, best, query_stops[query], total))
            continue
        start, end, score = best
        picked.append(Segment(start, end, score, query))
        total += end - start
        for query_candidates in candidates:
            query_candidates.remove_overlapping(start, end)
        trace.append((query, best, None, total))

    if total >= overall_max_length:
        stop_reason = StopReason.BUDGET_SPENT
    elif StopReason.BELOW_MINIMUM in query_stops:
        stop_reason = StopReason.BELOW_MINIMUM
    else:
        stop_reason = StopReason.NO_CANDIDATES
    return SearchResult(picked, stop_reason, trace, query_stops)


def _split_points(document_splits: Sequence[int], n: int) -> np.ndarray:
    """Sorted chunk indices where a new document starts, ending with ``n``."""
    return np.array(sorted({int(split) for split in document_splits if 0 < int(split) < n} | {n}))


def _as_query_arrays(values: object) -> list[tuple[np.ndarray, Sequence[float]]]:
    """Per query: the values as a float64 array, and a sequence for exact ``sum`` re-adds.

    A list given by the caller is kept for the re-adds (so its own element types are summed, as
    the reference does); an array is re-added through ``tolist`` slices.
    """
    if isinstance(values, np.ndarray):
        rows = [values] if values.ndim == 1 else list(values)
    elif isinstance(values, Sequence) and not isinstance(values, (str, bytes)):
        nested = len(values) > 0 and isinstance(values[0], (Sequence, np.ndarray))
        rows = list(values) if nested else [values]
    else:
        raise ParameterError("values must be a sequence of numbers, or a list of such sequences (one per query).")
    queries = []
    for number, row in enumerate(rows):
        try:
            array = np.asarray(row)
        except (TypeError, ValueError) as error:
            raise ParameterError(f"values of query {number} must be numbers ({error}).") from error
        if array.ndim != 1 or not (np.issubdtype(array.dtype, np.number) or len(array) == 0):
            raise ParameterError(f"values of query {number} must be one number per chunk.")
        array = array.astype(np.float64, copy=False)
        finite = np.isfinite(array)
        if not finite.all():
            bad = int(np.flatnonzero(~finite)[0])
            raise ParameterError(f"value of chunk {bad} (query {number}) is {array[bad]}; values must be finite.")
        exact = row if isinstance(row, (list, tuple)) else _TolistSlices(array)
        queries.append((array, exact))
    lengths = {len(array) for array, _ in queries}
    if len(lengths) > 1:
        raise ParameterError(f"every query needs one value per chunk; got lengths {sorted(lengths)}.")
    return queries


class _TolistSlices:
    """Slices of an array as lists of Python floats (what ``sum`` adds in the reference)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __getitem__(self, index: slice) -> list[float]:
        return self.array[index].tolist()


def _check_limits(max_length: object, overall_max_length: object, minimum_value: object) -> None:
    for label, limit in (("max_length", max_length), ("overall_max_length", overall_max_length)):
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise ParameterError(f"{label} must be a whole number of chunks, at least 1; got {limit!r}.")
    if not isinstance(minimum_value, (int, float, np.floating)) or not math.isfinite(minimum_value):
        raise ParameterError(f"minimum_value must be a finite number; got {minimum_value!r}.")
