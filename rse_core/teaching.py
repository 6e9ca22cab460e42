"""Teaching aids: the explanations a teacher writes on the board, computed rather than guessed.

- :func:`candidate_segments`: every segment of a small example with its sum and a note
  comparing it with the best ("dropping chunk 2 loses 0.4").
- :func:`explain_search`: each turn of the greedy search, with the constraint that shaped the
  pick, found by relaxing the constraints one at a time and re-solving.
- :func:`check_answer`: whether a student's segment is the one the search picks, and why not.
- :func:`explain_chunk`: why one chunk of a real corpus is in or out, and the penalty at which
  that would change (bracketed on a grid, bisected to 1e-4 and verified with ``run_rse``).

Chunk numbers in messages are 0-based corpus indices, as in the course's worked examples
(values -0.2, -0.2, 0.4, 0.8, -0.1: the best segment is "chunks 2-3"); ranges are inclusive in
messages and in :func:`check_answer`, end-exclusive in :class:`~rse_core.search.Segment`.
Queries are numbered from 1 in messages ("query 2"), segments S1, S2, ... in pick order.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from .errors import ParameterError, RSEError
from .params import RSEParams
from .pipeline import Corpus, ExtractionResult, run_rse
from .scoring import Calibration
from .search import Segment, StopReason, find_best_segments
from .sweep import ValueBasis

MAX_TEACHING_VALUES = 100
"""Longest value list :func:`candidate_segments` accepts: it lists O(n²) rows, for the board."""

PENALTY_GRID_STEP = 0.01
"""Step of the penalty scan in :func:`explain_chunk` (before bisecting to 1e-4)."""

PENALTY_PRECISION = 1e-4


# --------------------------------------------------------------------------- formatting


def _num(x: float) -> str:
    """Two decimals, one trailing zero dropped ("1.2", "0.35", "2.0"); tiny values keep two digits."""
    if x != 0 and abs(x) < 0.005:
        return f"{x:.2g}"
    text = f"{x:.2f}"
    if text.endswith("0"):
        text = text[:-1]
    return "0.0" if text in ("-0.0", "0.0") else text


def _chunks(start: int, end: int) -> str:
    """``"chunk 3"`` or ``"chunks 2-4"`` for chunks ``start:end`` (end exclusive)."""
    return f"chunk {start}" if end - start == 1 else f"chunks {start}-{end - 1}"


def _is_are(start: int, end: int) -> str:
    """``"chunk 3 is"`` or ``"chunks 2-4 are"``."""
    return f"{_chunks(start, end)} {'is' if end - start == 1 else 'are'}"


def _chunk_set(indices: Sequence[int]) -> str:
    """Indices as runs: ``"chunk 2 and chunks 5-6"``."""
    runs: list[list[int]] = []
    for index in sorted(indices):
        if runs and index == runs[-1][1]:
            runs[-1][1] += 1
        else:
            runs.append([index, index + 1])
    if len(runs) > 1 and all(end - start == 1 for start, end in runs):
        return "chunks " + _and([str(start) for start, _ in runs])
    return _and([_chunks(start, end) for start, end in runs])


def _and(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _valued(values: np.ndarray, indices: Sequence[int]) -> str:
    """``"chunk 4 (-0.1)"``, ``"chunks 1 (-0.6) and 4 (-0.1)"``."""
    indices = list(indices)
    word = "chunk" if len(indices) == 1 else "chunks"
    return f"{word} " + _and([f"{i} ({_num(values[i])})" for i in indices])


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _single(values: Sequence[float] | np.ndarray) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ParameterError(f"values must be one list of numbers ({error}).") from error
    if array.ndim != 1:
        raise ParameterError("values must be one list of numbers (one query) here.")
    if not np.isfinite(array).all():
        raise ParameterError("values must be finite numbers.")
    return array


def _split_points(document_splits: Sequence[int], n: int) -> list[int]:
    return sorted({int(split) for split in document_splits if 0 < int(split) < n})


def _crossed(splits: Sequence[int], start: int, end: int) -> list[int]:
    return [split for split in splits if start < split < end]


# --------------------------------------------------------------------------- candidate segments


@dataclass(frozen=True)
class CandidateSegment:
    """One row of the board: a segment, its sum, and what to say about it.

    Attributes:
        start, end: chunks ``start:end`` (end exclusive).
        value: the sum of their values.
        allowed: whether the search may pick it (non-negative ends, within one document, at
            most ``max_length`` chunks).
        best: the allowed segment the search picks first (ties: earliest start, then shortest).
        note: "best", or how it compares with the best, or why it is not allowed.
    """

    start: int
    end: int
    value: float
    allowed: bool
    best: bool
    note: str

    @property
    def first(self) -> int:
        return self.start

    @property
    def last(self) -> int:
        return self.end - 1

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def label(self) -> str:
        return _chunks(self.start, self.end)


def candidate_segments(
    values: Sequence[float] | np.ndarray,
    *,
    max_length: int,
    document_splits: Sequence[int] = (),
    include_not_allowed: bool = True,
) -> list[CandidateSegment]:
    """Every segment a teacher would put on the board for a small example, best first.

    Rows: every segment within one document that starts and ends on a non-negative chunk and
    is at most ``max_length`` long (allowed); and, flagged as not allowed, each of those
    widened by a negative chunk on one or both ends (the tempting mistake: "2-4 has more
    chunks") and the over-long segments that would beat the best without the length limit.

    Args:
        values: chunk values of one query (at most :data:`MAX_TEACHING_VALUES`).
        max_length: most chunks in one segment.
        document_splits: chunk indices where a new document starts.
        include_not_allowed: also list the not-allowed rows.

    Returns:
        Rows sorted by value, highest first (ties: earliest start, then shortest).
    """
    array = _single(values)
    n = len(array)
    if n > MAX_TEACHING_VALUES:
        raise ParameterError(
            f"candidate_segments lists every segment, for examples of at most {MAX_TEACHING_VALUES} values; got {n}."
        )
    if isinstance(max_length, bool) or not isinstance(max_length, (int, np.integer)) or max_length < 1:
        raise ParameterError(f"max_length must be a whole number of chunks, at least 1; got {max_length!r}.")
    splits = _split_points(document_splits, n)
    bounds = [0, *splits, n]
    exact = array.tolist()
    allowed: dict[tuple[int, int], float] = {}
    too_long: dict[tuple[int, int], float] = {}
    for low, high in itertools.pairwise(bounds):
        for start in range(low, high):
            if exact[start] < 0:
                continue
            for end in range(start + 1, high + 1):
                if exact[end - 1] >= 0:
                    target = allowed if end - start <= max_length else too_long
                    target[(start, end)] = sum(exact[start:end])
    rows: list[CandidateSegment] = []
    best = min(allowed, key=lambda key: (-allowed[key], key[0], key[1] - key[0])) if allowed else None
    for (start, end), total in allowed.items():
        note = "best" if (start, end) == best else _compare_with_best(array, start, end, total, best, allowed[best])
        rows.append(CandidateSegment(start, end, total, True, (start, end) == best, note))
    if include_not_allowed:
        rows += _negative_end_rows(array, exact, allowed, bounds)
        best_value = allowed[best] if best else -math.inf
        for (start, end), total in too_long.items():
            if total > best_value and not _close(total, best_value):
                note = (
                    f"too long: {end - start} chunks, more than the max of {max_length} per segment "
                    f"(without the limit it would beat the best by {_num(total - best_value)})"
                )
                rows.append(CandidateSegment(start, end, total, False, False, note))
    rows.sort(key=lambda row: (-row.value, row.start, row.length))
    return rows


def _compare_with_best(
    values: np.ndarray, start: int, end: int, total: float, best: tuple[int, int], best_value: float
) -> str:
    best_start, best_end = best
    mine, theirs = set(range(start, end)), set(range(best_start, best_end))
    difference = best_value - total
    if _close(total, best_value):
        return (
            f"ties with the best ({_chunks(best_start, best_end)}); ties go to the earliest start, "
            "then the shortest segment"
        )
    if mine < theirs:
        dropped = sorted(theirs - mine)
        note = f"dropping {_chunk_set(dropped)} loses {_num(difference)}"
        gap = _gap_note(values, range(best_start, start), range(end, best_end))
        return f"{note}: {gap}" if gap else note
    if mine > theirs:
        added = sorted(mine - theirs)
        negatives = [i for i in added if values[i] < 0]
        positives = [_num(values[i]) for i in added if values[i] >= 0]
        note = f"adding {_chunk_set(added)} costs {_num(difference)}"
        if negatives:
            verb = "outweighs" if len(negatives) == 1 else "outweigh"
            note += f": {_valued(values, negatives)} {verb} {_and(positives)}"
        return note
    if not mine & theirs:
        return f"a separate run, {_num(difference)} less than the best ({_chunks(best_start, best_end)})"
    return f"overlaps the best ({_chunks(best_start, best_end)}) but is worth {_num(difference)} less"


def _gap_note(values: np.ndarray, left: range, right: range) -> str:
    """``"chunk 4 (-0.1) is a gap worth crossing to reach 0.6 and 0.3"`` for the chunks a
    shorter segment leaves out on its ``left`` and ``right``; empty if they hold no negative chunk.

    A negative chunk left out is always inside the longer segment (its ends are non-negative),
    so it is a gap: what it is worth crossing for are the chunks beyond it, away from the shorter one.
    """
    negatives, reached = [], []
    left_negatives = [i for i in left if values[i] < 0]
    if left_negatives:
        negatives += left_negatives
        reached += [i for i in left if i < left_negatives[-1] and values[i] >= 0]
    right_negatives = [i for i in right if values[i] < 0]
    if right_negatives:
        negatives += right_negatives
        reached += [i for i in right if i > right_negatives[0] and values[i] >= 0]
    if not negatives:
        return ""
    verb = "is a gap" if len(negatives) == 1 else "are gaps"
    return f"{_valued(values, negatives)} {verb} worth crossing to reach {_and([_num(values[i]) for i in reached])}"


def _negative_end_rows(
    values: np.ndarray, exact: list[float], allowed: dict[tuple[int, int], float], bounds: list[int]
) -> list[CandidateSegment]:
    """Allowed segments widened by one negative chunk at either or both ends."""
    rows = []
    document_of = np.searchsorted(bounds, np.arange(len(values)), side="right")
    seen: set[tuple[int, int]] = set()
    for start, end in allowed:
        for widen_left, widen_right in ((1, 0), (0, 1), (1, 1)):
            new_start, new_end = start - widen_left, end + widen_right
            if new_start < 0 or new_end > len(values) or (new_start, new_end) in seen:
                continue
            if document_of[new_start] != document_of[new_end - 1]:
                continue
            if (widen_left and values[new_start] >= 0) or (widen_right and values[new_end - 1] >= 0):
                continue
            seen.add((new_start, new_end))
            if widen_left and widen_right:
                note = (
                    f"starts and ends on negative chunks ({_num(values[new_start])}, {_num(values[new_end - 1])}): "
                    f"adding chunks {new_start} and {new_end - 1} subtracts"
                )
            elif widen_left:
                note = f"starts on a negative chunk ({_num(values[new_start])}): adding chunk {new_start} subtracts"
            else:
                note = f"ends on a negative chunk ({_num(values[new_end - 1])}): adding chunk {new_end - 1} subtracts"
            rows.append(CandidateSegment(new_start, new_end, sum(exact[new_start:new_end]), False, False, note))
    return rows


# --------------------------------------------------------------------------- explain the search


class Constraint(StrEnum):
    """A limit on the search that can be relaxed to see whether it shaped a pick."""

    MAX_LENGTH = "max_length"
    BUDGET = "overall_budget"
    OVERLAP = "overlap"
    DOCUMENT_SPLITS = "document_splits"

    @property
    def label(self) -> str:
        return {
            Constraint.MAX_LENGTH: "max chunks per segment",
            Constraint.BUDGET: "remaining overall chunk budget",
            Constraint.OVERLAP: "no overlap with earlier picks",
            Constraint.DOCUMENT_SPLITS: "document splits",
        }[self]


class StepKind(StrEnum):
    PICK = "pick"
    RETIRE = "retire"
    STOP = "stop"


@dataclass(frozen=True)
class Relaxation:
    """The best segment for the query on that turn with some constraints lifted.

    ``binds`` is true when it is worth more than the actual pick: lifting them changes the answer.
    """

    constraints: tuple[Constraint, ...]
    best: Segment | None
    binds: bool


@dataclass(frozen=True)
class StepExplanation:
    """One turn of the search (or, last, why it stopped), in numbers and in words.

    Attributes:
        number: turn number from 1 (the stop entry repeats the last turn's number).
        kind: a pick, a query retiring, or the final stop.
        query: whose turn it was (0-based; ``None`` for the stop entry).
        segment: the pick, or the best remaining segment that was refused (``None`` if none).
        label: ``"S1"``, ... for picks, in pick order as in ``run_rse``.
        binding: the constraints that changed this pick: each one that does alone, or, if none
            does alone, the smallest set that does together.
        relaxations: the best segment with each applicable constraint lifted alone.
        joint: the smallest set lifted together that changes the pick, when no single one does.
        unconstrained: the best segment with every constraint lifted at once.
        chunks_used: chunks in all picks after this turn.
        budget_left: ``overall_max_length - chunks_used``.
        stop_reason: why the query retired, or why the search stopped.
        constraint_note: the binding-constraint sentence alone (e.g. "none: this is the
            unconstrained best run").
        message: the whole explanation.
    """

    number: int
    kind: StepKind
    query: int | None
    segment: Segment | None
    chunks_used: int
    budget_left: int
    message: str
    label: str | None = None
    binding: tuple[Constraint, ...] = ()
    relaxations: tuple[Relaxation, ...] = ()
    joint: Relaxation | None = None
    unconstrained: Segment | None = None
    stop_reason: StopReason | None = None
    constraint_note: str = ""

    @property
    def value(self) -> float | None:
        return None if self.segment is None else self.segment.score


def _best_run(
    values: np.ndarray,
    exact: list[float],
    prefix: np.ndarray,
    *,
    length: int,
    splits: Sequence[int],
    taken: np.ndarray,
    reuse_taken: bool,
) -> tuple[int, int, float] | None:
    """(start, end, sum) of the best segment: non-negative ends, at most ``length`` chunks,
    not crossing ``splits``; ``taken`` chunks are off limits, or (``reuse_taken``) may be
    included as long as the segment adds at least one chunk that is not taken.

    For each end, the best start is the one with the smallest prefix sum among the allowed
    starts in reach; the allowed window only moves right, so a monotone queue finds it and the
    whole scan is O(n). Ties go to the earliest start, then the shortest, like the search.
    """
    n = len(values)
    best: tuple[float, int, int] | None = None
    bounds = [0, *(split for split in splits if 0 < split < n), n]
    for low, high in itertools.pairwise(bounds):
        window: deque[int] = deque()
        next_start = low
        last_free = -1
        for end in range(low, high):
            if taken[end] and not reuse_taken:
                window.clear()
                next_start = end + 1
                continue
            if not taken[end]:
                last_free = end
            reach = min(end, last_free)
            while next_start <= reach:
                start = next_start
                next_start += 1
                if values[start] >= 0:
                    while window and prefix[window[-1]] > prefix[start]:
                        window.pop()
                    window.append(start)
            while window and window[0] <= end - length:
                window.popleft()
            if values[end] < 0 or not window:
                continue
            start = window[0]
            total = prefix[end + 1] - prefix[start]
            tie = best is not None and _close(total, best[0])
            if best is None or (total > best[0] and not tie) or (tie and start < best[1]):
                best = (total, start, end + 1)
    if best is None:
        return None
    _, start, end = best
    return start, end, sum(exact[start:end])


def _query_rows(values: object) -> list[np.ndarray]:
    if isinstance(values, np.ndarray):
        return [values.astype(np.float64)] if values.ndim == 1 else [np.asarray(row, np.float64) for row in values]
    nested = len(values) > 0 and isinstance(values[0], (Sequence, np.ndarray))
    rows = values if nested else [values]
    return [np.asarray(row, dtype=np.float64) for row in rows]


def explain_search(
    values: Sequence[float] | Sequence[Sequence[float]] | np.ndarray,
    *,
    max_length: int,
    overall_max_length: int,
    minimum_value: float,
    document_splits: Sequence[int] = (),
) -> list[StepExplanation]:
    """Explain every turn of :func:`~rse_core.search.find_best_segments`, then why it stopped.

    For each pick, the best segment for that query is re-solved with one constraint lifted at
    a time: ``max_length`` (then only the budget limits length), the remaining overall budget
    (then only ``max_length``), no overlap with earlier picks (a segment may then reuse picked
    chunks, but must add at least one new one; re-picking what is already sent adds nothing),
    and document splits. A constraint binds when lifting it alone gives a segment worth more.
    If none binds alone but lifting all of them together does, the note says so.

    Args and limits are those of :func:`~rse_core.search.find_best_segments`; ``values`` is
    one list (one query) or one list per query.

    Returns:
        One :class:`StepExplanation` per turn, then one of kind ``stop``.
    """
    result = find_best_segments(
        values,
        max_length=max_length,
        overall_max_length=overall_max_length,
        minimum_value=minimum_value,
        document_splits=document_splits,
    )
    rows = _query_rows(values)
    n = len(rows[0])
    splits = _split_points(document_splits, n)
    exacts = [row.tolist() for row in rows]
    prefixes = [np.concatenate(([0.0], np.cumsum(row))) for row in rows]
    taken = np.zeros(n, dtype=bool)
    picks: list[Segment] = []
    multi = len(rows) > 1
    entries: list[StepExplanation] = []
    used_before = 0
    for number, step in enumerate(result.steps, 1):
        who = f" (query {step.query + 1})" if multi else ""
        budget = overall_max_length - used_before
        if step.accepted:
            segment = step.best
            label = f"S{len(picks) + 1}"
            relaxations, joint, unconstrained = _relax(
                rows[step.query],
                exacts[step.query],
                prefixes[step.query],
                segment,
                max_length=max_length,
                budget=budget,
                splits=splits,
                taken=taken,
                picks=picks,
            )
            binding = tuple(r.constraints[0] for r in relaxations if r.binds)
            if joint is not None:
                binding = joint.constraints
            note = _constraint_note(relaxations, joint, segment, max_length, budget, overall_max_length, splits, picks)
            message = (
                f"Turn {number}{who}: picks {_chunks(segment.start, segment.end)} as {label}, worth "
                f"{_num(segment.score)}; {step.chunks_used} of {overall_max_length} chunks used. "
                f"What bound it: {note}."
            )
            entries.append(
                StepExplanation(
                    number=number,
                    kind=StepKind.PICK,
                    query=step.query,
                    segment=segment,
                    chunks_used=step.chunks_used,
                    budget_left=overall_max_length - step.chunks_used,
                    message=message,
                    label=label,
                    binding=binding,
                    relaxations=relaxations,
                    joint=joint,
                    unconstrained=unconstrained,
                    constraint_note=note,
                )
            )
            picks.append(segment)
            taken[segment.start : segment.end] = True
        else:
            reason = _retire_reason(step.best, minimum_value, rows[step.query], taken)
            retiring = f"query {step.query + 1}" if multi else "the query"
            message = f"Turn {number}{who}: {reason}; {retiring} retires."
            entries.append(
                StepExplanation(
                    number=number,
                    kind=StepKind.RETIRE,
                    query=step.query,
                    segment=step.best,
                    chunks_used=step.chunks_used,
                    budget_left=overall_max_length - step.chunks_used,
                    message=message,
                    stop_reason=step.retired,
                    constraint_note=reason,
                )
            )
        used_before = step.chunks_used
    entries.append(_stop_entry(result, entries, overall_max_length, multi))
    return entries


def _relax(
    values, exact, prefix, segment, *, max_length, budget, splits, taken, picks
) -> tuple[tuple[Relaxation, ...], Relaxation | None, Segment | None]:
    """The singles, the smallest jointly binding set (if no single binds) and the fully relaxed best."""
    n = len(values)

    def solve(lifted: tuple[Constraint, ...]) -> Segment | None:
        length = min(
            n if Constraint.MAX_LENGTH in lifted else max_length,
            n if Constraint.BUDGET in lifted else budget,
        )
        found = _best_run(
            values,
            exact,
            prefix,
            length=length,
            splits=() if Constraint.DOCUMENT_SPLITS in lifted else splits,
            taken=taken,
            reuse_taken=Constraint.OVERLAP in lifted,
        )
        return None if found is None else Segment(*found, segment.query)

    def relaxation(lifted: tuple[Constraint, ...]) -> Relaxation:
        best = solve(lifted)
        return Relaxation(lifted, best, best is not None and _beats(best.score, segment.score))

    applicable = [
        constraint
        for constraint, applies in (
            (Constraint.MAX_LENGTH, max_length < n),
            (Constraint.BUDGET, budget < n),
            (Constraint.OVERLAP, bool(picks)),
            (Constraint.DOCUMENT_SPLITS, bool(splits)),
        )
        if applies
    ]
    singles = tuple(relaxation((constraint,)) for constraint in applicable)
    joint = None
    if not any(single.binds for single in singles):
        for size in range(2, len(applicable) + 1):
            joint = next((r for r in map(relaxation, itertools.combinations(applicable, size)) if r.binds), None)
            if joint is not None:
                break
    return singles, joint, solve(tuple(Constraint))


def _beats(value: float, reference: float) -> bool:
    return value > reference and not _close(value, reference)


def _constraint_label(constraint: Constraint, max_length: int, budget: int, overall: int, crossed: list[int]) -> str:
    if constraint is Constraint.MAX_LENGTH:
        return f"max chunks per segment ({max_length})"
    if constraint is Constraint.BUDGET:
        return f"the remaining chunk budget ({budget} of {overall})"
    if constraint is Constraint.OVERLAP:
        return "the no-overlap rule"
    where = "s at chunks " if len(crossed) > 1 else " at chunk "
    return f"the document split{where}{_and([str(c) for c in crossed])}"


def _constraint_note(singles, joint, segment, max_length, budget, overall, splits, picks) -> str:
    parts = []
    for relaxation in singles:
        if not relaxation.binds:
            continue
        best = relaxation.best
        would = f"the best would be {_chunks(best.start, best.end)} worth {_num(best.score)}"
        constraint = relaxation.constraints[0]
        if constraint is Constraint.OVERLAP:
            reused = [f"S{i}" for i, pick in enumerate(picks, 1) if pick.start < best.end and best.start < pick.end]
            parts.append(f"earlier picks are off limits: if it could reuse chunks of {_and(reused)}, {would}")
        else:
            label = _constraint_label(constraint, max_length, budget, overall, _crossed(splits, best.start, best.end))
            parts.append(f"{label} cut it: without it {would}")
    if parts:
        return "; ".join(parts)
    if joint is not None:
        best = joint.best
        labels = [
            _constraint_label(c, max_length, budget, overall, _crossed(splits, best.start, best.end))
            for c in joint.constraints
        ]
        lifted, one = ("both", "either") if len(labels) == 2 else ("all of them", "any one")
        return (
            f"{_and(labels)} together: lifting {one} alone changes nothing, but without {lifted} "
            f"the best would be {_chunks(best.start, best.end)} worth {_num(best.score)}"
        )
    if picks:
        return "none: this is the unconstrained best run among segments that add new chunks"
    return "none: this is the unconstrained best run"


_NO_SEGMENT = "no segment can be formed: "


def _retire_reason(best: Segment | None, minimum_value: float, values: np.ndarray, taken: np.ndarray) -> str:
    if best is not None:
        return (
            f"the best remaining segment, {_chunks(best.start, best.end)}, is worth {_num(best.score)} "
            f"< minimum {_num(minimum_value)}"
        )
    free = int(((values >= 0) & ~taken).sum())
    if free:  # cannot happen: one free non-negative chunk always fits a budget of at least 1
        return f"no segment fits ({free} free non-negative chunks)"
    used = int(((values >= 0) & taken).sum())
    others = len(values) - used
    if used and others:
        rest = "the other chunk is negative" if others == 1 else f"the other {others} are negative"
        return f"{_NO_SEGMENT}all {used} chunks with a non-negative value are already in segments and {rest}"
    if used:
        return f"{_NO_SEGMENT}every chunk is already in a segment"
    return f"{_NO_SEGMENT}all {len(values)} chunks have a negative value"


def _stop_entry(result, entries, overall, multi) -> StepExplanation:
    used = result.chunks_used
    count = len(result)
    reason = result.stop_reason
    turns = len(result.steps)
    summary = f"{count} segment{'s' if count != 1 else ''}, {used} of {overall} chunks"
    segment = None
    if reason is StopReason.BUDGET_SPENT:
        detail = f"{used} of {overall} chunks are in segments"
    else:
        retired = {entry.query: entry for entry in entries if entry.kind is StepKind.RETIRE}
        details = []
        for query in sorted(retired):
            entry = retired[query]
            text = entry.constraint_note.removeprefix(_NO_SEGMENT)
            details.append(f"query {query + 1}: {text}" if multi else text)
            if entry.stop_reason is reason and segment is None:
                segment = entry.segment
        detail = "; ".join(details)
    message = f"The search stopped after turn {turns} with {summary}: {reason.explanation} ({detail})."
    return StepExplanation(
        number=turns,
        kind=StepKind.STOP,
        query=None,
        segment=segment,
        chunks_used=used,
        budget_left=overall - used,
        message=message,
        stop_reason=reason,
    )


# --------------------------------------------------------------------------- check an answer


@dataclass(frozen=True)
class AnswerCheck:
    """Whether a student's answer is what the search picks, and why (or why not)."""

    correct: bool
    message: str


def check_answer(
    values: Sequence[float] | np.ndarray,
    expected: tuple[int, int] | Sequence[tuple[int, int]] | None,
    *,
    max_length: int,
    overall_max_length: int,
    minimum_value: float,
    document_splits: Sequence[int] = (),
) -> AnswerCheck:
    """Check a student's answer against the search, with the reason a teacher would give.

    Args:
        values: chunk values of one query.
        expected: the first pick as an inclusive chunk range, as a student writes it
            (``(2, 3)`` = chunks 2 and 3); or a list of such ranges for all picks (any order);
            or ``None`` for "no segment is returned".
        max_length, overall_max_length, minimum_value, document_splits: the search's limits.
    """
    array = _single(values)
    result = find_best_segments(
        array.tolist(),
        max_length=max_length,
        overall_max_length=overall_max_length,
        minimum_value=minimum_value,
        document_splits=document_splits,
    )
    picks = list(result)
    n = len(array)
    if expected is None:
        if not picks:
            return AnswerCheck(True, f"Right: nothing is returned, because {_why_nothing(result, minimum_value)}.")
        first = picks[0]
        return AnswerCheck(
            False,
            f"Not quite: {_is_are(first.start, first.end)} worth {_num(first.score)}, at least the minimum "
            f"{_num(minimum_value)}, so the search returns it.",
        )
    pairs = [expected] if _is_pair(expected) else list(expected)
    for pair in pairs:
        if not _is_pair(pair) or not 0 <= pair[0] <= pair[1] < n:
            return AnswerCheck(
                False, f"Write a segment as (first chunk, last chunk) with 0 <= first <= last <= {n - 1}; got {pair!r}."
            )
    if not picks:
        return AnswerCheck(False, f"Not quite: no segment is returned, because {_why_nothing(result, minimum_value)}.")
    if _is_pair(expected):
        return _check_first(
            array,
            (expected[0], expected[1] + 1),
            picks,
            max_length,
            overall_max_length,
            _split_points(document_splits, n),
        )
    return _check_all(pairs, picks, result, minimum_value)


def _is_pair(item: object) -> bool:
    return (
        isinstance(item, (tuple, list))
        and len(item) == 2
        and all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in item)
    )


def _why_nothing(result, minimum_value: float) -> str:
    best = result.steps[-1].best if result.steps else None
    if best is None:
        return "every chunk's value is negative, so no segment can start anywhere"
    return (
        f"the best segment, {_chunks(best.start, best.end)}, is worth only {_num(best.score)}, "
        f"less than the minimum segment value {_num(minimum_value)}"
    )


def _check_first(array, answer, picks, max_length, overall, splits) -> AnswerCheck:
    start, end = answer
    first = picks[0]
    best_text = f"The best is {_chunks(first.start, first.end)} ({_num(first.score)})."
    answer_text = _chunks(start, end)
    if (start, end) == (first.start, first.end):
        message = f"Right: {_is_are(start, end)} worth {_num(first.score)}, more than any other allowed segment."
        gaps = [i for i in range(start, end) if array[i] < 0]
        if gaps:
            gap = "is a gap" if len(gaps) == 1 else "are gaps"
            message += f" {_valued(array, gaps).capitalize()} {gap} worth crossing."
        return AnswerCheck(True, message)
    total = sum(array[start:end].tolist())
    reasons = []
    if end - start == 1 and array[start] < 0:
        reasons.append(
            f"{answer_text} alone is negative ({_num(array[start])}); a segment starts and ends on a non-negative chunk"
        )
    elif array[start] < 0 and array[end - 1] < 0:
        reasons.append(
            f"{answer_text} start on chunk {start} ({_num(array[start])}) and end on chunk {end - 1} "
            f"({_num(array[end - 1])}), both negative, so including them only subtracts"
        )
    elif array[start] < 0:
        reasons.append(
            f"{answer_text} start on chunk {start}, whose value is negative "
            f"({_num(array[start])}), so starting there only subtracts"
        )
    elif array[end - 1] < 0:
        reasons.append(
            f"{answer_text} end on chunk {end - 1}, whose value is negative ({_num(array[end - 1])}), "
            "so extending to it only subtracts"
        )
    crossed = _crossed(splits, start, end)
    if crossed:
        reasons.append(f"{answer_text} cross the document split at chunk {crossed[0]}; a segment stays in one document")
    if end - start > max_length:
        reasons.append(f"{answer_text} are {end - start} chunks long, more than the max of {max_length} per segment")
    elif end - start > overall:
        reasons.append(f"{answer_text} are {end - start} chunks long, more than the overall budget of {overall}")
    if reasons:
        return AnswerCheck(False, "Not quite: " + "; ".join(reasons) + ". " + best_text)
    later = [i for i, pick in enumerate(picks[1:], 2) if (pick.start, pick.end) == (start, end)]
    worth = f"{_is_are(start, end)} worth {_num(total)}"
    best_worth = f"{_is_are(first.start, first.end)} worth {_num(first.score)}"
    if later:
        return AnswerCheck(
            False,
            f"Not quite: {worth} and picked too, but as S{later[0]}: {best_worth}, so the search picks that first.",
        )
    if _close(total, first.score):
        return AnswerCheck(
            False,
            f"Not quite: {worth} too, but ties go to the earliest start, then the shortest segment: "
            f"the search picks {_chunks(first.start, first.end)}.",
        )
    mine, best = set(range(start, end)), set(range(first.start, first.end))
    if mine < best:
        added = sorted(best - mine)
        why = _gap_note(array, range(first.start, start), range(end, first.end))
        if not why:
            why = f"adding {_chunk_set(added)} ({_and([_num(array[i]) for i in added])}) only adds"
        return AnswerCheck(False, f"Not quite: {worth}, but {best_worth}: {why}.")
    if mine > best:
        extra = sorted(mine - best)
        negatives = [i for i in extra if array[i] < 0]
        positives = [_num(array[i]) for i in extra if array[i] >= 0]
        cost = "costs" if len(negatives) == 1 else "cost"
        why = f"{_valued(array, negatives)} {cost} more than {_and(positives)} give back"
        alone = f"{_chunks(first.start, first.end)} alone {'are' if len(first) > 1 else 'is'} worth {_num(first.score)}"
        return AnswerCheck(False, f"Not quite: {worth}, but {alone}: {why}.")
    return AnswerCheck(False, f"Not quite: {worth}, but {best_worth}.")


def _check_all(pairs, picks, result, minimum_value) -> AnswerCheck:
    answer = [(first, last + 1) for first, last in pairs]
    actual = [(pick.start, pick.end) for pick in picks]
    order = ", then ".join(f"{_chunks(s, e)} ({_num(p.score)})" for (s, e), p in zip(actual, picks, strict=True))
    stop = _why_stopped(result, minimum_value)
    if sorted(answer) == sorted(actual):
        note = "" if answer == actual else " Note the order: the best remaining segment is always picked first."
        return AnswerCheck(True, f"Right: the search picks {order}, then stops because {stop}.{note}")
    right = [_chunks(*a) for a in answer if a in actual]
    wrong = [_chunks(*a) for a in answer if a not in actual]
    missing = [f"{_chunks(*a)}" for a in actual if a not in answer]
    parts = []
    if right:
        parts.append(f"right: {_and(right)}")
    if wrong:
        parts.append(f"not picked: {_and(wrong)}")
    if missing:
        parts.append(f"missing: {_and(missing)}")
    return AnswerCheck(False, f"Not quite: {'; '.join(parts)}. The search picks {order}, then stops because {stop}.")


def _why_stopped(result, minimum_value: float) -> str:
    if result.stop_reason is StopReason.BELOW_MINIMUM:
        best = result.steps[-1].best
        return (
            f"the best remaining segment, {_chunks(best.start, best.end)}, is worth {_num(best.score)} "
            f"< minimum {_num(minimum_value)}"
        )
    return result.stop_reason.explanation


# --------------------------------------------------------------------------- explain one chunk


@dataclass(frozen=True)
class ChunkExplanation:
    """Why one chunk is in or out of RSE's answer, and the penalty at which that flips.

    Attributes:
        chunk_index: corpus index of the chunk.
        values: its value for each query at the current parameters.
        in_segment: whether a segment contains it.
        segment_label: ``"S1"``, ... of that segment (pick order, as in ``run_rse``).
        ranking_position: its position in the (merged) ranking, 0 = best.
        in_top_k: whether the top-k baseline sends it.
        penalty: the current irrelevant-chunk penalty.
        threshold: nearest penalty (to 1e-4) at which its status flips: for a chunk that is out,
            the largest penalty below the current one at which it is in (or, if lowering never
            helps, the smallest above); for a chunk that is in, the smallest penalty above the
            current one at which it is out (or, failing that, the largest below). ``None`` if
            no penalty in [0, 1] flips it. Verified with ``run_rse``.
        beyond: a penalty within 1e-4 of ``threshold``, on the current side, where the status
            is still the current one (also verified).
        threshold_segment_label: the label of its segment at ``threshold`` when it joins one.
        holds_beyond_threshold: whether every scanned penalty past ``threshold`` (away from the
            current one) has the flipped status too ("0.14 or lower"); the answer can depend on
            the penalty non-monotonically, because segments compete for the budget.
        reason: why no penalty flips it (when ``threshold`` is ``None``).
        message: one line for the page.
    """

    chunk_index: int
    values: tuple[float, ...]
    in_segment: bool
    segment_label: str | None
    ranking_position: int
    in_top_k: bool
    penalty: float
    message: str
    threshold: float | None = None
    beyond: float | None = None
    threshold_segment_label: str | None = None
    holds_beyond_threshold: bool | None = None
    reason: str | None = None

    @property
    def value(self) -> float:
        """Its highest value over the queries (the only one with one query)."""
        return max(self.values)


def _segment_label(result: ExtractionResult, chunk_index: int) -> str | None:
    for segment in result.segments:
        if segment.start <= chunk_index < segment.end:
            return segment.label
    return None


def explain_chunk(
    corpus: Corpus,
    queries: Sequence[str],
    raw_scores: Sequence[np.ndarray],
    params: RSEParams,
    calibration: Calibration,
    chunk_index: int,
) -> ChunkExplanation:
    """Explain one chunk of ``run_rse(corpus, queries, raw_scores, params, calibration)``.

    The penalty threshold is found with everything else fixed: the penalty is scanned over
    [0, 1] in steps of :data:`PENALTY_GRID_STEP`, the flip nearest to the current penalty is
    bisected to :data:`PENALTY_PRECISION`, and both ends are checked with ``run_rse`` (the scan
    uses the same values, computed without redoing the beta transform).

    Raises:
        ParameterError: ``chunk_index`` is not a chunk of the corpus.
        RSEError: the verification failed (a bug: the scan and ``run_rse`` disagree).
    """
    n = len(corpus.chunks)
    if isinstance(chunk_index, bool) or not isinstance(chunk_index, (int, np.integer)) or not 0 <= chunk_index < n:
        raise ParameterError(f"chunk_index must be a chunk of the corpus, 0 to {n - 1}; got {chunk_index!r}.")
    chunk_index = int(chunk_index)
    result = run_rse(corpus, queries, raw_scores, params, calibration)
    label = _segment_label(result, chunk_index)
    current = label is not None
    p0 = float(params.irrelevant_chunk_penalty)
    bases = [ValueBasis(values, params.chunk_length_adjustment) for values in result.values]

    def status(penalty: float) -> bool:
        search = find_best_segments(
            [basis.values(penalty, params.decay_rate) for basis in bases],
            max_length=params.max_length,
            overall_max_length=params.overall_max_length,
            minimum_value=params.minimum_value,
            document_splits=corpus.document_splits,
        )
        return any(segment.start <= chunk_index < segment.end for segment in search)

    grid = [round(k * PENALTY_GRID_STEP, 10) for k in range(round(1 / PENALTY_GRID_STEP) + 1)]
    profile = {p: status(p) for p in grid}
    profile[p0] = current
    # Search the direction the question asks first: down for a chunk that is out, up for one that is in.
    directions = ("down", "up") if not current else ("up", "down")
    found = None
    for direction in directions:
        flips = sorted(
            (p for p, state in profile.items() if state != current and (p < p0 if direction == "down" else p > p0)),
            reverse=direction == "down",
        )
        if flips:
            found = direction, flips[0]
            break
    values_now = tuple(float(v.value[chunk_index]) for v in result.values)
    position = result.ranking.index(chunk_index)
    in_top_k = chunk_index in result.top_k
    head = _chunk_head(values_now, position, n, in_top_k, params.top_k, label)
    common = {
        "chunk_index": chunk_index,
        "values": values_now,
        "in_segment": current,
        "segment_label": label,
        "ranking_position": position,
        "in_top_k": in_top_k,
        "penalty": p0,
    }
    if found is None:
        reason = _no_flip_reason(corpus, result, params, bases, chunk_index, current, label)
        return ChunkExplanation(
            **common, message=f"{head}; no penalty in [0, 1] changes that: {reason}.", reason=reason
        )
    direction, flip = found
    # Bracket: the scanned point nearest the flip on the current side.
    if direction == "down":
        lo, hi = flip, min([p for p in profile if p > flip and profile[p] == current] + [p0])
    else:
        lo, hi = max([p for p in profile if p < flip and profile[p] == current] + [p0]), flip
    status_lo = profile[lo]
    while hi - lo > PENALTY_PRECISION + 1e-12:
        mid = round((lo + hi) / 2, 4)
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        if status(mid) == status_lo:
            lo = mid
        else:
            hi = mid
    threshold, beyond = (lo, hi) if direction == "down" else (hi, lo)
    at_threshold, at_beyond = (
        run_rse(corpus, queries, raw_scores, params.with_changes(irrelevant_chunk_penalty=p), calibration)
        for p in (threshold, beyond)
    )
    new_label = _segment_label(at_threshold, chunk_index)
    if (new_label is not None) == current or (_segment_label(at_beyond, chunk_index) is not None) != current:
        raise RSEError(f"Internal error: the penalty scan and run_rse disagree for chunk {chunk_index}.")
    past = [p for p in profile if (p < threshold if direction == "down" else p > threshold)]
    holds = all(profile[p] != current for p in past)
    exception = None
    if not holds:
        counter = (
            min(p for p in past if profile[p] == current)
            if direction == "up"
            else max(p for p in past if profile[p] == current)
        )
        exception = counter
    message = head + "; " + _flip_text(current, direction, threshold, new_label, p0, holds, exception)
    return ChunkExplanation(
        **common,
        message=message,
        threshold=threshold,
        beyond=beyond,
        threshold_segment_label=new_label,
        holds_beyond_threshold=holds,
    )


def _fmt_penalty(p: float) -> str:
    text = f"{p:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _chunk_head(values, position, n, in_top_k, k, label) -> str:
    if len(values) == 1:
        value_text = f"value {_num(values[0])}"
    else:
        value_text = "values " + ", ".join(f"{_num(v)} (query {q})" for q, v in enumerate(values, 1))
    top = f"in the top {k}" if in_top_k else f"not in the top {k}"
    where = f"in segment {label}" if label else "not in any segment"
    return f"{value_text} (rank {position + 1} of {n}, {top}); {where}"


def _flip_text(current, direction, threshold, new_label, p0, holds, exception) -> str:
    p = _fmt_penalty(threshold)
    rest = f"{' or lower' if direction == 'down' else ' or higher'}" if holds else ""
    now = f" (now {_fmt_penalty(p0)})"
    caveat = (
        ""
        if holds
        else f", though not at every {'lower' if direction == 'down' else 'higher'} penalty "
        f"(at {_fmt_penalty(exception)} it is {'in' if current else 'out'} again)"
    )
    if not current:
        return f"it would join a segment ({new_label}) if the penalty were {p}{rest}{now}{caveat}"
    return f"it would drop out if the penalty were {p}{rest}{now}{caveat}"


def _no_flip_reason(corpus, result, params, bases, chunk_index, current, label) -> str:
    if current:
        at_one = run_rse(
            corpus,
            result.queries,
            [v.raw for v in result.values],
            params.with_changes(irrelevant_chunk_penalty=1.0),
            result.calibration,
        )
        segment = next(s for s in at_one.segments if s.start <= chunk_index < s.end)
        return (
            f"even at penalty 1 it stays in {segment.label}, worth {_num(segment.score)} "
            f">= minimum {_num(params.minimum_value)}"
        )
    # Out at every penalty: look at penalty 0, where every value is at its highest.
    zero = [basis.values(0.0, params.decay_rate) for basis in bases]
    limit = min(params.max_length, params.overall_max_length)
    bounds = [0, *corpus.document_splits, len(corpus.chunks)]
    document = int(np.searchsorted(bounds, chunk_index, side="right")) - 1
    low, high = bounds[document], bounds[document + 1]
    best = -math.inf
    for values in zero:
        for start in range(max(low, chunk_index - limit + 1), chunk_index + 1):
            for end in range(chunk_index + 1, min(high, start + limit) + 1):
                if values[start] >= 0 and values[end - 1] >= 0:
                    best = max(best, float(values[start:end].sum()))
    own = max(float(values[chunk_index]) for values in zero)
    rank = min(int(v.rank[chunk_index]) for v in result.values)
    if best < params.minimum_value:
        kept = math.exp(-rank / params.decay_rate)
        why = (
            f"its rank is too low (rank {rank + 1}: the decay keeps {kept:.0%} of its score)"
            if kept < 0.5
            else "the minimum segment value is out of reach"
        )
        return (
            f"{why}: even with penalty 0 its value is only {_num(own)}, and the best segment through it "
            f"(at most {limit} chunks) is worth {_num(best)} < minimum {_num(params.minimum_value)}"
        )
    at_zero = find_best_segments(
        zero,
        max_length=params.max_length,
        overall_max_length=params.overall_max_length,
        minimum_value=params.minimum_value,
        document_splits=corpus.document_splits,
    )
    if at_zero.stop_reason is StopReason.BUDGET_SPENT:
        return (
            f"even with penalty 0, where a segment through it would be worth up to {_num(best)}, the chunk budget "
            f"({params.overall_max_length}) is spent on better segments first"
        )
    return (
        f"even with penalty 0 no pick covers it (a segment through it would be worth up to {_num(best)}); "
        f"the search stops because {at_zero.stop_reason.explanation}"
    )
