"""Auto-tune: the RSE parameters with the best recall within a character budget, from cached scores.

Given a scored set (:mod:`rse_core.evaluation.scored_sets`) and a budget of characters per query, every setting
of a grid over the four parameters that shape segments after scoring is evaluated on every
query, and the one with the highest mean recall whose mean characters per query fit the budget
wins (ties: fewer characters, then the grid's order). The grid:

- irrelevant chunk penalty 0-0.4 in steps of 0.05;
- decay rate 10, 20, 30, 50, 100;
- max chunks per segment 5, 10, 20, 30;
- minimum segment value 0-1.2 in steps of 0.1.

It costs one segment search per query per (penalty, decay, max chunks) and nothing more per
minimum: with one query the greedy search retires at the first segment worth less than the
minimum, so the answer at any minimum is a prefix of the answer at minimum 0 (the tests check
this against ``run_rse``). Values come from :class:`~rse_core.evaluation.sweep.ValueBasis`, as in the sweep.

Tune on one set and report the winner on the others (:func:`cross_set_rows`): a figure tuned and
scored on the same queries says how well the grid memorises them, not how well it generalises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from rse_core.errors import ParameterError
from rse_core.evaluation.curves import Outcome, PreparedCase, prepare
from rse_core.evaluation.scored_sets import ScoredSet
from rse_core.params import RSEParams
from rse_core.search import find_best_segments

PENALTIES = tuple(round(0.05 * i, 2) for i in range(9))
DECAY_RATES = (10.0, 20.0, 30.0, 50.0, 100.0)
MAX_LENGTHS = (5, 10, 20, 30)
MINIMUM_VALUES = tuple(round(0.1 * i, 1) for i in range(13))

__all__ = ["Grid", "TunePoint", "TuneResult", "tune"]


@dataclass(frozen=True)
class Grid:
    """The settings tried for each tuned parameter."""

    penalties: tuple[float, ...] = PENALTIES
    decay_rates: tuple[float, ...] = DECAY_RATES
    max_lengths: tuple[int, ...] = MAX_LENGTHS
    minimum_values: tuple[float, ...] = MINIMUM_VALUES

    @property
    def size(self) -> int:
        return len(self.penalties) * len(self.decay_rates) * len(self.max_lengths) * len(self.minimum_values)


@dataclass(frozen=True)
class TunePoint:
    """One setting's mean recall and characters per query over the tuning set."""

    params: RSEParams
    recall: float
    characters: float


@dataclass(frozen=True)
class TuneResult:
    """The winner within ``budget``, the starting point, and every setting tried (for the chart)."""

    budget: float
    best: TunePoint | None
    start: TunePoint
    points: tuple[TunePoint, ...]
    set_name: str
    queries: int

    @property
    def message(self) -> str:
        """One line for a user: what won, or why nothing did."""
        if self.best is None:
            cheapest = min(self.points, key=lambda p: p.characters)
            return (
                f"No setting sends at most {self.budget:,.0f} characters per query on average; the fewest is "
                f"{cheapest.characters:,.0f}. Raise the budget."
            )
        p = self.best.params
        return (
            f"Best within {self.budget:,.0f} characters: recall {self.best.recall:.2f} at "
            f"{self.best.characters:,.0f} characters (penalty {p.irrelevant_chunk_penalty:g}, minimum "
            f"{p.minimum_value:g}, decay {p.decay_rate:g}, max chunks per segment {p.max_length}), tuned on "
            f"{self.queries} queries of {self.set_name}."
        )


def _outcomes_by_minimum(case: PreparedCase, params: RSEParams, minimums: Sequence[float]) -> list[Outcome]:
    """The case's outcome at every minimum, from one search at minimum 0 (prefix property)."""
    values = case.basis.values(params.irrelevant_chunk_penalty, params.decay_rate)
    search = find_best_segments(
        [values],
        max_length=params.max_length,
        overall_max_length=params.overall_max_length,
        minimum_value=0.0,
        document_splits=case.splits,
    )
    outcomes = []
    for minimum in minimums:
        kept = []
        for segment in search:
            if segment.score < minimum:
                break
            kept.append((segment.start, segment.end))
        outcomes.append(case.judge(kept))
    return outcomes


def tune(
    scored: ScoredSet,
    budget: float,
    params: RSEParams | None = None,
    grid: Grid = Grid(),
    progress: Callable[[float, str], None] | None = None,
) -> TuneResult:
    """Search ``grid`` for the best mean recall at no more than ``budget`` mean characters per query.

    Args:
        scored: the tuning set with cached raw scores.
        budget: characters per query on average (what one would hand an LLM).
        params: the parameters not tuned (beta, overall budget, length adjustment, chunk size) and
            the starting point reported beside the winner (default ``RSEParams()``).
        grid: the settings to try.
        progress: called with (fraction, label) per (penalty, decay) pair.

    Raises:
        ParameterError: a budget that is not positive, or an empty set.
    """
    params = params or RSEParams()
    if not budget > 0:
        raise ParameterError(f"The character budget must be above 0 (got {budget!r}).")
    if not scored.cases:
        raise ParameterError("The tuning set has no queries.")
    cases = prepare(scored, params)
    minimums = list(grid.minimum_values)
    points: list[TunePoint] = []
    pairs = list(product(grid.penalties, grid.decay_rates))
    for number, (penalty, decay) in enumerate(pairs):
        if progress is not None:
            progress(number / len(pairs), f"penalty {penalty:g}, decay {decay:g}")
        for max_length in grid.max_lengths:
            setting = params.with_changes(irrelevant_chunk_penalty=penalty, decay_rate=decay, max_length=max_length)
            per_case = [_outcomes_by_minimum(case, setting, minimums) for case in cases]
            for column, minimum in enumerate(minimums):
                outcomes = [row[column] for row in per_case]
                points.append(
                    TunePoint(
                        setting.with_changes(minimum_value=minimum),
                        float(np.mean([o.recall for o in outcomes])),
                        float(np.mean([o.characters for o in outcomes])),
                    )
                )
    start = _point(cases, params)
    fitting = [point for point in points if point.characters <= budget]
    best = max(fitting, key=lambda p: (p.recall, -p.characters), default=None)
    return TuneResult(float(budget), best, start, tuple(points), scored.name, len(cases))


def _point(cases: Sequence[PreparedCase], params: RSEParams) -> TunePoint:
    outcomes = [_outcomes_by_minimum(case, params, [params.minimum_value])[0] for case in cases]
    return TunePoint(
        params, float(np.mean([o.recall for o in outcomes])), float(np.mean([o.characters for o in outcomes]))
    )


def score_params(scored: ScoredSet, params: RSEParams) -> TunePoint:
    """Mean recall and characters of one setting on a (held-out) scored set."""
    return _point(prepare(scored, params), params)
