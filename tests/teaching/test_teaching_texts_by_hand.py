"""The teaching texts checked against hand computations: gaps, the objective, the >= boundary, the
explain panel's reason, the gap outline, the exercise bank and its handout."""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pytest

from rse_core import RSEParams, find_best_segments, run_rse
from rse_core.cli.handout import HANDOUT_NAME, KEY_NAME
from rse_core.cli.handout import main as handout_main
from rse_core.figures.teaching import Band, worked_example_chart
from rse_core.scoring import Calibration
from rse_core.search import Segment
from rse_core.teaching import explain_chunk
from rse_core.teaching.answers import AnswerError, AnswerKind, parse_answer
from rse_core.teaching.classroom import EXAMPLES, ROUND_ROBIN_EXAMPLE, SCORES_EXAMPLE
from rse_core.teaching.exercises import exercise_bank
from rse_core.teaching.gaps import positive_count, segment_gaps, window_by_position
from rse_core.teaching.handout import answer_key_html, handout_html
from rse_core.teaching.objective import explain_objective, kadane, strict_minimum_total
from tests.teaching.test_teaching import CORPUS, N

GAPPED = [-0.2, -0.2, 0.4, 0.8, -0.1, 0.6, 0.3, -0.2, -0.2]
COURSE = {"max_length": 20, "overall_max_length": 30, "minimum_value": 0.7}


# --------------------------------------------------------------------------- gaps


def test_a_gap_is_low_on_its_own_and_paid_for_by_its_neighbours():
    (gap,) = segment_gaps(GAPPED, [Segment(2, 7, 2.0, 0)])
    # by hand: chunk 4 is -0.1; before it 0.4 + 0.8 = 1.2, after it 0.6 + 0.3 = 0.9
    assert (gap.index, gap.value) == (4, -0.1)
    assert gap.before == pytest.approx(1.2) and gap.after == pytest.approx(0.9) and gap.paid_for
    assert segment_gaps(GAPPED, [Segment(2, 4, 1.2, 0)]) == []


def test_the_lessons_window_is_by_position_and_counts_chunks_above_zero():
    # the lesson: 320-339 around statements at 323 -> 3 before the answer, 20 by position
    assert window_by_position(323, 500) == (320, 340)
    assert window_by_position(1, 500) == (0, 20) and window_by_position(110, 114) == (94, 114)
    assert positive_count(GAPPED, 0, 9) == 4  # 0.4, 0.8, 0.6, 0.3


# --------------------------------------------------------------------------- the objective


def test_course_example_2_the_optimum_cuts_the_gap_the_lesson_keeps():
    objective = explain_objective(GAPPED, **COURSE)
    # by hand: greedy 2-6 = 0.4 + 0.8 - 0.1 + 0.6 + 0.3 = 2.0; optimum 2-3 (1.2) + 5-6 (0.9) = 2.1
    assert [(s.start, s.end) for s in objective.greedy] == [(2, 7)]
    assert [(s.start, s.end) for s in objective.optimal] == [(2, 4), (5, 7)]
    assert objective.greedy_total == pytest.approx(2.0) and objective.optimal_total == pytest.approx(2.1)
    assert objective.split_gaps == (4,) and objective.splits_a_cluster
    text = " ".join(objective.lines)
    assert "chunks 2-6, worth 2.0" in text  # plain Kadane agrees with the first pick here
    assert "maximises the total" in text and "pure cost" in text and "gains 0.1" in text
    assert "RSE keeps the gap on purpose" in text
    assert objective.headline == (
        "RSE's greedy: 2.0; maximum total: 2.1. The maximum total cuts out gap chunk 4; RSE keeps one passage."
    )


def test_kadane_ignores_the_limits_rse_adds():
    assert kadane([0.4, 0.5, 0.6, 0.5, 0.4, -0.5, 0.2]) == (0, 5, pytest.approx(2.4))
    ex = EXAMPLES["Max length binds"]
    objective = explain_objective(ex.values, **ex.limits)
    assert objective.kadane[:2] == (0, 5) and [(s.start, s.end) for s in objective.greedy] == [(1, 4)]


# --------------------------------------------------------------------------- the >= boundary


def test_overall_budget_example_says_its_answer_depends_on_greater_or_equal():
    ex = EXAMPLES["Overall budget binds"]
    picks = find_best_segments(list(ex.values), **ex.limits)
    assert [(s.start, s.end) for s in picks] == [(4, 7), (1, 2)]
    assert picks[1].score == pytest.approx(0.7)  # exactly the minimum
    assert sum(s.score for s in picks) == pytest.approx(2.7)
    assert strict_minimum_total(ex.values, **ex.limits) == pytest.approx(2.0)
    assert "exactly the minimum 0.7" in ex.point and "stops after S1 at 2.0" in ex.point and ">=" in ex.point


# --------------------------------------------------------------------------- the explain panel


