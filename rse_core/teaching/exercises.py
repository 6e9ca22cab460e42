"""The exercise bank: questions a class answers by hand, each with the answer the core computes.

Every answer is computed here by the same functions the app runs (the greedy search, the value
formula, the round-robin explanation), never typed in, so the bank, the app's checker and the
printed answer key cannot disagree. Each :class:`Exercise` holds its prompt, its inputs as a
teacher writes them, the answer, and an explanation with the numbers.

Answers are written as a student writes them (segments ``"2-3, 6-7"`` in pick order or ``"none"``;
a number; chunk numbers ``"4, 6"``; ``"yes"`` / ``"no"``) and read by :mod:`rse_core.teaching.answers`,
the grammar the worked example's own check reads too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rse_core.numerals import num
from rse_core.search import find_best_segments
from rse_core.teaching.answers import AnswerKind, format_answer, parse_answer
from rse_core.teaching.board import BoardLookups, board_lookups
from rse_core.teaching.classroom import EXAMPLES, ROUND_ROBIN_EXAMPLE, SCORES_EXAMPLE, Example
from rse_core.teaching.course import DEFAULT_PARAMS, limits_text, search_limits
from rse_core.teaching.gaps import segment_gaps
from rse_core.teaching.objective import strict_minimum_total
from rse_core.teaching.search_steps import StepKind

NUMBER_TOLERANCE = 0.005  # a value to two decimals is right


@dataclass(frozen=True)
class Verdict:
    correct: bool
    message: str


@dataclass(frozen=True)
class Exercise:
    """One question with its computed answer.

    Attributes:
        id: short stable name (``"E01"``).
        topic: what it practises (values to segments, the ``>=`` boundary, ...).
        prompt: the question.
        inputs: the numbers given, as a teacher writes them (label -> text).
        kind: how the answer is written.
        answer: the answer, normalised (segments as ``(first, last)`` pairs, chunks as ints, a
            float, or ``"yes"`` / ``"no"``).
        explanation: why, with the numbers.
        where: where in the app a student checks it.
        lookups: the beta CDF and decay values a hand computation reads, for an exercise that
            starts from scores (``None`` when the inputs are values already).
    """

    id: str
    topic: str
    prompt: str
    inputs: tuple[tuple[str, str], ...]
    kind: AnswerKind
    answer: object
    explanation: str
    where: str = "Worked example → Exercises"
    lookups: BoardLookups | None = None

    @property
    def answer_text(self) -> str:
        return format_answer(self.kind, self.answer)

    def check(self, text: str) -> Verdict:
        """Whether ``text`` is this exercise's answer; raises AnswerError if it cannot be read."""
        given = parse_answer(self.kind, text)
        if self.kind is AnswerKind.NUMBER:
            right = abs(float(given) - float(self.answer)) <= NUMBER_TOLERANCE
        else:
            right = given == self.answer
        if right:
            return Verdict(True, f"Right: {self.answer_text}. {self.explanation}")
        return Verdict(False, f"Not quite: you wrote {format_answer(self.kind, given)}. Try again, or open the key.")


# --------------------------------------------------------------------------- building the bank


def _picks(values: Sequence[float], **limits) -> tuple[tuple[int, int], ...]:
    return tuple((s.start, s.end - 1) for s in find_best_segments(list(values), **limits))


def _limits_text(example: Example) -> str:
    return (
        f"max {example.max_length} chunks per segment, {example.overall_max_length} overall, "
        f"minimum segment value {num(example.minimum_value)} (kept if value >= minimum)"
    )


def _segments_exercise(id: str, topic: str, name: str, prompt: str) -> Exercise:
    example = EXAMPLES[name]
    return Exercise(
        id,
        topic,
        prompt,
        (("values (chunks 0, 1, ...)", example.text), ("limits", _limits_text(example))),
        AnswerKind.SEGMENTS,
        _picks(example.values, **example.limits),
        example.point,
    )


