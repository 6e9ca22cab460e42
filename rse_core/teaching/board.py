"""The board: every candidate segment of a small example, and checking a student's answer.

- :func:`candidate_segments`: every segment of a small example with its sum and a note
  comparing it with the best ("dropping chunk 2 loses 0.4").
- :func:`check_answer`: whether a student's segment is the one the search picks, and why not;
  :func:`check_typed_answer` reads the answer as typed first (:mod:`rse_core.teaching.answers`).
- :func:`board_lookups`: the beta CDF of every score and the decay of every rank of a scores
  board, the lookup values a hand computation reads.

Chunk numbers are 0-based, as in the course (values -0.2, -0.2, 0.4, 0.8, -0.1: the best
segment is "chunks 2-3"); ranges are inclusive in messages and in :func:`check_answer`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.errors import ParameterError
from rse_core.numerals import num
from rse_core.params import RSEParams
from rse_core.search import StopReason, find_best_segments
from rse_core.teaching.answers import parse_segments
from rse_core.teaching.score_steps import BetaRow, beta_lookup
from rse_core.teaching.wording import (
    chunk_range,
    chunk_set,
    is_are,
    join_and,
    nearly_equal,
    single_query,
    split_points,
    splits_crossed,
    valued,
)
from rse_core.values import rank_decay

MAX_TEACHING_VALUES = 100
"""Longest value list :func:`candidate_segments` accepts: it lists O(n²) rows, for the board."""


@dataclass(frozen=True)
class CandidateSegment:
    """One row of the board: a segment, its sum, and what to say about it.

    Attributes:
        start, end: chunks ``start:end`` (end exclusive).
        value: the sum of their values.
        allowed: whether the search may pick it (non-negative ends, within one document, at
            most ``max_length`` chunks).
        best: the allowed segment the search picks first (ties: earliest start, then shortest).
        note: "best", or how it compares with the best, or why it is not allowed.
    """

    start: int
    end: int
    value: float
    allowed: bool
    best: bool
    note: str

    @property
    def first(self) -> int:
        return self.start

    @property
    def last(self) -> int:
        return self.end - 1

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def label(self) -> str:
        return chunk_range(self.start, self.end)


def candidate_segments(
    values: Sequence[float] | np.ndarray,
    *,
    max_length: int,
    document_splits: Sequence[int] = (),
    include_not_allowed: bool = True,
) -> list[CandidateSegment]:
    """Every segment a teacher would put on the board for a small example, best first.

    Rows: every segment within one document that starts and ends on a non-negative chunk and
    is at most ``max_length`` long (allowed); and, flagged as not allowed, each of those
    widened by a negative chunk on one or both ends (the tempting mistake: "2-4 has more
    chunks") and the over-long segments that would beat the best without the length limit.

    Args:
        values: chunk values of one query (at most :data:`MAX_TEACHING_VALUES`).
        max_length: most chunks in one segment.
        document_splits: chunk indices where a new document starts.
        include_not_allowed: also list the not-allowed rows.

    Returns:
        Rows sorted by value, highest first (ties: earliest start, then shortest).
    """
    array = single_query(values)
    n = len(array)
    if n > MAX_TEACHING_VALUES:
        raise ParameterError(
            f"candidate_segments lists every segment, for examples of at most {MAX_TEACHING_VALUES} values; got {n}."
        )
    if isinstance(max_length, bool) or not isinstance(max_length, (int, np.integer)) or max_length < 1:
        raise ParameterError(f"max_length must be a whole number of chunks, at least 1; got {max_length!r}.")
    splits = split_points(document_splits, n)
    bounds = [0, *splits, n]
    exact = array.tolist()
    allowed, too_long = _segments_by_length(exact, bounds, max_length)
    rows: list[CandidateSegment] = []
    best = min(allowed, key=lambda key: (-allowed[key], key[0], key[1] - key[0])) if allowed else None
    for (start, end), total in allowed.items():
        note = "best" if (start, end) == best else _compare_with_best(array, start, end, total, best, allowed[best])
        rows.append(CandidateSegment(start, end, total, True, (start, end) == best, note))
    if include_not_allowed:
        rows += _negative_end_rows(array, exact, allowed, bounds)
        best_value = allowed[best] if best else -math.inf
        for (start, end), total in too_long.items():
            if total > best_value and not nearly_equal(total, best_value):
                note = (
                    f"too long: {end - start} chunks, more than the max of {max_length} per segment "
                    f"(without the limit it would beat the best by {num(total - best_value)})"
                )
                rows.append(CandidateSegment(start, end, total, False, False, note))
    rows.sort(key=lambda row: (-row.value, row.start, row.length))
    return rows


def _segments_by_length(
    exact: list[float], bounds: list[int], max_length: int
) -> tuple[dict[tuple[int, int], float], dict[tuple[int, int], float]]:
    """(start, end) -> value of every run within one document that starts and ends on a
    non-negative chunk: those at most ``max_length`` long, and the longer ones."""
    allowed: dict[tuple[int, int], float] = {}
    too_long: dict[tuple[int, int], float] = {}
    for low, high in itertools.pairwise(bounds):
        for start in range(low, high):
            if exact[start] < 0:
                continue
            for end in range(start + 1, high + 1):
                if exact[end - 1] >= 0:
                    target = allowed if end - start <= max_length else too_long
                    target[(start, end)] = sum(exact[start:end])
    return allowed, too_long


def all_runs(
    values: Sequence[float] | np.ndarray,
    *,
    max_length: int | None = None,
    document_splits: Sequence[int] = (),
) -> list[CandidateSegment]:
    """Every run ``start..end`` of a small example, in board order: the lesson's Table 1.

    Unlike :func:`candidate_segments` (the segments the search may pick, best first), this lists
    all n (n + 1) / 2 runs, by start and then end, each with its sum and why it is or is not the
    best: for the course's -0.2, -0.2, 0.4, 0.8, -0.1 that is 15 rows, from "0 to 0 = -0.2" to
    "0 to 4 = 0.7, the whole list", with "2 to 3 = 1.2" the best.

    Args:
        values: chunk values of one query (at most :data:`MAX_TEACHING_VALUES`).
        max_length: most chunks in one segment (default: no limit).
        document_splits: chunk indices where a new document starts.
    """
    array = single_query(values)
    n = len(array)
    if n > MAX_TEACHING_VALUES:
        raise ParameterError(
            f"all_runs lists every run, for examples of at most {MAX_TEACHING_VALUES} values; got {n}."
        )
    limit = n if max_length is None else max_length
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ParameterError(f"max_length must be a whole number of chunks, at least 1; got {max_length!r}.")
    splits = split_points(document_splits, n)
    allowed = {
        (row.start, row.end): row
        for row in candidate_segments(array, max_length=limit, document_splits=splits, include_not_allowed=False)
    }
    exact = array.tolist()
    top = next((row for row in allowed.values() if row.best), None)
    rows = []
    for start in range(n):
        for end in range(start + 1, n + 1):
            total = sum(exact[start:end])
            if (start, end) in allowed:
                row = allowed[(start, end)]
                note, ok, best = row.note, True, row.best
            else:
                note, ok, best = _why_not_allowed(array, start, end, limit, splits), False, False
                if top is not None and nearly_equal(top.value, total):
                    note += f"; as much as the best ({top.label})"
                elif top is not None:
                    difference = top.value - total
                    compared = "less than" if difference > 0 else "more than"
                    note += f"; {num(abs(difference))} {compared} the best ({top.label})"
            if (start, end) == (0, n):
                note = f"the whole list; {note}" if note != "best" else "the whole list, and the best"
            rows.append(CandidateSegment(start, end, total, ok, best, note))
    return rows


def _why_not_allowed(values: np.ndarray, start: int, end: int, limit: int, splits: Sequence[int]) -> str:
    reasons = []
    if values[start] < 0 and values[end - 1] < 0 and end - start > 1:
        reasons.append(f"starts and ends on negative chunks ({num(values[start])}, {num(values[end - 1])})")
    elif values[start] < 0:
        one = end - start == 1
        reasons.append(f"{'is' if one else 'starts on'} a negative chunk ({num(values[start])})")
    elif values[end - 1] < 0:
        reasons.append(f"ends on a negative chunk ({num(values[end - 1])})")
    crossed = splits_crossed(splits, start, end)
    if crossed:
        reasons.append(f"crosses the document split at chunk {crossed[0]}")
    if end - start > limit:
        reasons.append(f"{end - start} chunks, more than the max of {limit} per segment")
    return "not a candidate: " + "; ".join(reasons)


def _compare_with_best(
    values: np.ndarray, start: int, end: int, total: float, best: tuple[int, int], best_value: float
) -> str:
    best_start, best_end = best
    mine, theirs = set(range(start, end)), set(range(best_start, best_end))
    difference = best_value - total
    if nearly_equal(total, best_value):
        return (
            f"ties with the best ({chunk_range(best_start, best_end)}); ties go to the earliest start, "
            "then the shortest segment"
        )
    if mine < theirs:
        dropped = sorted(theirs - mine)
        note = f"dropping {chunk_set(dropped)} loses {num(difference)}"
        gap = _gap_note(values, range(best_start, start), range(end, best_end))
        return f"{note}: {gap}" if gap else note
    if mine > theirs:
        added = sorted(mine - theirs)
        negatives = [i for i in added if values[i] < 0]
        positives = [num(values[i]) for i in added if values[i] >= 0]
        note = f"adding {chunk_set(added)} costs {num(difference)}"
        if negatives:
            verb = "outweighs" if len(negatives) == 1 else "outweigh"
            note += f": {valued(values, negatives)} {verb} {join_and(positives)}"
        return note
    if not mine & theirs:
        return f"a separate run, {num(difference)} less than the best ({chunk_range(best_start, best_end)})"
    return f"overlaps the best ({chunk_range(best_start, best_end)}) but is worth {num(difference)} less"


def _gap_note(values: np.ndarray, left: range, right: range) -> str:
    """``"chunk 4 (-0.1) is a gap worth crossing to reach 0.6 and 0.3"`` for the chunks a
    shorter segment leaves out on its ``left`` and ``right``; empty if they hold no negative chunk.

    A negative chunk left out is always inside the longer segment (its ends are non-negative),
    so it is a gap: what it is worth crossing for are the chunks beyond it, away from the shorter one.
    """
    negatives, reached = [], []
    left_negatives = [i for i in left if values[i] < 0]
    if left_negatives:
        negatives += left_negatives
        reached += [i for i in left if i < left_negatives[-1] and values[i] >= 0]
    right_negatives = [i for i in right if values[i] < 0]
    if right_negatives:
        negatives += right_negatives
        reached += [i for i in right if i > right_negatives[0] and values[i] >= 0]
    if not negatives:
        return ""
    verb = "is a gap" if len(negatives) == 1 else "are gaps"
    return f"{valued(values, negatives)} {verb} worth crossing to reach {join_and([num(values[i]) for i in reached])}"


def _negative_end_rows(
    values: np.ndarray, exact: list[float], allowed: dict[tuple[int, int], float], bounds: list[int]
) -> list[CandidateSegment]:
    """Allowed segments widened by one negative chunk at either or both ends."""
    rows = []
    document_of = np.searchsorted(bounds, np.arange(len(values)), side="right")
    seen: set[tuple[int, int]] = set()
    for start, end in allowed:
        for widen_left, widen_right in ((1, 0), (0, 1), (1, 1)):
            new_start, new_end = start - widen_left, end + widen_right
            if new_start < 0 or new_end > len(values) or (new_start, new_end) in seen:
                continue
            if document_of[new_start] != document_of[new_end - 1]:
                continue
            if (widen_left and values[new_start] >= 0) or (widen_right and values[new_end - 1] >= 0):
                continue
            seen.add((new_start, new_end))
            if widen_left and widen_right:
                note = (
                    f"starts and ends on negative chunks ({num(values[new_start])}, {num(values[new_end - 1])}): "
                    f"adding chunks {new_start} and {new_end - 1} subtracts"
                )
            elif widen_left:
                note = f"starts on a negative chunk ({num(values[new_start])}): adding chunk {new_start} subtracts"
            else:
                note = f"ends on a negative chunk ({num(values[new_end - 1])}): adding chunk {new_end - 1} subtracts"
            rows.append(CandidateSegment(new_start, new_end, sum(exact[new_start:new_end]), False, False, note))
    return rows


# --------------------------------------------------------------------------- check an answer


@dataclass(frozen=True)
class AnswerCheck:
    """Whether a student's answer is what the search picks, and why (or why not)."""

    correct: bool
    message: str


def check_answer(
    values: Sequence[float] | np.ndarray,
    expected: tuple[int, int] | Sequence[tuple[int, int]] | None,
    *,
    max_length: int,
    overall_max_length: int,
    minimum_value: float,
    document_splits: Sequence[int] = (),
) -> AnswerCheck:
    """Check a student's answer against the search, with the reason a teacher would give.

    Args:
        values: chunk values of one query.
        expected: the first pick as an inclusive chunk range, as a student writes it
            (``(2, 3)`` = chunks 2 and 3); or a list of such ranges for all picks (any order);
            or ``None`` for "no segment is returned".
        max_length, overall_max_length, minimum_value, document_splits: the search's limits.
    """
    array = single_query(values)
    result = find_best_segments(
        array.tolist(),
        max_length=max_length,
        overall_max_length=overall_max_length,
        minimum_value=minimum_value,
        document_splits=document_splits,
    )
    picks = list(result)
    n = len(array)
    if expected is None:
        if not picks:
            return AnswerCheck(True, f"Right: nothing is returned, because {_why_nothing(result, minimum_value)}.")
        first = picks[0]
        return AnswerCheck(
            False,
            f"Not quite: {is_are(first.start, first.end)} worth {num(first.score)}, at least the minimum "
            f"{num(minimum_value)}, so the search returns it.",
        )
    pairs = [expected] if _is_pair(expected) else list(expected)
    for pair in pairs:
        if not _is_pair(pair) or not 0 <= pair[0] <= pair[1] < n:
            return AnswerCheck(
                False, f"Write a segment as (first chunk, last chunk) with 0 <= first <= last <= {n - 1}; got {pair!r}."
            )
    if not picks:
        return AnswerCheck(False, f"Not quite: no segment is returned, because {_why_nothing(result, minimum_value)}.")
    if _is_pair(expected):
        return _check_first(
            array,
            (expected[0], expected[1] + 1),
            picks,
            max_length,
            overall_max_length,
            split_points(document_splits, n),
        )
    return _check_all(pairs, picks, result, minimum_value)


def check_typed_answer(
    values: Sequence[float] | np.ndarray,
    text: str,
    *,
    max_length: int,
    overall_max_length: int,
    minimum_value: float,
    document_splits: Sequence[int] = (),
) -> AnswerCheck:
    """:func:`check_answer` for an answer as typed: one segment checks the first pick, several check
    every pick, "none" checks that nothing is returned.

    Raises:
        AnswerError: the text is not segments (see :mod:`rse_core.teaching.answers`) or names a
            chunk beyond the values.
    """
    array = single_query(values)
    pairs = parse_segments(text, chunk_count=len(array))
    expected = None if not pairs else pairs[0] if len(pairs) == 1 else list(pairs)
    return check_answer(
        array,
        expected,
        max_length=max_length,
        overall_max_length=overall_max_length,
        minimum_value=minimum_value,
        document_splits=document_splits,
    )


def _is_pair(item: object) -> bool:
    return (
        isinstance(item, (tuple, list))
        and len(item) == 2
        and all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in item)
    )


