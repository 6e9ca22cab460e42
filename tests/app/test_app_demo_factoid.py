"""The Demo's factoid story (AppTest): it names the scorer and penalty of its case, and its compare
step says why RSE sends one chunk on its own, with no claim that the run does not back."""

from __future__ import annotations

from rse_core.teaching.demo_stories import STEPS
from tests.support.apptest_support import html_text, new_app, no_problems, open_page


def test_the_factoid_story_names_its_case_and_explains_the_single_chunk():
    at = open_page(new_app().run(), "demo")
    at.session_state["demo_story"] = "factoid"
    at.session_state["demo_step"] = 0
    at.run()
    no_problems(at)
    page = html_text(at)
    assert "<b>bm25</b>scorer, penalty 0.25" in page and "RSE grows the segment instead" in page
    assert "acts like top-k" not in page
    at.session_state["demo_step"] = STEPS.index("compare")
    at.run()
    no_problems(at)
    page = html_text(at)
    assert "alone, top-k&#x27;s first (100% of the answer)" in page
