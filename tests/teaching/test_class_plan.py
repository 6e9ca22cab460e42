"""The class plan's timing and the sources of the Lesson's quoted figures, without the app."""

from __future__ import annotations

from rse_core.teaching.class_plan import CLASS_MINUTES, CLASS_PLAN, start_minutes, total_minutes
from rse_core.teaching.quotes import BONUS_CHUNKS, CEILING, FINANCEBENCH, KITE, NIKE_CASE, QUOTES, Source


def test_the_blocks_fill_one_period_back_to_back():
    assert total_minutes() == CLASS_MINUTES == 90
    starts = start_minutes()
    assert starts[0] == 0
    assert all(b == a + block.minutes for a, b, block in zip(starts, starts[1:], CLASS_PLAN, strict=False))
    assert len({block.title for block in CLASS_PLAN}) == len(CLASS_PLAN)


def test_each_quoted_figure_names_its_real_source():
    assert NIKE_CASE.source is Source.LESSON and CEILING.source is Source.LESSON
    assert FINANCEBENCH.source is Source.COURSE_TEXT and BONUS_CHUNKS.source is Source.COURSE_TEXT  # not the lesson's
    assert KITE.source is Source.AUTHORS
    # Every quote the page shows is one of those checked above: a new one needs its source checked here.
    assert set(QUOTES) == {NIKE_CASE, CEILING, FINANCEBENCH, BONUS_CHUNKS, KITE}
    assert all(quote.label.startswith("(") for quote in QUOTES)
