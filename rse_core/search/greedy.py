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

from rse_core.errors import ParameterError, SearchTooLargeError

# Up to Python 3.11, ``sum`` of floats adds left to right, exactly like ``np.cumsum``; from 3.12
# it compensates rounding (Neumaier), so sums within this tolerance of the best are re-added the
# way ``sum`` adds them: vectorised (:func:`compensated_sums`) when every value is a Python float.
_SUM_IS_SEQUENTIAL = sys.version_info < (3, 12)
_TIE_TOLERANCE = 1e-9
_python_sum = sum  # what the reference adds with; a test swaps in a 3.12 emulation on 3.11

MAX_GRID_BYTES = 2 * 1024**3
"""Most memory the candidate grid of one query may take (about 40 bytes per (start, length)
cell); past it the search is refused with the limits to lower, instead of a numpy MemoryError."""
_GRID_CELL_BYTES = 40
_MANY_TIES = 64  # more near-ties than this: re-add every candidate at once, vectorised


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

    def __init__(
        self, values: np.ndarray, exact: Sequence[float], max_length: int, splits: np.ndarray, floats: bool
    ) -> None:
        self.values = values
        self.exact = exact
        self.floats = floats  # every exact value is a Python float: near-ties can be re-added vectorised
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
        self.lengths = offsets + 1
        self.ends = self.starts + self.lengths
        self._fits = max_length  # every live candidate is at most this long
        self._sums_exact = False  # True once sums are what this Python's ``sum`` gives

    def best(self, budget: int) -> tuple[int, int, float] | None:
        """(start, end, sum) of the best live candidate at most ``budget`` chunks long.

        Ties go to the earliest start, then the shortest.
        """
        if budget < self._fits:  # budgets only shrink: what no longer fits never will
            self.sums[self.lengths > budget] = -np.inf
            self._fits = budget
        if not len(self.sums):
            return None
        index = int(self.sums.argmax())
        top = self.sums[index]
        if top == -np.inf:
            return None
        if not _SUM_IS_SEQUENTIAL and not self._sums_exact:
            # This Python's ``sum`` compensates rounding: settle near-ties the way ``sum`` adds.
            near = np.flatnonzero(self.sums >= top - _TIE_TOLERANCE * max(1.0, abs(top)))
            if self.floats and len(near) > _MANY_TIES:
                self._make_sums_exact()
                return self.best(budget)
            exact = [self._exact_sum(i) for i in near.tolist()]
            index = int(near[int(np.argmax(exact))])  # argmax: first of equal maxima, the earliest
        return int(self.starts[index]), int(self.ends[index]), self._exact_sum(index)

    def _make_sums_exact(self) -> None:
        """Replace every live candidate's sum by ``sum`` as this Python adds it, once.

        With many near-ties (all values equal: a query that matches nothing) re-adding them one
        by one on every pick cost 29 s at 20,000 chunks; after this, a pick is one ``argmax``.
        """
        live = np.flatnonzero(self.sums != -np.inf)
        self.sums[live] = compensated_sums(self.values, self.starts[live], self.ends[live])
        self._sums_exact = True

    def remove_overlapping(self, start: int, end: int) -> None:
        """Retire candidates overlapping chunks ``start:end`` (only starts in reach can)."""
        low = int(self.starts.searchsorted(start - self.max_length + 1))
        high = int(self.starts.searchsorted(end))
        window = self.sums[low:high]
        window[self.ends[low:high] > start] = -np.inf

    def _exact_sum(self, index: int) -> float:
        return _python_sum(self.exact[int(self.starts[index]) : int(self.ends[index])])


