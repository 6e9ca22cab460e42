"""The printed retrieval targets: each one computed from the evaluation's own summary, e.g. the
factoid target (RSE's characters at most twice top-k's), checked against a hand computation."""

from __future__ import annotations

import pytest

from rse_core import RSEParams, get_scorer
from rse_core.evaluation.golden import load_golden_set
from rse_core.evaluation.reports import SetReport
from rse_core.evaluation.retrieval_targets import FACTOID_CHARACTERS_RATIO, check_targets
from rse_core.evaluation.scored_sets import evaluate_scored, score_set
from rse_core.evaluation.sets import SAMPLE_DIR, EvalSet, golden_group


@pytest.fixture(scope="module")
def scored():
    golden = load_golden_set(SAMPLE_DIR / "employee_handbook.golden.json")
    return score_set(EvalSet("handbook", (golden_group(golden),)), get_scorer("bm25"), 800)


@pytest.mark.parametrize("penalty", [0.2, 0.05])
def test_the_factoid_target_is_rses_characters_over_top_ks(scored, penalty):
    evaluation = evaluate_scored(scored, RSEParams(irrelevant_chunk_penalty=penalty))
    report = SetReport("handbook", 1, scored, evaluation, {})
    [check] = [c for c in check_targets(report) if c.target.startswith("factoid: characters")]
    factoid = [q for q in evaluation.queries if q.kind == "factoid"]
    rse = sum(q.scores["rse"].characters for q in factoid) / len(factoid)
    top_k = sum(q.scores["top_k"].characters for q in factoid) / len(factoid)
    assert check.measured == f"{rse / top_k:.2f}x"
    assert check.met == (rse / top_k <= FACTOID_CHARACTERS_RATIO)
    assert "(k = 5)" in check.target