# Frozen from the app: tr-10 ("coolant leak") on the technical report at the default parameters with the
# offline minilm scorer, chunks 83-94 rounded to two decimals (tests/teaching check them against a live run).
TR10_FIRST = 83
TR10_VALUES = (-0.1, -0.09, 0.8, -0.2, -0.2, 0.19, 0.26, -0.18, 0.29, 0.24, 0.01, -0.04)
TR10_K = DEFAULT_PARAMS.top_k


def _tr10_exercise() -> Exercise:
    values = list(TR10_VALUES)
    limits = search_limits(DEFAULT_PARAMS)
    picks = find_best_segments(values, **limits)
    rse = {TR10_FIRST + i for s in picks for i in range(s.start, s.end)}
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    top = {TR10_FIRST + i for i in order[:TR10_K]}
    dropped = tuple(sorted(rse - top))
    return Exercise(
        "E13",
        "top-k vs RSE on a real document",
        f"Top-k sends the {TR10_K} chunks with the highest values; RSE sends its segments (default limits: "
        f"{limits_text(limits)}). Which chunks does RSE send that top-k drops?",
        (
            (f"values of chunks {TR10_FIRST}-{TR10_FIRST + len(values) - 1}", ", ".join(num(v) for v in values)),
            ("document", "the technical report, query tr-10 (a coolant leak), default parameters"),
        ),
        AnswerKind.CHUNKS,
        dropped,
        f"RSE's segment is chunks {min(rse)}-{max(rse)}; top-k sends {', '.join(map(str, sorted(top)))}. The "
        f"chunks between them score low on their own and top-k drops them; RSE keeps them because their "
        "neighbours pay. Open the Lesson, section 3, to see the search take this segment.",
        where="Lesson → 1 and 3 (tr-10), or Explore with the technical report",
    )


