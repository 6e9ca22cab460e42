"""The greedy search turn by turn: each pick, the constraint that shaped it, and why it stopped.

:func:`explain_search` finds the binding constraint by relaxing the constraints one at a time
(then together) and re-solving. Queries are numbered from 1 in messages ("query 2"), segments
S1, S2, ... in pick order, chunks from 0.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from rse_core.choices import LabelledChoice
from rse_core.numerals import num
from rse_core.search import SearchStep, Segment, StopReason, find_best_segments
from rse_core.teaching.wording import chunk_range, join_and, nearly_equal, split_points, splits_crossed

# --------------------------------------------------------------------------- explain the search


class Constraint(LabelledChoice):
    """A limit on the search that can be relaxed to see whether it shaped a pick."""

    MAX_LENGTH = "max_length", "max chunks per segment"
    BUDGET = "overall_budget", "remaining overall chunk budget"
    OVERLAP = "overlap", "no overlap with earlier picks"
    DOCUMENT_SPLITS = "document_splits", "document splits"


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
            tie = best is not None and nearly_equal(total, best[0])
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
    turns = _Turns(
        rows=rows,
        exacts=[row.tolist() for row in rows],
        prefixes=[np.concatenate(([0.0], np.cumsum(row))) for row in rows],
        splits=split_points(document_splits, len(rows[0])),
        max_length=max_length,
        overall_max_length=overall_max_length,
        minimum_value=minimum_value,
        taken=np.zeros(len(rows[0]), dtype=bool),
    )
    entries: list[StepExplanation] = []
    used_before = 0
    for number, step in enumerate(result.steps, 1):
        if step.accepted:
            entries.append(turns.pick(number, step, overall_max_length - used_before))
        else:
            entries.append(turns.retire(number, step))
        used_before = step.chunks_used
    entries.append(_stop_entry(result, entries, overall_max_length, turns.multi))
    return entries


@dataclass
class _Turns:
    """The search replayed turn by turn: each query's values, the limits, and the picks so far."""

    rows: list[np.ndarray]
    exacts: list[list[float]]  # the values as Python floats: sums a teacher can redo by hand
    prefixes: list[np.ndarray]
    splits: list[int]
    max_length: int
    overall_max_length: int
    minimum_value: float
    taken: np.ndarray
    picks: list[Segment] = field(default_factory=list)

    @property
    def multi(self) -> bool:
        return len(self.rows) > 1

    def _who(self, step: SearchStep) -> str:
        return f" (query {step.query + 1})" if self.multi else ""

    def pick(self, number: int, step: SearchStep, budget: int) -> StepExplanation:
        """A pick, and which constraints bound it (``budget``: chunks left before this turn)."""
        segment = step.best
        label = f"S{len(self.picks) + 1}"
        relaxations, joint, unconstrained = _relax(
            self.rows[step.query],
            self.exacts[step.query],
            self.prefixes[step.query],
            segment,
            max_length=self.max_length,
            budget=budget,
            splits=self.splits,
            taken=self.taken,
            picks=self.picks,
        )
        binding = tuple(r.constraints[0] for r in relaxations if r.binds)
        if joint is not None:
            binding = joint.constraints
        note = _constraint_note(
            relaxations, joint, segment, self.max_length, budget, self.overall_max_length, self.splits, self.picks
        )
        message = (
            f"Turn {number}{self._who(step)}: picks {chunk_range(segment.start, segment.end)} as {label}, worth "
            f"{num(segment.score)}; {step.chunks_used} of {self.overall_max_length} chunks used. "
            f"What bound it: {note}."
        )
        self.picks.append(segment)
        self.taken[segment.start : segment.end] = True
        return StepExplanation(
            number=number,
            kind=StepKind.PICK,
            query=step.query,
            segment=segment,
            chunks_used=step.chunks_used,
            budget_left=self.overall_max_length - step.chunks_used,
            message=message,
            label=label,
            binding=binding,
            relaxations=relaxations,
            joint=joint,
            unconstrained=unconstrained,
            constraint_note=note,
        )

    def retire(self, number: int, step: SearchStep) -> StepExplanation:
        """A query that stops picking, and why (nothing left, or the best is below the minimum)."""
        reason = _retire_reason(step.best, self.minimum_value, self.rows[step.query], self.taken)
        retiring = f"query {step.query + 1}" if self.multi else "the query"
        return StepExplanation(
            number=number,
            kind=StepKind.RETIRE,
            query=step.query,
            segment=step.best,
            chunks_used=step.chunks_used,
            budget_left=self.overall_max_length - step.chunks_used,
            message=f"Turn {number}{self._who(step)}: {reason}; {retiring} retires.",
            stop_reason=step.retired,
            constraint_note=reason,
        )


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
    return value > reference and not nearly_equal(value, reference)


def _constraint_label(constraint: Constraint, max_length: int, budget: int, overall: int, crossed: list[int]) -> str:
    if constraint is Constraint.MAX_LENGTH:
        return f"max chunks per segment ({max_length})"
    if constraint is Constraint.BUDGET:
        return f"the remaining chunk budget ({budget} of {overall})"
    if constraint is Constraint.OVERLAP:
        return "the no-overlap rule"
    where = "s at chunks " if len(crossed) > 1 else " at chunk "
    return f"the document split{where}{join_and([str(c) for c in crossed])}"


def _constraint_note(singles, joint, segment, max_length, budget, overall, splits, picks) -> str:
    parts = []
    for relaxation in singles:
        if not relaxation.binds:
            continue
        best = relaxation.best
        would = f"the best would be {chunk_range(best.start, best.end)} worth {num(best.score)}"
        constraint = relaxation.constraints[0]
        if constraint is Constraint.OVERLAP:
            reused = [f"S{i}" for i, pick in enumerate(picks, 1) if pick.start < best.end and best.start < pick.end]
            parts.append(f"earlier picks are off limits: if it could reuse chunks of {join_and(reused)}, {would}")
        else:
            crossed = splits_crossed(splits, best.start, best.end)
            label = _constraint_label(constraint, max_length, budget, overall, crossed)
            parts.append(f"{label} cut it: without it {would}")
    if parts:
        return "; ".join(parts)
    if joint is not None:
        best = joint.best
        labels = [
            _constraint_label(c, max_length, budget, overall, splits_crossed(splits, best.start, best.end))
            for c in joint.constraints
        ]
        lifted, one = ("both", "either") if len(labels) == 2 else ("all of them", "any one")
        return (
            f"{join_and(labels)} together: lifting {one} alone changes nothing, but without {lifted} "
            f"the best would be {chunk_range(best.start, best.end)} worth {num(best.score)}"
        )
    if picks:
        return "none: this is the unconstrained best run among segments that add new chunks"
    return "none: this is the unconstrained best run"


_NO_SEGMENT = "no segment can be formed: "


def _retire_reason(best: Segment | None, minimum_value: float, values: np.ndarray, taken: np.ndarray) -> str:
    if best is not None:
        return (
            f"the best remaining segment, {chunk_range(best.start, best.end)}, is worth {num(best.score)} "
            f"< minimum {num(minimum_value)}"
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
