"""The three stories of the guided demo, and the one sentence of narration for each step.

Every number in a sentence is computed from the live result and the golden span, never written
down: change a parameter or the scorer and the narration follows (and still tells the truth,
including when a story does not go the way it usually does).

Each story carries its scorer and parameters. The factoid story's case was found by running every
golden query of the bundled samples (bm25 and minilm, penalties 0.1 to 0.5) and keeping those where
RSE sends one chunk alone and that chunk holds the whole answer: handbook hb-05 with bm25 at penalty
0.25 is the one nearest the defaults (with minilm only penalty 0.5 does it; at the defaults minilm
sends hb-02 a 4-chunk segment). tests/teaching/test_demo_factoid.py checks the claim on the real pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rse_core.evaluation.metrics import score_result
from rse_core.numerals import num
from rse_core.params import RSEParams
from rse_core.pipeline import ExtractionResult
from rse_core.scoring.base import ScorerName

STEPS = ("question", "values", "page", "compare", "answers")
STEP_TITLES = {
    "question": "The question",
    "values": "What RSE picks",
    "page": "The segment on the page",
    "compare": "RSE vs top-k",
    "answers": "The answers",
}


@dataclass(frozen=True)
class Story:
    """A sample document, one of its golden queries, and what the story is meant to show."""

    key: str
    title: str
    sample: str
    query_id: str
    point: str
    scorer: str = ScorerName.MINILM.value
    params: RSEParams = field(default_factory=RSEParams)


STORIES = (
    Story(
        "factoid",
        "A factoid question: one chunk, top-k's first",
        "employee_handbook",
        "hb-05",
        "One chunk holds the answer and the chunks beside it are worth less than 0: RSE sends that chunk alone, "
        "as top-k's first. Where its neighbours add up above 0, RSE grows the segment instead.",
        scorer=ScorerName.BM25.value,
        params=RSEParams(irrelevant_chunk_penalty=0.25),
    ),
    Story(
        "broad",
        "A broad question: a whole section",
        "employee_handbook",
        "hb-09",
        "When a whole section answers, RSE sends the section; top-k sends scattered pieces.",
    ),
    Story(
        "gapped",
        "A coolant leak: what top-k drops",
        "tech_report",
        "tr-10",
        "Some chunks in the middle of the answer score low on their own; RSE keeps them, top-k drops them.",
    ),
)
STORY_BY_KEY = {story.key: story for story in STORIES}


@dataclass(frozen=True)
class StoryFacts:
    """The numbers the narration quotes, computed from one result and its gold span."""

    query: str
    segments: int
    rse_chunks: int
    rse_characters: int
    k: int
    top_k_characters: int
    gold_characters: int
    rse_recall: float
    top_k_recall: float
    budget_recall: float
    gap_chunks: int
    gap_chunks_dropped_by_top_k: int
    segment_chunks_dropped_by_top_k: int
    shared_chunks: int
    first_page: int
    last_page: int
    alone: AloneChunk | None = None


@dataclass(frozen=True)
class AloneChunk:
    """RSE's answer when it is one chunk on its own, and why the segment did not grow.

    Attributes:
        chunk: the chunk RSE sends.
        value: its value.
        neighbours: the values of the chunks just before and after it (one at a document's end).
        best_growth: the most any run of chunks beside it adds (left, right or both, within the
            segment's maximum length); below 0, every larger segment is worth less.
        top_first: whether top-k ranks the same chunk first.
    """

    chunk: int
    value: float
    neighbours: tuple[float, ...]
    best_growth: float
    top_first: bool


def alone_chunk(result: ExtractionResult) -> AloneChunk | None:
    """The one chunk RSE sends, when its whole answer is one segment of one chunk; else ``None``."""
    if len(result.segments) != 1 or result.segments[0].end - result.segments[0].start != 1:
        return None
    segment = result.segments[0]
    values = np.asarray(result.values[segment.query].value, dtype=np.float64)
    chunk, reach = segment.start, result.params.max_length - 1
    left = np.cumsum(values[max(0, chunk - reach) : chunk][::-1])
    right = np.cumsum(values[chunk + 1 : chunk + 1 + reach])
    best_left = float(left.max()) if len(left) else -np.inf
    best_right = float(right.max()) if len(right) else -np.inf
    growth = max(best_left, best_right, best_left + best_right)
    return AloneChunk(
        chunk=chunk,
        value=float(values[chunk]),
        neighbours=tuple(float(values[i]) for i in (chunk - 1, chunk + 1) if 0 <= i < len(values)),
        best_growth=growth,
        top_first=bool(result.top_k) and result.top_k[0] == chunk,
    )


def story_facts(result: ExtractionResult, gold: tuple[int, int]) -> StoryFacts:
    """Facts of ``result`` (one document) against the gold character span."""
    scores = score_result(result, gold)
    gaps = [index for segment in result.segments for index in segment.gap_chunks]
    top_k = set(result.top_k)
    pages = [(s.first_page, s.last_page) for s in result.segments]
    return StoryFacts(
        query=result.queries[0],
        segments=len(result.segments),
        rse_chunks=len(result.rse_chunks),
        rse_characters=result.rse_characters,
        k=result.params.top_k,
        top_k_characters=result.characters(result.top_k),
        gold_characters=gold[1] - gold[0],
        rse_recall=scores["rse"].recall,
        top_k_recall=scores["top_k"].recall,
        budget_recall=scores["top_k_equal_budget"].recall,
        gap_chunks=len(gaps),
        gap_chunks_dropped_by_top_k=sum(index not in top_k for index in gaps),
        segment_chunks_dropped_by_top_k=len(set(result.rse_chunks) - top_k),
        shared_chunks=len(top_k & set(result.rse_chunks)),
        first_page=min((p[0] for p in pages), default=0),
        last_page=max((p[1] for p in pages), default=0),
        alone=alone_chunk(result),
    )


def _percent(value: float) -> str:
    return f"{value:.0%}"


def _pages(facts: StoryFacts) -> str:
    if facts.first_page == facts.last_page:
        return f"page {facts.first_page}"
    return f"pages {facts.first_page} to {facts.last_page}"


def _alone_sentence(facts: StoryFacts) -> str:
    """Why RSE sent one chunk alone, with the neighbours' values that decided it (short: one projector line
    or two at 1280x720)."""
    alone = facts.alone
    assert alone is not None
    first = ", top-k's first" if alone.top_first else ""
    neighbours = ", ".join(num(round(v, 2)) for v in alone.neighbours)
    why = (
        f"no run of its neighbours ({neighbours}) adds up above 0"
        if alone.best_growth < 0
        else f"its neighbours ({neighbours}) would pay, but the segment is at its limit"
    )
    return f"RSE sends chunk {alone.chunk} alone{first} ({_percent(facts.rse_recall)} of the answer): {why}."


def narration(step: str, facts: StoryFacts) -> str:
    """One sentence for ``step`` of a story, from the facts alone."""
    if step == "question":
        ends = "" if facts.query.rstrip()[-1:] in "?!." else "."
        return (
            f"We ask: \u201c{facts.query}\u201d{ends} The passage that answers it is "
            f"{facts.gold_characters:,} characters long."
        )
    if step == "values":
        if not facts.segments:
            return "No chunk stands out enough for a segment: RSE sends nothing, and says so."
        return (
            f"RSE keeps {facts.segments} segment{'s' * (facts.segments != 1)} of {facts.rse_chunks} chunk"
            f"{'s' * (facts.rse_chunks != 1)} ({facts.rse_characters:,} characters); top-k keeps the {facts.k} "
            f"best chunks ({facts.top_k_characters:,} characters)."
        )
    if step == "page":
        if not facts.segments:
            return "With no segment there is nothing to mark on the pages."
        return (
            f"On {_pages(facts)} of the document, RSE's characters are highlighted exactly: they cover "
            f"{_percent(facts.rse_recall)} of the answer."
        )
    if step == "compare":
        if facts.alone is not None:
            return _alone_sentence(facts)
        if facts.gap_chunks_dropped_by_top_k:
            gaps = facts.gap_chunks_dropped_by_top_k
            return (
                f"Top-k covers {_percent(facts.top_k_recall)} of the answer and RSE {_percent(facts.rse_recall)}: "
                f"top-k leaves out {facts.segment_chunks_dropped_by_top_k} of the segment's {facts.rse_chunks} "
                f"chunks, {gaps} of them scoring below zero on {'their' if gaps != 1 else 'its'} own, "
                "in the middle of the passage."
            )
        if abs(facts.rse_recall - facts.top_k_recall) < 0.05 and facts.rse_characters <= 2 * facts.top_k_characters:
            return (
                f"Here RSE behaves like top-k: both cover about {_percent(facts.rse_recall)} of the answer and "
                f"share {facts.shared_chunks} chunk{'s' * (facts.shared_chunks != 1)}."
            )
        return (
            f"RSE covers {_percent(facts.rse_recall)} of the answer in one reading order; top-k covers "
            f"{_percent(facts.top_k_recall)}, and top-k with RSE's characters {_percent(facts.budget_recall)}."
        )
    if step == "answers":
        return "The same model and the same prompt answer from each context; only the context differs."
    raise ValueError(f"unknown step {step!r}; one of {', '.join(STEPS)}")