def _builders() -> list[Callable[[], Exercise]]:
    budget = EXAMPLES["Overall budget binds"]
    gap = EXAMPLES["Course example 2: a gap worth crossing"]
    rows = SCORES_EXAMPLE.rows()
    scores_values = [row.value for row in rows]
    rr = ROUND_ROBIN_EXAMPLE
    rr_picks = [s for s in rr.steps() if s.kind is StepKind.PICK and s.query == 1]
    board = SCORES_EXAMPLE.params
    lookups = board_lookups(SCORES_EXAMPLE.scores, board)
    gap_picks = find_best_segments(list(gap.values), **gap.limits)
    gaps = tuple(g.index for g in segment_gaps(gap.values, list(gap_picks)))
    two = EXAMPLES["Two clusters: two segments"]
    two_gaps = segment_gaps(two.values, list(find_best_segments(list(two.values), **two.limits)))
    max2 = {**gap.limits, "max_length": 3}
    strict = strict_minimum_total(budget.values, **budget.limits)
    return [
        lambda: _segments_exercise(
            "E01",
            "values to segments",
            "Course example 1: one cluster",
            "Which segments does the greedy search pick, in order?",
        ),
        lambda: _segments_exercise(
            "E02",
            "values to segments: a gap",
            "Course example 2: a gap worth crossing",
            "Which segments does the greedy search pick, in order?",
        ),
        lambda: _segments_exercise(
            "E03",
            "values to segments: two clusters",
            "Two clusters: two segments",
            "Which segments does the greedy search pick, in order?",
        ),
        lambda: _segments_exercise(
            "E04", "max length", "Max length binds", "Which segments does the greedy search pick, in order?"
        ),
        lambda: _segments_exercise(
            "E05", "overall budget", "Overall budget binds", "Which segments does the greedy search pick, in order?"
        ),
        lambda: Exercise(
            "E06",
            "the >= boundary",
            "Same values and limits as E05, but a segment must be worth strictly MORE than the minimum (the notes' "
            '"greater than", notebook 003\'s >). What is the total value of the picks?',
            (("values", budget.text), ("limits", _limits_text(budget).replace(">=", ">"))),
            AnswerKind.NUMBER,
            strict,
            f"S1 = chunks 4-6 (2.0) uses 3 of 4 chunks; the best one-chunk segment left is chunk 1, worth exactly "
            f"0.7: kept under >= (total 2.7), refused under > (total {num(strict)}).",
        ),
        lambda: _segments_exercise(
            "E07", "the minimum", "Nothing clears the minimum", "Which segments does the greedy search pick?"
        ),
        lambda: Exercise(
            "E08",
            "scores to values on the board",
            f"Turn the scores into values (beta a = {num(board.beta_a)}, b = {num(board.beta_b)}, decay "
            f"{board.decay_rate:g}, penalty {num(board.irrelevant_chunk_penalty)}; rank 0 = best score). "
            "What is chunk 4's value?",
            (("scores", ", ".join(f"{s:g}" for s in SCORES_EXAMPLE.scores)),),
            AnswerKind.NUMBER,
            round(rows[4].value, 2),
            f"Chunk 4: {rows[4].working(board.decay_rate)}.",
            where="Worked example → Board (reveal the columns)",
            lookups=lookups,
        ),
        lambda: Exercise(
            "E09",
            "scores to segments",
            f"With the values of E08 and limits {limits_text(SCORES_EXAMPLE.limits)}, which segments does the "
            "search pick?",
            (("scores", ", ".join(f"{s:g}" for s in SCORES_EXAMPLE.scores)),),
            AnswerKind.SEGMENTS,
            _picks(scores_values, **SCORES_EXAMPLE.limits),
            SCORES_EXAMPLE.point,
            where="Worked example → Board (all 4 columns)",
            lookups=lookups,
        ),
        lambda: Exercise(
            "E10",
            "round robin",
            f"Two queries take turns (query 1 first), limits {limits_text(rr.limits)}. Which segments does "
            "query 2 pick?",
            (
                ("query 1", ", ".join(num(v) for v in rr.queries[0])),
                ("query 2", ", ".join(num(v) for v in rr.queries[1])),
            ),
            AnswerKind.SEGMENTS,
            tuple((s.segment.start, s.segment.end - 1) for s in rr_picks),
            rr.point,
            where="Worked example → Round-robin",
        ),
        lambda: Exercise(
            "E11",
            "gap or no gap",
            "In the answer to E02, which chunks are gaps (below zero on their own, kept because their neighbours pay)?",
            (("values", gap.text),),
            AnswerKind.CHUNKS,
            gaps,
            "Chunk 4 (-0.1) sits inside chunks 2-6: 1.2 before it and 0.9 after it pay for it.",
        ),
        lambda: Exercise(
            "E12",
            "gap or no gap",
            "In the answer to E03, does any segment keep a gap?",
            (("values", two.text),),
            AnswerKind.YES_NO,
            "yes" if two_gaps else "no",
            "No: chunks 2-5 cost 1.4 together, so joining the clusters (chunks 0-8, worth 1.1) is worth less than "
            "chunks 6-8 alone (1.3): the search picks the two clusters apart, and neither holds a chunk below 0.",
        ),
        _tr10_exercise,
        lambda: Exercise(
            "E14",
            "max length",
            f"Course example 2's values with at most {max2['max_length']} chunks per segment "
            f"({max2['overall_max_length']} overall, minimum {num(max2['minimum_value'])}): which segments?",
            (("values", gap.text), ("limits", f"max {limits_text(max2)}")),
            AnswerKind.SEGMENTS,
            _picks(gap.values, **max2),
            "Chunks 2-6 are 5 chunks, too long. The best segment of at most 3 chunks is 3-5 (0.8 - 0.1 + 0.6 = 1.3), "
            "which still crosses the gap; what is left (chunk 2, 0.4; chunk 6, 0.3) is below the minimum 0.7.",
        ),
    ]


def exercise_bank() -> tuple[Exercise, ...]:
    """Every exercise, in the order a class meets them, answers computed now."""
    return tuple(build() for build in _builders())


def by_id(exercises: Sequence[Exercise]) -> dict[str, Exercise]:
    return {exercise.id: exercise for exercise in exercises}


__all__ = ["Exercise", "Verdict", "by_id", "exercise_bank"]
