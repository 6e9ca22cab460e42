"""The classroom examples: small value lists whose answers a class works out by hand.

Each example fixes the search's limits so that it makes one point (a gap worth crossing, a
limit that binds, nothing clearing the minimum). Chunks are numbered from 0, as everywhere in
this project.
"""

from __future__ import annotations

from dataclasses import dataclass

from rse_core.numerals import num
from rse_core.params import RSEParams
from rse_core.search.optimal import GreedyVsOptimal, compare_with_greedy
from rse_core.teaching.course import COURSE_PARAMS, DEFAULT_PARAMS, search_limits
from rse_core.teaching.score_steps import ValueRow, value_rows
from rse_core.teaching.search_steps import StepExplanation, explain_search


@dataclass(frozen=True)
class Example:
    """A classroom example: values, the limits that make its point, and where it comes from.

    Attributes:
        values: chunk values of one query, in document order.
        max_length, overall_max_length, minimum_value: the search's limits (the course preset's
            unless the point needs another).
        point: what the example shows, with the answer.
        source: where the numbers come from, when a class should know (e.g. another numbering).
    """

    values: tuple[float, ...]
    max_length: int = COURSE_PARAMS.max_length
    overall_max_length: int = COURSE_PARAMS.overall_max_length
    minimum_value: float = COURSE_PARAMS.minimum_value
    point: str = ""
    source: str = ""

    @property
    def text(self) -> str:
        """The values as a teacher writes them: ``"-0.2, -0.2, 0.4, 0.8, -0.1"``."""
        return ", ".join(num(value) for value in self.values)

    @property
    def limits(self) -> dict[str, float]:
        return search_limits(self)

    def greedy_vs_optimal(self) -> GreedyVsOptimal:
        """The greedy search's answer and the optimal one for these values and limits."""
        return compare_with_greedy(list(self.values), **self.limits)


EXAMPLES: dict[str, Example] = {
    "Course example 1: one cluster": Example(
        (-0.2, -0.2, 0.4, 0.8, -0.1),
        point="The best segment starts and ends on a positive chunk: chunks 2-3, worth 1.2.",
    ),
    "Course example 2: a gap worth crossing": Example(
        (-0.2, -0.2, 0.4, 0.8, -0.1, 0.6, 0.3, -0.2, -0.2),
        point="Chunk 4 is negative, but the chunks after it pay for it: chunks 2-6, worth 2.0.",
        source=(
            "These values come from another course text, which numbers chunks from 1 (its chunks 3-7); "
            "here chunks are numbered from 0, as everywhere in this app."
        ),
    ),
    "Two clusters: two segments": Example(
        (0.5, 0.7, -0.3, -0.4, -0.5, -0.2, 0.6, 0.4, 0.3, -0.1),
        point="The gap between the clusters costs more than it joins: S1 = chunks 6-8, then S2 = chunks 0-1.",
    ),
    "Max length binds": Example(
        (0.4, 0.5, 0.6, 0.5, 0.4, -0.5, 0.2),
        max_length=3,
        point="With at most 3 chunks per segment the run 0-4 (2.4) is cut: S1 = chunks 1-3 (1.6).",
    ),
    "Overall budget binds": Example(
        (0.6, 0.7, 0.5, -0.4, 0.3, 0.9, 0.8, -0.2),
        overall_max_length=4,
        point=(
            "4 chunks in all: the greedy search takes S1 = chunks 4-6 (2.0), which uses 3, so S2 can only be "
            "one chunk: chunk 1 (0.7), 2.7 in all. That second pick is worth exactly the minimum 0.7: it is kept "
            "under dsRAG's rule (value >= minimum); under the notes' \"greater than\" (notebook 003's strict >) the "
            "search stops after S1 at 2.0. The greedy search is not optimal here: chunks 0-1 (1.3) and 5-6 (1.7) "
            "fit the same budget and are worth 3.0."
        ),
    ),
    "Nothing clears the minimum": Example(
        (0.3, -0.2, 0.2, 0.1, -0.3, 0.4),
        point="The best segment, chunks 0-5, is worth 0.5: below the minimum of 0.7, so nothing is returned.",
    ),
}
"""The classroom examples by name, in the order a class meets them."""

DEFAULT_EXAMPLE = next(iter(EXAMPLES))


@dataclass(frozen=True)
class ScoresExample:
    """Raw reranker-like scores a class turns into values by hand, then searches.

    The parameters are the course's (beta 0.4 / 0.4, decay 30, penalty 0.2; limits 20 / 30 / 0.7).
    """

    scores: tuple[float, ...]
    params: RSEParams = COURSE_PARAMS
    point: str = ""

    def rows(self) -> list[ValueRow]:
        return value_rows(self.scores, self.params)

    @property
    def limits(self) -> dict[str, float]:
        return search_limits(self.params)


SCORES_EXAMPLE = ScoresExample(
    (0.02, 0.06, 0.85, 0.97, 0.03, 0.9, 0.6, 0.04, 0.01),
    point=(
        "Four chunks score high; chunk 4 (0.03) sits between them. After beta, decay and penalty its value "
        "is -0.08, and chunks 2-6 (worth 1.88) keep it: a gap worth crossing, found from the scores."
    ),
)
"""A raw-scores example: a gapped cluster found from the scores up."""


@dataclass(frozen=True)
class QueriesExample:
    """Two (or more) short value lists that take turns, as several queries do in the search."""

    queries: tuple[tuple[float, ...], ...]
    max_length: int = DEFAULT_PARAMS.max_length
    overall_max_length: int = DEFAULT_PARAMS.overall_max_length
    minimum_value: float = DEFAULT_PARAMS.minimum_value
    point: str = ""

    @property
    def limits(self) -> dict[str, float]:
        return search_limits(self)

    def steps(self) -> list[StepExplanation]:
        """Every turn of the round-robin search, then why it stopped."""
        return explain_search([list(values) for values in self.queries], **self.limits)


ROUND_ROBIN_EXAMPLE = QueriesExample(
    (
        (0.5, 0.6, -0.3, -0.2, 0.1, -0.4, 0.3, 0.4),
        (-0.3, 0.2, -0.1, 0.7, 0.6, -0.2, -0.5, 0.2),
    ),
    point=(
        "Query 1 picks first: chunks 0-1 (1.1). Query 2's best would be chunks 1-4 (1.4), but chunk 1 is "
        "taken, so it picks chunks 3-4 (1.3). Query 1 then takes chunks 6-7 (0.7); no non-negative chunk is "
        "left for either query, so the search stops."
    ),
)
"""Two queries taking turns (minimum 0.5): one query's pick changes the other's."""
