"""A student's typed answer is read by one grammar in every mode: what it accepts, what it refuses
and why, and that what the app writes as an answer reads back as the same answer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rse_core.numerals import num
from rse_core.teaching import check_answer, check_typed_answer
from rse_core.teaching.answers import (
    AnswerError,
    AnswerKind,
    format_answer,
    format_chunks,
    format_segments,
    parse_answer,
    parse_chunks,
    parse_number,
    parse_segments,
    parse_yes_no,
)
from rse_core.teaching.exercises import by_id, exercise_bank

TWO_CLUSTERS = [0.5, 0.7, -0.3, -0.4, -0.5, -0.2, 0.6, 0.4, 0.3, -0.1]
COURSE_LIMITS = {"max_length": 20, "overall_max_length": 30, "minimum_value": 0.7}

chunk = st.integers(min_value=0, max_value=10**9 - 1)
pair = st.tuples(chunk, chunk).map(lambda ends: (min(ends), max(ends)))


@pytest.mark.parametrize(
    "typed",
    ["2-3", "2..3", "2–3", "2 — 3", "2 to 3", "2to3", "2−3", "chunks 2-3", "3-2", " 2 - 3 ", "segment 2..3"],
)
def test_a_range_is_read_however_a_student_writes_it(typed):
    assert parse_segments(typed) == ((2, 3),)


@pytest.mark.parametrize(
    "typed",
    ["2-3, 6-7", "2-3; 6-7", "2-3 then 6-7", "2-3 and 6-7", "2-3 & 6-7", "2-3 6-7", "chunks 2..3, then 6 to 7"],
)
def test_several_segments_are_read_in_the_order_written(typed):
    assert parse_segments(typed) == ((2, 3), (6, 7))


@pytest.mark.parametrize("typed", ["none", "Nothing", "no segment", "no chunks", "empty", "-", "—", "", "   "])
def test_none_means_no_segment(typed):
    assert parse_segments(typed) == ()
    assert parse_chunks(typed) == ()


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("two to three", "Could not read 'two to three'"),
        ("2.5", "Could not read '.5'"),
        ("-3", "needs a chunk before it"),
        ("2-", "has no last chunk"),
        ("2 to", "has no last chunk"),
        (", ,", "Type a segment"),
        ("1" * 40, "does not exist"),
    ],
)
def test_what_the_grammar_refuses_it_says_how_to_write(typed, message):
    with pytest.raises(AnswerError, match=message):
        parse_segments(typed)


def test_a_chunk_beyond_the_values_is_refused_when_their_count_is_known():
    assert parse_segments("3-9", chunk_count=10) == ((3, 9),)
    with pytest.raises(AnswerError, match="Chunk 10 does not exist: the chunks are numbered 0 to 9"):
        parse_segments("3-10", chunk_count=10)


def test_chunks_numbers_and_yes_or_no():
    assert parse_chunks("6, 4 and 4-5") == (4, 5, 6)
    assert parse_number(" −0.08 ") == -0.08
    assert parse_yes_no("Y") == "yes" and parse_yes_no("no") == "no"
    for reader, typed in ((parse_number, "nan"), (parse_number, "1e999"), (parse_yes_no, "maybe")):
        with pytest.raises(AnswerError):
            reader(typed)
    with pytest.raises(AnswerError, match="more than"):
        parse_chunks("0-999999999")


@pytest.mark.parametrize(
    ("typed", "read_as", "exercise_correct"),
    [("6..8", (6, 8), False), ("6-8 then 0-1", [(6, 8), (0, 1)], True), ("none", None, False)],
)
def test_the_worked_examples_check_and_its_exercise_agree_on_what_they_read(typed, read_as, exercise_correct):
    """Both modes of the worked example read these: the check reads one range as the first pick,
    several as every pick in order, and none as no segment; the exercise (E03, the same values)
    wants 6-8 then 0-1."""
    assert check_typed_answer(TWO_CLUSTERS, typed, **COURSE_LIMITS) == check_answer(
        TWO_CLUSTERS, read_as, **COURSE_LIMITS
    )
    assert by_id(exercise_bank())["E03"].check(typed).correct is exercise_correct


@given(st.lists(pair, max_size=6))
def test_written_segments_read_back_as_themselves(pairs):
    pairs = tuple(pairs)
    assert parse_segments(format_segments(pairs)) == pairs
    assert parse_answer(AnswerKind.SEGMENTS, format_answer(AnswerKind.SEGMENTS, pairs)) == pairs


@given(st.sets(chunk, max_size=8))
def test_written_chunks_read_back_as_themselves(chunks):
    chunks = tuple(sorted(chunks))
    assert parse_chunks(format_chunks(chunks)) == chunks


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_a_written_number_reads_back_within_the_checkers_tolerance(value):
    assert parse_answer(AnswerKind.NUMBER, num(value)) == pytest.approx(value, abs=0.005)


@given(st.text(max_size=40), st.sampled_from(list(AnswerKind)))
def test_any_text_is_read_or_refused_with_an_answer_error(text, kind):
    try:
        parse_answer(kind, text)
    except AnswerError as error:
        assert str(error)


@given(st.text(alphabet="0123456789-.,; tohenadc&–", max_size=30))
def test_text_made_of_the_grammars_own_pieces_is_read_or_refused_with_an_answer_error(text):
    try:
        pairs = parse_segments(text, chunk_count=50)
    except AnswerError:
        return
    assert all(0 <= first <= last < 50 for first, last in pairs)