def _why_nothing(result, minimum_value: float) -> str:
    best = result.steps[-1].best if result.steps else None
    if best is None:
        return "every chunk's value is negative, so no segment can start anywhere"
    return (
        f"the best segment, {chunk_range(best.start, best.end)}, is worth only {num(best.score)}, "
        f"less than the minimum segment value {num(minimum_value)}"
    )


def _check_first(array, answer, picks, max_length, overall, splits) -> AnswerCheck:
    """A one-segment answer against the search's first pick: right, against a rule, or short of it."""
    start, end = answer
    first = picks[0]
    best_text = f"The best is {chunk_range(first.start, first.end)} ({num(first.score)})."
    if (start, end) == (first.start, first.end):
        message = f"Right: {is_are(start, end)} worth {num(first.score)}, more than any other allowed segment."
        gaps = [i for i in range(start, end) if array[i] < 0]
        if gaps:
            gap = "is a gap" if len(gaps) == 1 else "are gaps"
            message += f" {valued(array, gaps).capitalize()} {gap} worth crossing."
        return AnswerCheck(True, message)
    reasons = _rules_broken(array, start, end, max_length, overall, splits)
    if reasons:
        return AnswerCheck(False, "Not quite: " + "; ".join(reasons) + ". " + best_text)
    return _short_of_the_best(array, start, end, picks)


