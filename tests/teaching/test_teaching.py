"""Teaching aids: the course's worked examples, binding constraints, answers and chunk thresholds."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rse_core import Document, ParameterError, RSEParams, StopReason, build_corpus, find_best_segments, run_rse
from rse_core.scoring import Calibration
from rse_core.teaching import (
    Constraint,
    StepKind,
    candidate_segments,
    check_answer,
    explain_chunk,
    explain_search,
)
from rse_core.teaching.search_steps import _best_run

COURSE = {"max_length": 20, "overall_max_length": 30, "minimum_value": 0.7}
ONE_CLUSTER = [-0.2, -0.2, 0.4, 0.8, -0.1]
GAPPED = [-0.2, -0.2, 0.4, 0.8, -0.1, 0.6, 0.3, -0.2, -0.2]
TWO_CLUSTERS = [0.9, 0.5, -0.5, -0.5, -0.5, 0.3, 0.6, -0.3]


# --------------------------------------------------------------------------- candidate_segments


def rows_by_range(values, **limits):
    return {(row.start, row.last): row for row in candidate_segments(values, **limits)}


def test_course_example_board_rows():
    rows = rows_by_range(ONE_CLUSTER, max_length=20)
    best = rows[(2, 3)]
    assert best.best and best.allowed and best.note == "best" and best.value == pytest.approx(1.2)
    assert rows[(3, 3)].note == "dropping chunk 2 loses 0.4" and rows[(3, 3)].allowed
    not_allowed = rows[(2, 4)]
    assert not not_allowed.allowed
    assert not_allowed.note == "ends on a negative chunk (-0.1): adding chunk 4 subtracts"
    assert not rows[(1, 3)].allowed and "starts on a negative chunk (-0.2)" in rows[(1, 3)].note
    assert [row.best for row in candidate_segments(ONE_CLUSTER, max_length=20)].count(True) == 1


def test_rows_are_sorted_by_value_and_allowed_rows_have_non_negative_ends():
    rows = candidate_segments(GAPPED, max_length=20)
    assert [row.value for row in rows] == sorted((row.value for row in rows), reverse=True)
    for row in rows:
        assert row.allowed == (GAPPED[row.start] >= 0 and GAPPED[row.last] >= 0)
    assert rows[0].best and (rows[0].start, rows[0].last) == (2, 6) and rows[0].value == pytest.approx(2.0)


def test_gapped_example_notes_name_the_gap_worth_crossing():
    rows = rows_by_range(GAPPED, max_length=20)
    assert rows[(2, 3)].note == (
        "dropping chunks 4-6 loses 0.8: chunk 4 (-0.1) is a gap worth crossing to reach 0.6 and 0.3"
    )
    assert rows[(3, 3)].note.startswith("dropping chunks 2 and 4-6") or rows[(3, 3)].note.startswith(
        "dropping chunk 2 and chunks 4-6"
    )
    assert "reach 0.6 and 0.3" in rows[(3, 3)].note


def test_larger_segment_that_crosses_a_costly_gap_says_what_it_costs():
    rows = rows_by_range(TWO_CLUSTERS, max_length=20)
    assert rows[(0, 1)].best
    assert (
        rows[(0, 6)].note == "adding chunks 2-6 costs 0.6: chunks 2 (-0.5), 3 (-0.5) and 4 (-0.5) outweigh 0.3 and 0.6"
    )
    assert rows[(5, 6)].note.startswith("a separate run, 0.5 less than the best")


def test_too_long_rows_are_listed_only_when_they_would_win():
    rows = candidate_segments([0.5] * 5, max_length=2)
    too_long = [row for row in rows if "too long" in row.note]
    assert too_long and all(not row.allowed and row.value > 1.0 for row in too_long)
    assert rows[0].length == 5 and not rows[0].allowed  # the board shows what the limit costs
    assert next(row for row in rows if row.best).label == "chunks 0-1"


def test_segments_never_cross_a_document_split():
    rows = candidate_segments([0.5, 0.5, 0.5, 0.5], max_length=4, document_splits=[2])
    assert all(row.end <= 2 or row.start >= 2 for row in rows)


def test_candidate_segments_refuses_big_or_nested_input():
    with pytest.raises(ParameterError):
        candidate_segments([0.1] * 500, max_length=3)
    with pytest.raises(ParameterError):
        candidate_segments([[0.1, 0.2]], max_length=3)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=14), st.integers(1, 6))
def test_best_row_is_the_search_first_pick(values, max_length):
    rows = candidate_segments(values, max_length=max_length)
    result = find_best_segments(values, max_length=max_length, overall_max_length=100, minimum_value=-100)
    best = [row for row in rows if row.best]
    if not result:
        assert not best
        return
    assert len(best) == 1
    assert (best[0].start, best[0].end) == (result[0].start, result[0].end)


# --------------------------------------------------------------------------- explain_search


def picks(entries):
    return [(e.segment.start, e.segment.end, e.label) for e in entries if e.kind is StepKind.PICK]


def test_explain_search_course_examples():
    first = explain_search(ONE_CLUSTER, **COURSE)
    assert picks(first) == [(2, 4, "S1")] and first[0].value == pytest.approx(1.2)
    second = explain_search(GAPPED, **COURSE)
    assert picks(second) == [(2, 7, "S1")] and second[0].value == pytest.approx(2.0)
    assert second[0].binding == ()
    assert second[0].constraint_note == "none: this is the unconstrained best run"
    assert second[-1].kind is StepKind.STOP and second[-1].stop_reason is StopReason.NO_CANDIDATES
    assert "all 4 chunks with a non-negative value are already in segments" in second[-1].message


def test_explain_search_two_clusters_and_below_minimum_stop():
    entries = explain_search(TWO_CLUSTERS, **COURSE)
    assert picks(entries) == [(0, 2, "S1"), (5, 7, "S2")]
    assert entries[1].constraint_note.startswith("none")
    values = [0.9, 0.5, -0.5, -0.5, -0.5, 0.3, -0.3]
    entries = explain_search(values, **COURSE)
    stop = entries[-1]
    assert stop.stop_reason is StopReason.BELOW_MINIMUM
    assert StopReason.BELOW_MINIMUM.explanation in stop.message
    assert "chunk 5, is worth 0.3 < minimum 0.7" in stop.message
    assert entries[-2].kind is StepKind.RETIRE and entries[-2].segment.start == 5


def test_one_entry_per_turn_plus_the_stop():
    values = [[1.0, 1.0, -1, -1, 0.1, -1], [-1, -1, -1, 2.0, -1, -1]]
    limits = {"max_length": 3, "overall_max_length": 10, "minimum_value": 0.05}
    result = find_best_segments(values, **limits)
    entries = explain_search(values, **limits)
    assert len(entries) == len(result.steps) + 1
    assert [(e.query, e.segment) for e in entries[:-1]] == [(s.query, s.best) for s in result.steps]
    assert "(query 2)" in entries[1].message


def test_max_length_binds():
    entries = explain_search([0.5] * 6 + [-1], max_length=3, overall_max_length=30, minimum_value=0.7)
    assert entries[0].binding == (Constraint.MAX_LENGTH,)
    assert entries[0].constraint_note == (
        "max chunks per segment (3) cut it: without it the best would be chunks 0-5 worth 3.0"
    )
    # The second pick is cut by max_length and the no-overlap rule only together.
    assert entries[1].binding == (Constraint.MAX_LENGTH, Constraint.OVERLAP)
    assert "together" in entries[1].constraint_note


def test_budget_binds():
    entries = explain_search([1, 1, 1, 1, -5, 0.8], max_length=4, overall_max_length=3, minimum_value=0)
    assert entries[0].binding == (Constraint.BUDGET,)
    assert "remaining chunk budget (3 of 3) cut it" in entries[0].constraint_note
    assert "chunks 0-3 worth 4.0" in entries[0].constraint_note
    assert entries[-1].stop_reason is StopReason.BUDGET_SPENT and "3 of 3 chunks" in entries[-1].message


def test_document_split_binds():
    entries = explain_search(
        [0.1, 0.6, 0.6, 0.6, 0.1], max_length=5, overall_max_length=30, minimum_value=0.5, document_splits=[2]
    )
    assert entries[0].binding == (Constraint.DOCUMENT_SPLITS,)
    assert "document split at chunk 2 cut it" in entries[0].constraint_note
    assert (entries[0].segment.start, entries[0].segment.end) == (2, 5)


def test_overlap_binds_across_queries():
    entries = explain_search(
        [[1, 1, -0.1, 0.5, -3], [-1, -1, -1, 0.9, 0.9]], max_length=5, overall_max_length=30, minimum_value=0.5
    )
    assert entries[1].binding == (Constraint.OVERLAP,)
    assert "reuse chunks of S1" in entries[1].constraint_note


def test_constraints_that_bind_only_together():
    entries = explain_search([1, 1, 1, 1, 1], max_length=3, overall_max_length=3, minimum_value=0.5)
    assert entries[0].binding == (Constraint.MAX_LENGTH, Constraint.BUDGET)
    assert entries[0].joint is not None and entries[0].joint.best.end == 5


def better(value, reference):
    return value > reference + 1e-9 * max(1, abs(value), abs(reference))


def brute_best(values, *, length, splits, taken, reuse):
    best = None
    n = len(values)
    for start in range(n):
        for end in range(start + 1, min(n, start + length) + 1):
            if values[start] < 0 or values[end - 1] < 0 or any(start < s < end for s in splits):
                continue
            inside = taken[start:end]
            if (not reuse and inside.any()) or (reuse and inside.all()):
                continue
            total = sum(values[start:end])
            if best is None or total > best[2] + 1e-12:
                best = (start, end, total)
    return best


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.floats(-1, 1, allow_nan=False).map(lambda x: round(x, 3)), min_size=1, max_size=12),
    st.integers(1, 12),
    st.lists(st.integers(1, 11), max_size=2),
    st.lists(st.booleans(), min_size=12, max_size=12),
    st.booleans(),
)
def test_best_run_matches_brute_force(values, length, splits, taken_flags, reuse):
    array = np.array(values)
    taken = np.array(taken_flags[: len(values)])
    found = _best_run(
        array,
        values,
        np.concatenate(([0.0], np.cumsum(array))),
        length=length,
        splits=sorted(set(splits)),
        taken=taken,
        reuse_taken=reuse,
    )
    expected = brute_best(values, length=length, splits=splits, taken=taken, reuse=reuse)
    assert (found is None) == (expected is None)
    if found is not None:
        assert found[2] == pytest.approx(expected[2], abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(-1, 1, allow_nan=False).map(lambda x: round(x, 3)), min_size=1, max_size=12),
    st.integers(1, 5),
    st.integers(1, 12),
    st.floats(0, 1),
)
def test_relaxing_never_lowers_the_best_and_binding_means_better(values, max_length, overall, minimum):
    entries = explain_search(values, max_length=max_length, overall_max_length=overall, minimum_value=minimum)
    for entry in entries:
        if entry.kind is not StepKind.PICK:
            continue
        for relaxation in entry.relaxations:
            assert relaxation.best is not None and relaxation.best.score >= entry.value - 1e-9
            assert relaxation.binds == better(relaxation.best.score, entry.value)
        assert entry.unconstrained.score >= entry.value - 1e-9
        assert bool(entry.binding) == better(entry.unconstrained.score, entry.value)


# --------------------------------------------------------------------------- check_answer


def test_check_answer_course_examples():
    assert check_answer(ONE_CLUSTER, (2, 3), **COURSE).correct
    wrong = check_answer(ONE_CLUSTER, (2, 4), **COURSE)
    assert not wrong.correct
    assert wrong.message == (
        "Not quite: chunks 2-4 end on chunk 4, whose value is negative (-0.1), so extending to it only "
        "subtracts. The best is chunks 2-3 (1.2)."
    )
    short = check_answer(GAPPED, (2, 3), **COURSE)
    assert not short.correct
    assert short.message == (
        "Not quite: chunks 2-3 are worth 1.2, but chunks 2-6 are worth 2.0: chunk 4 (-0.1) is a gap worth "
        "crossing to reach 0.6 and 0.3."
    )
    right = check_answer(GAPPED, (2, 6), **COURSE)
    assert right.correct and "Chunk 4 (-0.1) is a gap worth crossing" in right.message


@pytest.mark.parametrize(
    ("answer", "phrase"),
    [
        ((3, 3), "adding chunk 2 (0.4) only adds"),
        ((4, 4), "chunk 4 alone is negative (-0.1)"),
        ((1, 4), "both negative"),
        ((7, 2), "Write a segment as (first chunk, last chunk)"),
    ],
)
def test_check_answer_wrong_answers_say_why(answer, phrase):
    check = check_answer(ONE_CLUSTER, answer, **COURSE)
    assert not check.correct and phrase in check.message


def test_check_answer_too_long_crossing_and_later_picks():
    long = check_answer([0.5] * 6, (0, 5), max_length=3, overall_max_length=30, minimum_value=0)
    assert not long.correct and "more than the max of 3 per segment" in long.message
    split = check_answer([0.5] * 4, (1, 2), max_length=4, overall_max_length=30, minimum_value=0, document_splits=[2])
    assert not split.correct and "document split at chunk 2" in split.message
    later = check_answer(TWO_CLUSTERS, (5, 6), **COURSE)
    assert not later.correct and "as S2" in later.message
    costly = check_answer(TWO_CLUSTERS, (0, 6), **COURSE)
    assert not costly.correct and "chunks 0-1 alone are worth 1.4" in costly.message


def test_check_answer_all_picks_and_nothing():
    assert check_answer(TWO_CLUSTERS, [(0, 1), (5, 6)], **COURSE).correct
    reordered = check_answer(TWO_CLUSTERS, [(5, 6), (0, 1)], **COURSE)
    assert reordered.correct and "order" in reordered.message
    partial = check_answer(TWO_CLUSTERS, [(0, 1)], **COURSE)
    assert not partial.correct and "missing: chunks 5-6" in partial.message
    nothing = [0.5, -0.4, 0.3]
    limits = {"max_length": 5, "overall_max_length": 10, "minimum_value": 0.6}
    assert check_answer(nothing, None, **limits).correct
    found_but_small = check_answer(nothing, (0, 0), **limits)
    assert not found_but_small.correct and "less than the minimum segment value 0.6" in found_but_small.message
    assert not check_answer(ONE_CLUSTER, None, **COURSE).correct


# --------------------------------------------------------------------------- explain_chunk

TEXT = " ".join(f"Sentence {i} is here." for i in range(40))
CORPUS = build_corpus(Document.from_text(TEXT, name="x.txt"), chunk_size=50)
N = len(CORPUS.chunks)
RAW = np.array([0.05, 0.1, 0.9, 0.95, 0.3, 0.85, 0.6, 0.1, 0.05, 0.02, 0.7, 0.2, 0.03] + [0.01] * (N - 13))


def in_segment(params, raw, chunk, queries=("q",)):
    result = run_rse(CORPUS, list(queries), raw, params, Calibration())
    return any(s.start <= chunk < s.end for s in result.segments)


def test_explain_chunk_out_chunk_joins_below_threshold():
    params = RSEParams(chunk_size=50, irrelevant_chunk_penalty=0.3)
    explanation = explain_chunk(CORPUS, ["q"], [RAW], params, Calibration(), 7)
    assert not explanation.in_segment and explanation.value < 0
    assert explanation.threshold < 0.3 and abs(explanation.beyond - explanation.threshold) <= 1e-4 + 1e-12
    assert in_segment(params.with_changes(irrelevant_chunk_penalty=explanation.threshold), [RAW], 7)
    assert not in_segment(params.with_changes(irrelevant_chunk_penalty=explanation.beyond), [RAW], 7)
    assert f"it would join a segment (S1) if the penalty were {explanation.threshold:g}" in explanation.message
    assert explanation.message.startswith("value -0.12 (rank 8 of")


def test_explain_chunk_in_chunk_drops_out_above_threshold():
    params = RSEParams(chunk_size=50, irrelevant_chunk_penalty=0.3)
    explanation = explain_chunk(CORPUS, ["q"], [RAW], params, Calibration(), 4)
    assert explanation.in_segment and explanation.segment_label == "S1"
    assert explanation.threshold > 0.3
    assert not in_segment(params.with_changes(irrelevant_chunk_penalty=explanation.threshold), [RAW], 4)
    assert "it would drop out if the penalty were" in explanation.message


def test_the_value_to_apply_is_the_one_the_message_names_and_it_flips_the_chunk():
    params = RSEParams(chunk_size=50, irrelevant_chunk_penalty=0.3)
    for chunk in (4, 7):
        explanation = explain_chunk(CORPUS, ["q"], [RAW], params, Calibration(), chunk)
        applied = explanation.applied
        assert applied == pytest.approx(round(applied, 2))  # on the slider's 0.01 grid
        flipped = in_segment(params.with_changes(irrelevant_chunk_penalty=applied), [RAW], chunk)
        assert flipped != explanation.in_segment
        # past the threshold, seen from the current penalty, by less than one slider step
        assert 0 <= abs(applied - explanation.threshold) < 0.01
        assert abs(applied - 0.3) >= abs(explanation.threshold - 0.3)
        if applied != explanation.threshold:
            assert f"the first value that does it is {explanation.applied_text}" in explanation.message


def test_ranks_count_from_zero_in_the_messages():
    # chunk 12 has raw score 0.03: rank 12 of the 13 distinct scores, so the decay keeps exp(-r/2)
    low_rank = RSEParams(chunk_size=50, irrelevant_chunk_penalty=0.2, minimum_value=0.5, max_length=1, decay_rate=2)
    stuck = explain_chunk(CORPUS, ["q"], [RAW], low_rank, Calibration(), 12)
    rank = stuck.ranks[0]
    assert rank == int(run_rse(CORPUS, ["q"], [RAW], low_rank, Calibration()).values[0].rank[12])
    assert f"(rank {rank} of {N}, best = rank 0;" in stuck.message
    assert f"exp(-{rank}/2) = {math.exp(-rank / 2):.3f}" in stuck.reason


def test_explain_chunk_says_why_no_penalty_flips_it():
    low_rank = RSEParams(chunk_size=50, irrelevant_chunk_penalty=0.2, minimum_value=0.5, max_length=1, decay_rate=2)
    stuck = explain_chunk(CORPUS, ["q"], [RAW], low_rank, Calibration(), 12)
    assert stuck.threshold is None and "rank is too low" in stuck.reason and "even with penalty 0" in stuck.reason
    high_minimum = RSEParams(chunk_size=50, irrelevant_chunk_penalty=0.2, minimum_value=50.0)
    unreachable = explain_chunk(CORPUS, ["q"], [RAW], high_minimum, Calibration(), 12)
    assert unreachable.threshold is None and "minimum segment value is out of reach" in unreachable.reason
    budget = RSEParams(chunk_size=50, irrelevant_chunk_penalty=0.2, minimum_value=0.1, overall_max_length=2)
    spent = explain_chunk(CORPUS, ["q"], [RAW], budget, Calibration(), 15)
    assert spent.threshold is None and "the chunk budget (2) is spent" in spent.reason
    raw = np.zeros(N)
    raw[3] = 1.0
    always = RSEParams(chunk_size=50, irrelevant_chunk_penalty=0.5, minimum_value=0.0, max_length=1)
    kept = explain_chunk(CORPUS, ["q"], [raw], always, Calibration(), 3)
    assert kept.in_segment and kept.threshold is None and "even at penalty 1" in kept.reason


def test_explain_chunk_refuses_a_chunk_outside_the_corpus():
    with pytest.raises(ParameterError):
        explain_chunk(CORPUS, ["q"], [RAW], RSEParams(chunk_size=50), Calibration(), N)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.floats(0, 1), min_size=N, max_size=N),
    st.floats(0, 0.6).map(lambda x: round(x, 3)),
    st.floats(0, 1.5),
    st.integers(1, 6),
    st.integers(1, 12),
    st.integers(0, N - 1),
    st.booleans(),
)
def test_threshold_really_flips_the_chunk(raw, penalty, minimum, max_length, overall, chunk, two_queries):
    raw_scores = [np.array(raw)] + ([np.array(raw[::-1])] if two_queries else [])
    queries = ["q1", "q2"][: len(raw_scores)]
    params = RSEParams(
        chunk_size=50,
        irrelevant_chunk_penalty=penalty,
        minimum_value=minimum,
        max_length=max_length,
        overall_max_length=overall,
    )
    explanation = explain_chunk(CORPUS, queries, raw_scores, params, Calibration(), chunk)
    now = in_segment(params, raw_scores, chunk, queries)
    assert explanation.in_segment == now
    if explanation.threshold is None:
        assert explanation.reason and explanation.reason in explanation.message
    assume(explanation.threshold is not None)
    assert abs(explanation.threshold - explanation.beyond) <= 1e-4 + 1e-12
    at = params.with_changes(irrelevant_chunk_penalty=explanation.threshold)
    beyond = params.with_changes(irrelevant_chunk_penalty=explanation.beyond)
    assert in_segment(at, raw_scores, chunk, queries) != now
    assert in_segment(beyond, raw_scores, chunk, queries) == now


def test_all_pairs_of_tiny_inputs_agree_with_the_search():
    # Every sign pattern of 5 chunks: the explained picks are the search's picks.
    for signs in itertools.product((-0.3, 0.4), repeat=5):
        values = list(signs)
        entries = explain_search(values, **COURSE)
        result = find_best_segments(values, **COURSE)
        assert [(s, e) for s, e, _ in picks(entries)] == [(p.start, p.end) for p in result]


# --------------------------------------------------------------------------- the lesson's tables


def test_table_1_lists_every_run_of_the_five_value_example():
    from rse_core.teaching import all_runs

    rows = all_runs(ONE_CLUSTER)
    assert [(row.start, row.last) for row in rows] == [(s, e) for s in range(5) for e in range(s, 5)]
    by_range = {(row.start, row.last): row for row in rows}
    whole = by_range[(0, 4)]
    assert whole.value == pytest.approx(0.7) and whole.note.startswith("the whole list")
    assert by_range[(2, 3)].best and by_range[(2, 3)].value == pytest.approx(1.2)
    assert by_range[(2, 4)].note == (
        "not a candidate: ends on a negative chunk (-0.1); 0.1 less than the best (chunks 2-3)"
    )
    assert sum(row.best for row in rows) == 1


def test_scores_to_values_table_matches_a_hand_computation():
    from rse_core.teaching import beta_lookup, value_rows
    from rse_core.teaching.classroom import SCORES_EXAMPLE

    rows = value_rows([0.9, 0.05, 0.99])
    assert [row.rank for row in rows] == [1, 2, 0]  # best = rank 0
    for row, score in zip(rows, [0.9, 0.05, 0.99], strict=True):
        transformed = float(beta_cdf(score))
        assert row.transformed == pytest.approx(transformed)
        assert row.decay == pytest.approx(math.exp(-row.rank / 30))
        assert row.value == pytest.approx(transformed * math.exp(-row.rank / 30) - 0.2)
    assert rows[2].working(30) == "0.99 -> 0.906 x exp(-0/30) = 0.906 x 1.000 = 0.906 - 0.2 = 0.706"
    lookup = {round(row.score, 2): round(row.transformed, 3) for row in beta_lookup()}
    assert (lookup[0.01], lookup[0.05], lookup[0.95], lookup[0.99], lookup[0.5]) == (0.094, 0.18, 0.82, 0.906, 0.5)
    values = [row.value for row in SCORES_EXAMPLE.rows()]
    (segment,) = find_best_segments(values, **COURSE)
    assert (segment.start, segment.end, round(segment.score, 2)) == (2, 7, 1.88) and values[4] < 0


def beta_cdf(score):
    from scipy.stats import beta

    return beta.cdf(score, 0.4, 0.4)


def test_two_queries_take_turns_on_the_board():
    from rse_core.teaching.classroom import ROUND_ROBIN_EXAMPLE

    steps = ROUND_ROBIN_EXAMPLE.steps()
    picks = [(step.query, step.segment.start, step.segment.end - 1) for step in steps if step.kind is StepKind.PICK]
    assert picks == [(0, 0, 1), (1, 3, 4), (0, 6, 7)]
    assert "if it could reuse chunks of S1, the best would be chunks 1-4 worth 1.4" in steps[1].message
    assert [step.kind for step in steps[3:]] == [StepKind.RETIRE, StepKind.RETIRE, StepKind.STOP]


def test_a_segment_worth_exactly_the_minimum_is_kept_as_the_rule_says():
    from rse_core.teaching import MINIMUM_RULE

    assert ">=" in MINIMUM_RULE
    assert check_answer([0.3, 0.4], (0, 1), max_length=5, overall_max_length=5, minimum_value=0.7).correct
    assert [
        (s.start, s.end) for s in find_best_segments([0.3, 0.4], max_length=5, overall_max_length=5, minimum_value=0.7)
    ] == [(0, 2)]
