"""What the greedy search maximises, what the exact optimum maximises, and why they differ on a gap.

Plain Kadane finds the one run of largest sum. RSE's search is not that: a segment is at most
``max_length`` chunks, the search picks again and again (each pick excludes the chunks already
taken) until the overall budget is spent, and a pick must be worth at least the minimum. Each
turn takes the best single segment still allowed, so crossing a cheap gap wins whenever the joined
run is worth more than either half.

The exact optimum (:mod:`rse_core.search.optimal`) maximises the *total* of all segments. A gap
chunk is pure cost to a total: if both halves around it clear the minimum on their own, cutting it
out raises the total by exactly its cost. So the optimum splits a gapped cluster that RSE keeps
whole, and RSE keeps it whole on purpose: one passage reads better than two fragments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rse_core.numerals import num
from rse_core.search import Segment, find_best_segments
from rse_core.search.optimal import compare_with_greedy
from rse_core.teaching.gaps import segment_gaps
from rse_core.teaching.wording import chunk_range, join_and


@dataclass(frozen=True)
class Objective:
    """Greedy and optimum on one example, and the sentences that explain the difference.

    Attributes:
        greedy, optimal: the two answers (greedy in pick order, optimum best first).
        greedy_total, optimal_total: their totals.
        kadane: the single best run with no limits at all (plain Kadane), ``(start, end, sum)``.
        split_gaps: gap chunks the greedy keeps and the optimum leaves out.
        lines: the explanation, one sentence per line, every number computed.
    """

    greedy: tuple[Segment, ...]
    optimal: tuple[Segment, ...]
    greedy_total: float
    optimal_total: float
    kadane: tuple[int, int, float]
    split_gaps: tuple[int, ...]
    lines: tuple[str, ...]

    @property
    def splits_a_cluster(self) -> bool:
        return bool(self.split_gaps)

    @property
    def headline(self) -> str:
        """One line for a projector: both totals and what the optimum does with the gap."""
        totals = f"RSE's greedy: {num(self.greedy_total)}; maximum total: {num(self.optimal_total)}"
        if self.split_gaps:
            gaps = join_and([str(i) for i in self.split_gaps])
            return f"{totals}. The maximum total cuts out gap chunk {gaps}; RSE keeps one passage."
        return totals + "."


def kadane(values: Sequence[float]) -> tuple[int, int, float]:
    """The run ``start:end`` of largest sum (earliest on ties), with no other rule."""
    best = (0, 1, float(values[0]))
    start, running = 0, 0.0
    for index, value in enumerate(values):
        if running <= 0:
            start, running = index, 0.0
        running += value
        if running > best[2] + 1e-12:
            best = (start, index + 1, running)
    return best


def _segments(segments: Sequence[Segment]) -> str:
    return join_and([f"{chunk_range(s.start, s.end)} ({num(float(s.score))})" for s in segments]) or "nothing"


def explain_objective(
    values: Sequence[float], *, max_length: int, overall_max_length: int, minimum_value: float
) -> Objective:
    """Greedy vs exact optimum on ``values`` (one query), explained in numbers."""
    values = [float(v) for v in values]
    limits = {"max_length": max_length, "overall_max_length": overall_max_length, "minimum_value": minimum_value}
    comparison = compare_with_greedy(values, **limits)
    greedy = tuple(comparison.greedy)
    optimal = tuple(sorted(comparison.optimal, key=lambda s: s.start))
    kept = {gap.index for gap in segment_gaps(values, greedy)}
    covered = {i for s in optimal for i in range(s.start, s.end)}
    split = tuple(sorted(i for i in kept if i not in covered))
    run = kadane(values)
    lines = [
        f"Plain Kadane finds the one run of largest sum: {chunk_range(run[0], run[1])}, worth {num(run[2])}. "
        "RSE's search adds rules: at most "
        f"{max_length} chunks per segment, {overall_max_length} chunks in all, a segment starts and ends on a "
        f"chunk >= 0, it picks again after each pick (taken chunks are out), and every pick must be worth at "
        f"least the minimum {num(minimum_value)}.",
        f"The greedy search (RSE) takes the best single segment each turn: {_segments(greedy)}, "
        f"{num(comparison.greedy_value)} in all.",
        f"The exact optimum maximises the total of all segments: {_segments(optimal)}, "
        f"{num(comparison.optimal_value)} in all.",
    ]
    if split:
        gap_values = join_and([f"{i} ({num(values[i])})" for i in split])
        word = "chunk" if len(split) == 1 else "chunks"
        lines.append(
            f"The optimum cuts out {word} {gap_values}: to a total, a gap is pure cost, and both halves around it "
            f"clear the minimum {num(minimum_value)} on their own, so leaving it out gains "
            f"{num(comparison.optimal_value - comparison.greedy_value)}. RSE keeps the gap on purpose: its "
            "neighbours pay for it and the answer stays one passage, which is the lesson's point."
        )
    elif comparison.greedy_is_optimal:
        lines.append("Here both agree: the greedy answer is also the best total.")
    else:
        lines.append(
            "Here the greedy's first pick leaves the rest in pieces that are worth less: under the same limits "
            f"the optimum fits {num(comparison.gap)} more."
        )
    return Objective(
        greedy=greedy,
        optimal=optimal,
        greedy_total=comparison.greedy_value,
        optimal_total=comparison.optimal_value,
        kadane=run,
        split_gaps=split,
        lines=tuple(lines),
    )


def strict_minimum_total(
    values: Sequence[float], *, max_length: int, overall_max_length: int, minimum_value: float
) -> float:
    """The greedy total if a pick had to be worth strictly more than the minimum (the notes'
    "greater than", notebook 003's ``>``) instead of dsRAG's ``>=``."""
    import math

    result = find_best_segments(
        list(values),
        max_length=max_length,
        overall_max_length=overall_max_length,
        minimum_value=math.nextafter(minimum_value, math.inf),
    )
    return float(sum(segment.score for segment in result))