def _rules_broken(array, start: int, end: int, max_length: int, overall: int, splits) -> list[str]:
    """Why chunks ``start:end`` cannot be a segment at all (empty: they can)."""
    answer_text = chunk_range(start, end)
    reasons = []
    if end - start == 1 and array[start] < 0:
        reasons.append(
            f"{answer_text} alone is negative ({num(array[start])}); a segment starts and ends on a non-negative chunk"
        )
    elif array[start] < 0 and array[end - 1] < 0:
        reasons.append(
            f"{answer_text} start on chunk {start} ({num(array[start])}) and end on chunk {end - 1} "
            f"({num(array[end - 1])}), both negative, so including them only subtracts"
        )
    elif array[start] < 0:
        reasons.append(
            f"{answer_text} start on chunk {start}, whose value is negative "
            f"({num(array[start])}), so starting there only subtracts"
        )
    elif array[end - 1] < 0:
        reasons.append(
            f"{answer_text} end on chunk {end - 1}, whose value is negative ({num(array[end - 1])}), "
            "so extending to it only subtracts"
        )
    crossed = splits_crossed(splits, start, end)
    if crossed:
        reasons.append(f"{answer_text} cross the document split at chunk {crossed[0]}; a segment stays in one document")
    if end - start > max_length:
        reasons.append(f"{answer_text} are {end - start} chunks long, more than the max of {max_length} per segment")
    elif end - start > overall:
        reasons.append(f"{answer_text} are {end - start} chunks long, more than the overall budget of {overall}")
    return reasons


