"""The exercise bank as a class meets it on paper: hints that give no answer away, a handout with a
name line, and lookup values from which every exercise that starts from scores is done by hand."""

from __future__ import annotations

import html
import math
import re

import pytest

from rse_core import find_best_segments
from rse_core.teaching.answers import AnswerError, AnswerKind, parse_answer, parse_chunks, parse_segments
from rse_core.teaching.board import board_lookups
from rse_core.teaching.classroom import SCORES_EXAMPLE
from rse_core.teaching.exercises import NUMBER_TOLERANCE, Exercise, by_id, exercise_bank
from rse_core.teaching.handout import handout_html

BANK = exercise_bank()
EXAMPLE = re.compile(r"e\.g\. ([^()]+?)(?: \(|\.?$)")


def shown_examples() -> list[str]:
    """Every "e.g. ..." a student sees: each kind's hint and the messages of unreadable answers."""
    texts = [kind.hint for kind in AnswerKind]
    for kind, typed in (
        (AnswerKind.NUMBER, "abc"),
        (AnswerKind.SEGMENTS, "-3"),
        (AnswerKind.SEGMENTS, "2-"),
        (AnswerKind.SEGMENTS, "x?"),
        (AnswerKind.SEGMENTS, ","),
        (AnswerKind.CHUNKS, "0-99999"),
    ):
        with pytest.raises(AnswerError) as error:
            parse_answer(kind, typed)
        texts.append(str(error.value))
    examples = [match.group(1).strip() for text in texts for match in EXAMPLE.finditer(text)]
    assert len(examples) >= len(AnswerKind) - 1  # yes/no has no example
    return examples


def gives_away(example: str, exercise: Exercise) -> bool:
    """Whether ``example``, or any part of it, is ``exercise``'s answer or a part of that answer."""
    if exercise.kind is AnswerKind.NUMBER:
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", example)]
        return any(abs(n - float(exercise.answer)) <= NUMBER_TOLERANCE for n in numbers)
    if exercise.kind is AnswerKind.YES_NO:
        return example.strip().lower() in ("yes", "no")
    try:
        pairs = parse_segments(example)
    except AnswerError:
        return False
    if exercise.kind is AnswerKind.SEGMENTS:
        answer = set(exercise.answer)
        return bool(set(pairs) & answer) or pairs == exercise.answer
    chunks = set(parse_chunks(example))
    return bool(chunks & set(exercise.answer))


@pytest.mark.parametrize("exercise", BANK, ids=lambda e: e.id)
def test_no_hint_or_message_shows_an_exercises_answer_or_a_part_of_it(exercise):
    for example in shown_examples():
        assert not gives_away(example, exercise), (example, exercise.id, exercise.answer_text)


def test_the_old_hints_would_have_been_caught():
    """The check itself: E08's -0.08 and E01's 2-3 (the hints the issue found) are flagged."""
    bank = by_id(BANK)
    assert gives_away("-0.08", bank["E08"]) and gives_away("2-3, 6-7", bank["E01"])
    assert gives_away("4, 6", bank["E11"])


def test_the_handout_shows_the_same_hints_and_none_of_the_answers():
    page = html.unescape(handout_html(BANK))
    for exercise in BANK:
        assert f"Answer ({exercise.kind.hint}):" in page
    assert "e.g. -0.08" not in page and "e.g. 2-3" not in page


def test_the_handout_has_a_name_and_date_line():
    page = handout_html(BANK)
    assert "<span>Name:</span><span>Date:</span>" in page
    assert page.index("Name:") < page.index("E01.")


def _printed_tables(page: str, exercise_id: str) -> tuple[dict[float, float], dict[int, float]]:
    """The beta and decay lookups as printed under one exercise of the handout, read back from the HTML."""
    section = page.split(f"<h2>{exercise_id}. ")[1].split("</section>")[0]
    beta_table, decay_table = re.findall(r"<table>(.*?)</table>", section)
    cells = lambda table: re.findall(r"<tr><td>([^<]+)</td><td>([^<]+)</td></tr>", table)  # noqa: E731
    beta = {float(score): float(value) for score, value in cells(beta_table)}
    decay = {int(rank): float(value) for rank, value in cells(decay_table)}
    return beta, decay


def _values_by_hand(page: str, exercise_id: str) -> list[float]:
    """E08's working with pencil and paper: rank the scores, read beta and decay off the printed
    tables, multiply, subtract the penalty (0.2, printed in the prompt)."""
    beta, decay = _printed_tables(page, exercise_id)
    scores = SCORES_EXAMPLE.scores
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))  # rank 0 = best, ties: earlier first
    rank = {chunk: position for position, chunk in enumerate(order)}
    assert "penalty 0.2" in by_id(BANK)["E08"].prompt
    return [beta[score] * decay[rank[i]] - 0.2 for i, score in enumerate(scores)]


def test_e08_is_answered_from_the_printed_lookups_alone():
    page = handout_html(BANK)
    values = _values_by_hand(page, "E08")
    # by hand: chunk 4 scores 0.03, ranks 6th of 9 -> 0.146 x 0.819 - 0.2 = -0.080
    assert round(values[4], 2) == pytest.approx(by_id(BANK)["E08"].answer)
    assert by_id(BANK)["E08"].check(f"{values[4]:.2f}").correct


def test_e09_is_answered_from_the_printed_lookups_alone():
    page = handout_html(BANK)
    values = _values_by_hand(page, "E09")
    picks = tuple((s.start, s.end - 1) for s in find_best_segments(values, **SCORES_EXAMPLE.limits))
    assert picks == by_id(BANK)["E09"].answer == ((2, 6),)


def test_the_lookups_cover_every_score_and_rank_of_the_board_and_match_scipy():
    from scipy.stats import beta

    params = SCORES_EXAMPLE.params
    lookups = board_lookups(SCORES_EXAMPLE.scores, params)
    assert {row.score for row in lookups.beta} == set(SCORES_EXAMPLE.scores)  # the old table missed 5 of 9
    assert [row.rank for row in lookups.decay] == list(range(len(SCORES_EXAMPLE.scores)))
    for row in lookups.beta:
        assert row.transformed == pytest.approx(beta.cdf(row.score, params.beta_a, params.beta_b))
    for row in lookups.decay:
        assert row.decay == pytest.approx(math.exp(-row.rank / params.decay_rate))


def test_only_the_exercises_from_scores_carry_lookups():
    with_lookups = {e.id for e in BANK if e.lookups is not None}
    assert with_lookups == {e.id for e in BANK if any(label == "scores" for label, _ in e.inputs)} == {"E08", "E09"}
