"""A 90-minute class taught from the app alone: the lesson's blocks, in order, with their minutes.

Why a list here, not in a page: the order and timing of a class are teaching content (which block
comes before which, how long the class predicts before the reveal), testable without a browser.
Each block names the page it opens (a URL path of the app's catalog) and what that page shows first
(a Lesson section, a Worked example mode, a classroom example); the app stages the page in presenter
mode, with every answer hidden until the class has predicted it.
"""

from __future__ import annotations

from dataclasses import dataclass

CLASS_MINUTES = 90
"""One class period."""


@dataclass(frozen=True)
class Block:
    """One block of the class.

    Attributes:
        title: what the teacher announces.
        minutes: its share of the period.
        page: the URL path of the page it opens.
        view: what the page shows first (a Lesson section or a Worked example mode), or "".
        example: the classroom example a Worked example block opens on, or "".
        activity: what the class does, prediction first.
    """

    title: str
    minutes: int
    page: str
    activity: str
    view: str = ""
    example: str = ""


ONE_CLUSTER = "Course example 1: one cluster"
GAP_WORTH_CROSSING = "Course example 2: a gap worth crossing"

CLASS_PLAN: tuple[Block, ...] = (
    Block(
        "The lesson's case: a gapped cluster",
        10,
        "lesson",
        "Read the Nike figures; predict which tr-10 chunks RSE keeps although they score below zero.",
        view="cluster",
    ),
    Block(
        "One cluster, by hand",
        7,
        "worked-example",
        "Predict the first pick from the bars, then step the turns.",
        view="segments",
        example=ONE_CLUSTER,
    ),
    Block(
        "Table 1: every run and its sum",
        7,
        "worked-example",
        "Fill in each run's sum and say which run is best; then reveal.",
        view="runs",
        example=ONE_CLUSTER,
    ),
    Block(
        "Board: from scores to values",
        10,
        "worked-example",
        "Fill in beta, rank, decay and value column by column; reveal one column at a time.",
        view="board",
    ),
    Block(
        "A gap worth crossing",
        6,
        "worked-example",
        "Predict whether the search crosses the negative chunk 4.",
        view="segments",
        example=GAP_WORTH_CROSSING,
    ),
    Block(
        "What the search maximises",
        6,
        "lesson",
        "Greedy turns vs the exact maximum total: which is larger, and why?",
        view="objective",
    ),
    Block(
        "The search, turn by turn, on tr-10",
        8,
        "lesson",
        "Predict each pick and the limit that binds it before the next turn.",
        view="steps",
    ),
    Block(
        "Round-robin: two queries",
        7,
        "worked-example",
        "Predict query 2's pick once query 1 has taken its chunks.",
        view="round_robin",
    ),
    Block(
        "Transform lab: how scores become values",
        5,
        "transform-lab",
        "Predict how the beta transform moves a score near 0 and near 1.",
    ),
    Block(
        "RSE vs top-k on one query",
        6,
        "compare",
        "Predict which answer chunks top-k drops that RSE keeps.",
    ),
    Block(
        "The headers confound",
        5,
        "lesson",
        "Two changes tested at once: which one gets the credit?",
        view="headers",
    ),
    Block(
        "Reported vs measured",
        5,
        "lesson",
        "The authors' claim beside our measurement: what may we say?",
        view="claims",
    ),
    Block(
        "The context ceiling",
        3,
        "lesson",
        "Compute max chunks overall × chunk size before it is shown.",
        view="ceiling",
    ),
    Block(
        "Exercises",
        5,
        "worked-example",
        "Solve one exercise alone, then check it.",
        view="exercises",
    ),
)


def start_minutes(plan: tuple[Block, ...] = CLASS_PLAN) -> list[int]:
    """The minute each block starts at (0 for the first): what the teacher's clock should read."""
    starts, clock = [], 0
    for block in plan:
        starts.append(clock)
        clock += block.minutes
    return starts


def total_minutes(plan: tuple[Block, ...] = CLASS_PLAN) -> int:
    return sum(block.minutes for block in plan)