def _short_of_the_best(array, start: int, end: int, picks) -> AnswerCheck:
    """An allowed segment that is not the first pick: what the first pick has that it lacks."""
    first = picks[0]
    total = sum(array[start:end].tolist())
    later = [i for i, pick in enumerate(picks[1:], 2) if (pick.start, pick.end) == (start, end)]
    worth = f"{is_are(start, end)} worth {num(total)}"
    best_worth = f"{is_are(first.start, first.end)} worth {num(first.score)}"
    if later:
        return AnswerCheck(
            False,
            f"Not quite: {worth} and picked too, but as S{later[0]}: {best_worth}, so the search picks that first.",
        )
    if nearly_equal(total, first.score):
        return AnswerCheck(
            False,
            f"Not quite: {worth} too, but ties go to the earliest start, then the shortest segment: "
            f"the search picks {chunk_range(first.start, first.end)}.",
        )
    mine, best = set(range(start, end)), set(range(first.start, first.end))
    if mine < best:
        added = sorted(best - mine)
        why = _gap_note(array, range(first.start, start), range(end, first.end))
        if not why:
            why = f"adding {chunk_set(added)} ({join_and([num(array[i]) for i in added])}) only adds"
        return AnswerCheck(False, f"Not quite: {worth}, but {best_worth}: {why}.")
    if mine > best:
        extra = sorted(mine - best)
        negatives = [i for i in extra if array[i] < 0]
        positives = [num(array[i]) for i in extra if array[i] >= 0]
        cost = "costs" if len(negatives) == 1 else "cost"
        why = f"{valued(array, negatives)} {cost} more than {join_and(positives)} give back"
        verb = "are" if len(first) > 1 else "is"
        alone = f"{chunk_range(first.start, first.end)} alone {verb} worth {num(first.score)}"
        return AnswerCheck(False, f"Not quite: {worth}, but {alone}: {why}.")
    return AnswerCheck(False, f"Not quite: {worth}, but {best_worth}.")


