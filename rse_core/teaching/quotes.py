"""Where each quoted figure of the Lesson page comes from, so the page never credits one source
with another's number.

Why: the class repeats what the slide says it is quoting. A figure from another course text
attributed to the lesson (the FinanceBench 83% vs 19%, the "bonus chunks") sends a student to
look for it in the wrong place; the authors' own benchmark quoted as ours would be worse.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Source(StrEnum):
    """Who a figure belongs to, as the page says it."""

    LESSON = "quoted from the lesson"
    COURSE_TEXT = "from another course text, not the lesson"
    AUTHORS = "reported by the RSE authors, as the lesson quotes them"
    MEASURED = "measured by this app now"


@dataclass(frozen=True)
class Quote:
    """A quoted figure and its source; ``label`` is what the page writes after it."""

    what: str
    source: Source

    @property
    def label(self) -> str:
        return f"({self.source.value})"


NIKE_CASE = Quote(
    "Nike 10-K: chunks 320-339 by position, 7 relevant, statements 323-333, first segment 323-336", Source.LESSON
)
BONUS_CHUNKS = Quote("the chunks after the statements as 'bonus chunks'", Source.COURSE_TEXT)
FINANCEBENCH = Quote("FinanceBench 83% vs 19%, headers and RSE together", Source.COURSE_TEXT)
KITE = Quote("KITE 4.72 with top-k vs 6.73 with RSE", Source.AUTHORS)
CEILING = Quote("30 chunks overall × 800 characters", Source.LESSON)

QUOTES: tuple[Quote, ...] = (NIKE_CASE, BONUS_CHUNKS, FINANCEBENCH, KITE, CEILING)
"""Every quoted figure the Lesson page shows (a test checks each one is labelled with its source)."""