def test_a_chunk_scored_zero_is_explained_by_its_score_not_its_rank():
    raw = np.zeros(N)
    raw[:4] = [0.9, 0.8, 0.7, 0.6]
    params = RSEParams(chunk_size=50, minimum_value=0.5, max_length=3)
    chunk = N - 1  # scored 0, ranked last: no segment of 3 chunks through it reaches 0.5
    result = run_rse(CORPUS, ["q"], [raw], params, Calibration())
    assert result.values[0].calibrated[chunk] == 0 and result.values[0].rank[chunk] > 10
    explanation = explain_chunk(CORPUS, ["q"], [raw], params, Calibration(), chunk)
    assert explanation.threshold is None
    assert "calibrated score is 0" in explanation.reason and "rank is too low" not in explanation.reason
    zeros = int((result.values[0].calibrated == 0).sum())
    assert f"{zeros} of {N} chunks share it" in explanation.reason


# --------------------------------------------------------------------------- the gap outline (small)


def test_gap_bars_get_their_outline():
    figure = worked_example_chart(GAPPED, [Band(2, 7, "S1", 2.0)])
    gap = next(trace for trace in figure.data if trace.name.startswith("inner gap"))
    assert list(gap.x) == [4] and gap.marker.line.width == 2
    others = [trace for trace in figure.data if not trace.name.startswith("inner gap")]
    assert all(trace.marker.line.width == 0 for trace in others)


def test_a_slice_of_a_real_document_keeps_its_chunk_numbers():
    figure = worked_example_chart([0.8, -0.2, 0.3], [Band(85, 88, "S1", 0.9)], first=85)
    assert sorted(x for trace in figure.data for x in trace.x) == [85, 86, 87]
    assert figure.layout.xaxis.tickvals == (85, 86, 87)


# --------------------------------------------------------------------------- the exercise bank


def test_the_bank_has_at_least_twelve_exercises_over_every_topic():
    bank = exercise_bank()
    assert len(bank) >= 12 and len({e.id for e in bank}) == len(bank)
    topics = " ".join(e.topic for e in bank)
    for topic in (
        "values to segments",
        "scores to values",
        ">=",
        "budget",
        "max length",
        "round robin",
        "gap",
        "top-k vs RSE on a real document",
    ):
        assert topic in topics


def test_every_answer_is_the_hand_computation():
    answers = {e.id: e.answer for e in exercise_bank()}
    assert answers["E01"] == ((2, 3),)
    assert answers["E02"] == ((2, 6),)
    assert answers["E03"] == ((6, 8), (0, 1))
    assert answers["E04"] == ((1, 3),)  # 0.5 + 0.6 + 0.5 = 1.6
    assert answers["E05"] == ((4, 6), (1, 1))
    assert answers["E06"] == pytest.approx(2.0)
    assert answers["E07"] == ()
    # chunk 4: score 0.03, rank 6; beta.cdf(0.03, 0.4, 0.4) x exp(-6/30) - 0.2
    from scipy.stats import beta

    assert answers["E08"] == pytest.approx(round(beta.cdf(0.03, 0.4, 0.4) * math.exp(-6 / 30) - 0.2, 2))
    assert answers["E08"] == pytest.approx(-0.08)
    assert answers["E09"] == ((2, 6),)
    assert answers["E10"] == ((3, 4),)
    assert answers["E11"] == (4,)
    assert answers["E12"] == "no"
    assert answers["E13"] == (86, 87, 90, 93)
    assert answers["E14"] == ((3, 5),)  # 0.8 - 0.1 + 0.6 = 1.3 beats 2-3 (1.2), 2-4 (1.1)
    assert sum(GAPPED[3:6]) == pytest.approx(1.3)
    assert ROUND_ROBIN_EXAMPLE.minimum_value == 0.5 and SCORES_EXAMPLE.scores[4] == 0.03


def test_each_exercise_checks_its_own_answer_and_refuses_a_wrong_one():
    for exercise in exercise_bank():
        assert exercise.check(exercise.answer_text).correct, exercise.id
        wrong = {
            AnswerKind.SEGMENTS: "0-0" if exercise.answer != ((0, 0),) else "1-1",
            AnswerKind.NUMBER: "9.99",
            AnswerKind.CHUNKS: "0",
            AnswerKind.YES_NO: "yes" if exercise.answer == "no" else "no",
        }[exercise.kind]
        assert not exercise.check(wrong).correct, exercise.id
    assert parse_answer(AnswerKind.SEGMENTS, "chunks 6-8 then 0-1") == ((6, 8), (0, 1))
    assert parse_answer(AnswerKind.CHUNKS, "none") == ()
    with pytest.raises(AnswerError):
        parse_answer(AnswerKind.NUMBER, "abc")


def test_handout_has_no_answers_and_the_key_has_every_answer(tmp_path):
    bank = exercise_bank()
    sheet, key = handout_html(bank), answer_key_html(bank)
    for exercise in bank:
        assert html.escape(exercise.prompt) in sheet and html.escape(exercise.prompt) in key
        assert f'<span class="answer">{html.escape(exercise.answer_text)}</span>' in key
    assert 'class="answer"' not in sheet and "<script" not in sheet + key and "http" not in sheet + key
    assert "&quot;greater than&quot;" in sheet  # escaped
    assert handout_main([str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / HANDOUT_NAME).read_text() == sheet
    assert (tmp_path / "out" / KEY_NAME).read_text() == key


def test_the_handout_command_fails_in_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert handout_main([str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot write") and err.count("\n") == 1
    assert re.search(r"\S", err)