def _check_all(pairs, picks, result, minimum_value) -> AnswerCheck:
    answer = [(first, last + 1) for first, last in pairs]
    actual = [(pick.start, pick.end) for pick in picks]
    order = ", then ".join(f"{chunk_range(s, e)} ({num(p.score)})" for (s, e), p in zip(actual, picks, strict=True))
    stop = _why_stopped(result, minimum_value)
    if sorted(answer) == sorted(actual):
        note = "" if answer == actual else " Note the order: the best remaining segment is always picked first."
        return AnswerCheck(True, f"Right: the search picks {order}, then stops because {stop}.{note}")
    right = [chunk_range(*a) for a in answer if a in actual]
    wrong = [chunk_range(*a) for a in answer if a not in actual]
    missing = [f"{chunk_range(*a)}" for a in actual if a not in answer]
    parts = []
    if right:
        parts.append(f"right: {join_and(right)}")
    if wrong:
        parts.append(f"not picked: {join_and(wrong)}")
    if missing:
        parts.append(f"missing: {join_and(missing)}")
    return AnswerCheck(False, f"Not quite: {'; '.join(parts)}. The search picks {order}, then stops because {stop}.")


def _why_stopped(result, minimum_value: float) -> str:
    if result.stop_reason is StopReason.BELOW_MINIMUM:
        best = result.steps[-1].best
        return (
            f"the best remaining segment, {chunk_range(best.start, best.end)}, is worth {num(best.score)} "
            f"< minimum {num(minimum_value)}"
        )
    return result.stop_reason.explanation


