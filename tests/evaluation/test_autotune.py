"""Auto-tune: it finds the known best setting, respects the budget, and its shortcut equals run_rse."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import ParameterError, RSEParams
from rse_core.evaluation.curves import prepare, rse_outcome
from rse_core.evaluation.scored_sets import evaluate_scored
from rse_core.evaluation.tuning import Grid, _outcomes_by_minimum, score_params, tune
from rse_core.param_specs import DECAY_RATE, MAX_LENGTH, MINIMUM_VALUE, PARAM_SPECS, PENALTY
from tests.support.eval_support import CHUNK_SIZE, scored_set

PARAMS = RSEParams(chunk_size=CHUNK_SIZE)
# Two gapped answers: chunks 5-9 and 12-15, whose middles score below the unrelated chunks.
CASES = [
    ("a", "gapped", (5, 9), [0.1] * 5 + [0.9, 0.9, 0.0, 0.9, 0.9] + [0.1] * 10),
    ("b", "gapped", (12, 15), [0.1] * 12 + [0.8, 0.0, 0.0, 0.8] + [0.1] * 4),
]
SMALL_GRID = Grid(
    penalties=(0.0, 0.1, 0.3, 0.5), decay_rates=(10.0, 30.0), max_lengths=(1, 3, 5, 10), minimum_values=(0.0, 0.5, 1.0)
)


def gold_characters(scored) -> float:
    return float(np.mean([item.case.span[1] - item.case.span[0] for item in scored.cases]))


def test_tune_finds_the_setting_that_sends_exactly_the_gold_and_respects_the_budget():
    scored = scored_set(CASES)
    budget = gold_characters(scored)
    result = tune(scored, budget, PARAMS, SMALL_GRID)
    assert result.best is not None
    assert result.best.recall == 1.0
    assert result.best.characters <= budget
    # the winner really does that when run through the whole pipeline
    evaluation = evaluate_scored(scored, result.best.params)
    assert [q.scores["rse"].recall for q in evaluation.queries] == [1.0, 1.0]
    assert np.mean([q.scores["rse"].characters for q in evaluation.queries]) <= budget
    # a segment of at most 3 chunks cannot bridge chunks 5-9 within that budget
    assert result.best.params.max_length >= 5
    # every setting tried was evaluated, and the winner is the best of those within the budget
    assert len(result.points) == SMALL_GRID.size
    fitting = [p for p in result.points if p.characters <= budget]
    assert result.best.recall == max(p.recall for p in fitting)


def test_a_smaller_budget_gives_a_lower_recall_and_a_tiny_one_gives_no_winner():
    scored = scored_set(CASES)
    budget = gold_characters(scored)
    tighter = tune(scored, budget - 80, PARAMS, SMALL_GRID)
    assert tighter.best is not None and tighter.best.recall < 1.0
    assert tighter.best.characters <= budget - 80
    nothing_fits = Grid(penalties=(0.0,), decay_rates=(300.0,), max_lengths=(10,), minimum_values=(0.0,))
    none = tune(scored, 10, PARAMS, nothing_fits)
    assert none.best is None
    assert "Raise the budget" in none.message


def test_bad_budget_is_refused():
    with pytest.raises(ParameterError, match="budget"):
        tune(scored_set(CASES), 0, PARAMS, SMALL_GRID)


def test_score_params_on_another_set_equals_evaluate_scored():
    scored = scored_set(CASES)
    params = PARAMS.with_changes(irrelevant_chunk_penalty=0.3, max_length=10)
    point = score_params(scored, params)
    overall = evaluate_scored(scored, params).overall()
    assert point.recall == pytest.approx(overall["recall"])
    assert point.characters == pytest.approx(overall["characters"])


@given(
    scores=st.lists(st.floats(0, 1, allow_nan=False), min_size=20, max_size=20),
    penalty=st.sampled_from([0.0, 0.1, 0.2, 0.4]),
    max_length=st.integers(1, 12),
    overall=st.integers(1, 20),
)
@settings(max_examples=80, deadline=None)
def test_answers_for_every_minimum_from_one_search_equal_searching_at_each(scores, penalty, max_length, overall):
    scored = scored_set([("x", "broad", (3, 8), scores)])
    params = PARAMS.with_changes(irrelevant_chunk_penalty=penalty, max_length=max_length, overall_max_length=overall)
    case = prepare(scored, params)[0]
    minimums = [0.0, 0.2, 0.5, 0.9, 1.5]
    shortcut = _outcomes_by_minimum(case, params, minimums)
    direct = [rse_outcome(case, params.with_changes(minimum_value=m)) for m in minimums]
    assert shortcut == direct


def test_the_tuner_varies_exactly_the_fields_the_specs_mark_as_tuned_within_their_sliders():
    """Applying a tuned setting writes the sliders of the specs marked ``tuned``: those must be what the
    tuner changes, and the default grid must stay on the sliders so no tuned value gets clamped."""
    result = tune(scored_set(CASES), 10_000, PARAMS, SMALL_GRID)
    varied = {spec.name for spec in PARAM_SPECS if len({getattr(p.params, spec.name) for p in result.points}) > 1}
    assert varied == {spec.name for spec in PARAM_SPECS if spec.tuned}
    grid = Grid()
    for spec, values in (
        (PENALTY, grid.penalties),
        (DECAY_RATE, grid.decay_rates),
        (MAX_LENGTH, grid.max_lengths),
        (MINIMUM_VALUE, grid.minimum_values),
    ):
        assert all(spec.fit_to_widget(value) == value for value in values), spec.name
