"""The three stories of the guided demo, and the one sentence of narration for each step.

Every number in a sentence is computed from the live result and the golden span, never written
down: change a parameter or the scorer and the narration follows (and still tells the truth,
including when a story does not go the way it usually does).
"""

from __future__ import annotations

from dataclasses import dataclass

from rse_core.evaluation.metrics import score_result
from rse_core.pipeline import ExtractionResult

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


STORIES = (
    Story(
        "factoid",
        "A factoid question: RSE acts like top-k",
        "employee_handbook",
        "hb-02",
        "When one sentence answers, RSE sends about what top-k sends.",
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
    )


def _percent(value: float) -> str:
    return f"{value:.0%}"


def _pages(facts: StoryFacts) -> str:
    if facts.first_page == facts.last_page:
        return f"page {facts.first_page}"
    return f"pages {facts.first_page} to {facts.last_page}"


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