# --------------------------------------------------------------------------- lookup values for a hand computation


LOOKUP_DECIMALS = 3
"""Decimals of the printed lookup values: enough that a value computed from them rounds, to two
decimals, to the value the app computes (tests/teaching check it for every exercise that uses them)."""


@dataclass(frozen=True)
class DecayRow:
    """One line of the decay table: a rank and ``exp(-rank / decay_rate)``."""

    rank: int
    decay: float


@dataclass(frozen=True)
class BoardLookups:
    """What a class needs to turn the board's scores into values with pencil and paper.

    Attributes:
        beta: ``beta.cdf(score, a, b)`` for every distinct score on the board, in increasing score.
        decay: ``exp(-rank / decay_rate)`` for every rank the board has (0 to one less than its chunks).
        params: the beta shape, decay rate and penalty they were computed with.
    """

    beta: tuple[BetaRow, ...]
    decay: tuple[DecayRow, ...]
    params: RSEParams

    def beta_cells(self) -> list[tuple[str, str]]:
        """``(score, beta.cdf)`` as printed: the score as written on the board, the CDF to 3 decimals."""
        return [(num(row.score), f"{row.transformed:.{LOOKUP_DECIMALS}f}") for row in self.beta]

    def decay_cells(self) -> list[tuple[str, str]]:
        """``(rank, exp(-rank / decay))`` as printed, to 3 decimals."""
        return [(str(row.rank), f"{row.decay:.{LOOKUP_DECIMALS}f}") for row in self.decay]

    @property
    def shape_text(self) -> str:
        return f"beta a = {num(self.params.beta_a)}, b = {num(self.params.beta_b)}"

    @property
    def decay_text(self) -> str:
        return f"exp(-rank / {self.params.decay_rate:g})"


def board_lookups(scores: Sequence[float], params: RSEParams) -> BoardLookups:
    """The beta CDF of each of ``scores`` and the decay of each rank, so every board can be done by hand.

    The generic beta table (:data:`~rse_core.teaching.score_steps.BETA_LOOKUP_POINTS`) misses most
    of a board's scores, and nobody computes ``exp`` in their head: both columns come from the
    functions the pipeline runs (:func:`~rse_core.teaching.score_steps.beta_lookup`,
    :func:`~rse_core.values.rank_decay`), never typed.
    """
    distinct = sorted({float(score) for score in scores})
    ranks = np.arange(len(scores))
    decays = rank_decay(ranks, params.decay_rate)
    return BoardLookups(
        beta=tuple(beta_lookup(params, distinct)),
        decay=tuple(DecayRow(int(rank), float(decay)) for rank, decay in zip(ranks, decays, strict=True)),
        params=params,
    )