def compensated_sums(values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``sum(values[s:e])`` for every pair, exactly as CPython >= 3.12 adds a list of floats.

    CPython starts from the integer 0 (``0 + x`` turns ``-0.0`` into ``0.0``), then runs
    Neumaier's compensated summation and adds the compensation at the end if it is not 0. Sums
    that share a start share their prefix, so the running (total, compensation) is advanced once
    per distinct start, one numpy step per position, and each pair reads it at its length: ties
    over a whole document cost a few array operations per chunk of the longest candidate instead
    of a Python loop per candidate. Sums are finite (values whose total overflows are refused).
    """
    if not len(starts):
        return np.empty(0, dtype=np.float64)
    if np.all(starts[1:] >= starts[:-1]):  # the candidates' order: no sort needed
        new_row = np.concatenate(([True], starts[1:] != starts[:-1]))
        rows, row_of = starts[new_row], np.cumsum(new_row) - 1
    else:
        rows, row_of = np.unique(starts, return_inverse=True)
    lengths = ends - starts
    width = int(lengths.max())
    last = len(values) - 1
    results = np.empty((len(rows), width), dtype=np.float64)  # row r, column k: sum of k + 1 values
    total = values[rows] + 0.0
    compensation = np.zeros_like(total)
    for offset in range(width):
        if offset:
            item = values[np.minimum(rows + offset, last)]
            step = total + item
            compensation = compensation + np.where(
                np.abs(total) >= np.abs(item), (total - step) + item, (item - step) + total
            )
            total = step
        results[:, offset] = np.where(compensation != 0, total + compensation, total)
    return results[row_of, lengths - 1]


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
        ParameterError: a limit is out of range, the values are ragged, not finite or too large
            to add, or the search would need more than :data:`MAX_GRID_BYTES` of memory
            (:class:`SearchTooLargeError`).
    """
    _check_limits(max_length, overall_max_length, minimum_value)
    queries = _as_query_arrays(values)
    candidates = _candidate_grids(queries, max_length, overall_max_length, document_splits)

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

    return SearchResult(picked, _overall_stop(total, overall_max_length, query_stops), trace, query_stops)


def _overall_stop(total: int, overall_max_length: int, query_stops: Sequence[StopReason | None]) -> StopReason:
    """Why the whole search ended: the budget, else a query's best fell below the minimum, else nothing was left."""
    if total >= overall_max_length:
        return StopReason.BUDGET_SPENT
    if StopReason.BELOW_MINIMUM in query_stops:
        return StopReason.BELOW_MINIMUM
    return StopReason.NO_CANDIDATES


def _candidate_grids(queries, max_length: int, overall_max_length: int, document_splits: Sequence[int]) -> list:
    """Every query's candidate segments, within the memory the search may use."""
    n = len(queries[0][0])
    # No segment is longer than the document or the overall budget: a wider grid only costs memory.
    width = max(1, min(int(max_length), int(overall_max_length), n))
    _check_grid(queries, width, max_length)
    splits = _split_points(document_splits, n)
    return [_Candidates(array, exact, width, splits, floats) for array, exact, floats in queries]


def _split_points(document_splits: Sequence[int], n: int) -> np.ndarray:
    """Sorted chunk indices where a new document starts, ending with ``n``."""
    if isinstance(document_splits, (str, bytes)):
        document_splits = [document_splits]
    points = set()
    for split in document_splits:
        if isinstance(split, bool) or not isinstance(split, (int, np.integer)):
            raise ParameterError(
                f"document_splits must be whole chunk indices (where each document starts); got {split!r}."
            )
        if 0 < split < n:
            points.add(int(split))
    return np.array(sorted(points | {n}))


def _check_grid(queries: list, width: int, max_length: int) -> None:
    """Refuse a search whose candidate grid would not fit in :data:`MAX_GRID_BYTES`."""
    for array, _, _ in queries:
        cells = int(np.count_nonzero(array >= 0)) * width
        if cells * _GRID_CELL_BYTES > MAX_GRID_BYTES:
            raise SearchTooLargeError(
                f"The segment search would need about {cells * _GRID_CELL_BYTES / 1024**3:.1f} GB for "
                f"{len(array):,} chunks with up to {width:,} chunks per segment (max_length={max_length:,}); "
                f"the limit is {MAX_GRID_BYTES / 1024**3:g} GB. Lower max_length or overall_max_length "
                "(dsRAG's presets use 15 to 40), or use a larger chunk size."
            )


def _as_query_arrays(values: object) -> list[tuple[np.ndarray, Sequence[float], bool]]:
    """Per query: the values as a float64 array, a sequence for exact ``sum`` re-adds, and
    whether that sequence holds only Python floats (then re-adds can be vectorised).

    A list given by the caller is kept for the re-adds (so its own element types are summed, as
    the reference does); an array is re-added through ``tolist`` slices.
    """
    if isinstance(values, np.ndarray):
        if values.ndim == 0:
            raise ParameterError("values must be a sequence of numbers (one per chunk), not a single number.")
        if values.ndim == 2 and values.shape[0] == 0:
            raise ParameterError("values has no query (a 0-row array); give one row of chunk values per query.")
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
        except (TypeError, ValueError, OverflowError) as error:
            raise ParameterError(f"values of query {number} must be numbers ({error}).") from error
        if array.ndim != 1 or not (np.issubdtype(array.dtype, np.number) or len(array) == 0):
            raise ParameterError(f"values of query {number} must be one number per chunk.")
        if np.issubdtype(array.dtype, np.complexfloating):
            raise ParameterError(f"values of query {number} are complex numbers; give real numbers, one per chunk.")
        try:
            array = array.astype(np.float64, copy=False)
        except OverflowError as error:
            raise ParameterError(f"values of query {number} are too large for a float ({error}).") from error
        finite = np.isfinite(array)
        if not finite.all():
            bad = int(np.flatnonzero(~finite)[0])
            raise ParameterError(f"value of chunk {bad} (query {number}) is {array[bad]}; values must be finite.")
        with np.errstate(over="ignore"):
            total = float(np.abs(array).sum())
        if not math.isfinite(total):
            raise ParameterError(
                f"values of query {number} are so large that a segment's sum overflows; scale them down."
            )
        if isinstance(row, (list, tuple)):
            exact, floats = row, all(type(item) is float for item in row)
        else:
            exact, floats = _TolistSlices(array), True
        queries.append((array, exact, floats))
    lengths = {len(array) for array, _, _ in queries}
    if len(lengths) > 1:
        raise ParameterError(f"every query needs one value per chunk; got lengths {sorted(lengths)}.")
    return queries


class _TolistSlices:
    """Slices of an array as lists of Python floats (what ``sum`` adds in the reference)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __getitem__(self, index: slice) -> list[float]:
        return self.array[index].tolist()


def _short_repr(value: object) -> str:
    """``repr`` cut to 40 characters; a huge int (whose repr Python may refuse) by its size."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103):,} digits"
    return repr(value)[:40]


def _check_limits(max_length: object, overall_max_length: object, minimum_value: object) -> None:
    for label, limit in (("max_length", max_length), ("overall_max_length", overall_max_length)):
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise ParameterError(f"{label} must be a whole number of chunks, at least 1; got {limit!r}.")
    number = isinstance(minimum_value, (int, float, np.integer, np.floating)) and not isinstance(minimum_value, bool)
    try:
        finite = number and math.isfinite(float(minimum_value))
    except OverflowError:  # an int too large for a float
        finite = False
    if not finite:
        shown = _short_repr(minimum_value)
        raise ParameterError(f"minimum_value must be a finite number (at most about 1e308); got {shown}.")
