"""The Demo at 1280x720 in a real browser: a menu and an exit on every step, each step's chart or
page in the first screen (the compact layout switches on by itself at this height), the browser's
Back leaves it in one press, and its exit brings back Explore with the sidebar and the user's work.

Screenshots (the first screen, as a projector shows it) in tests/artifacts/: demo_720_step1 ..
demo_720_step5, demo_720_exit.
"""

from __future__ import annotations

import pytest

from .conftest import ARTIFACTS, wait_for_app, wait_for_value_chart

pytestmark = pytest.mark.browser

TIMEOUT = 180_000
WIDTH, HEIGHT = 1280, 720
MAIN = "[data-testid='stMain']"
SIDEBAR = "[data-testid='stSidebar']"
QUESTION = "How long is the probation period for new hires?"
# What each step is about, which must be in the first screen: the chart, the pages, the answers.
STEP_FOCUS = {
    2: f"{MAIN} .js-plotly-plot",
    3: f"{MAIN} [data-testid='stImage'] img",
    4: f"{MAIN} .js-plotly-plot",
}


def settle(page) -> None:
    """The rerun has ended: no status widget and nothing left faded from the last run."""
    page.wait_for_timeout(500)
    wait_for_app(page, TIMEOUT)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=TIMEOUT)


def open_explore(page, url: str) -> None:
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.goto(f"{url}/?docs=employee_handbook&q={QUESTION.replace(' ', '+')}&scorer=minilm")
    wait_for_value_chart(page, TIMEOUT)
    settle(page)


def open_demo_from_the_sidebar(page) -> None:
    page.locator(f"{SIDEBAR} [data-testid='stSidebarNav'] a", has_text="Demo").click()
    page.get_by_text("step 1 of 5").wait_for(timeout=TIMEOUT)
    settle(page)


def in_first_screen(page, selector: str) -> dict:
    """The bounding box of the first element matching ``selector``, asserted inside the viewport."""
    element = page.locator(selector).first
    element.wait_for(timeout=TIMEOUT)
    box = element.bounding_box()
    assert box is not None, selector
    assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT + 1, (selector, box)
    return box


def test_every_demo_step_has_an_exit_and_its_chart_in_the_first_screen_at_720(page, app_url):
    open_explore(page, app_url)
    open_demo_from_the_sidebar(page)
    assert page.locator(SIDEBAR).is_hidden()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for step in range(1, 6):
        if step > 1:
            page.get_by_role("button", name="Next").click()
            page.get_by_text(f"step {step} of 5").wait_for(timeout=TIMEOUT)
            settle(page)
        page.screenshot(path=str(ARTIFACTS / f"demo_720_step{step}.png"))
        in_first_screen(page, "button:has-text('Exit demo')")
        in_first_screen(page, "button:has-text('Menu')")
        if step in STEP_FOCUS:
            in_first_screen(page, STEP_FOCUS[step])
        if step == 5:  # the question and what each context holds, above the answers
            text = page.locator(MAIN).inner_text()
            in_first_screen(page, ".rse-demo-question")
            assert "RSE (" in text and "characters)" in text
        assert page.locator("[data-testid='stException']").count() == 0

    # The exit: Explore again, with the sidebar and the same document and question.
    page.get_by_role("button", name="Exit demo").click()
    wait_for_value_chart(page, TIMEOUT)
    settle(page)
    assert page.locator(SIDEBAR).is_visible()
    assert page.locator(f"{SIDEBAR} textarea").first.input_value() == QUESTION
    assert "employee" in page.locator(f"{SIDEBAR} [data-testid='stMultiSelect']").first.inner_text().lower()
    page.wait_for_function("() => window.location.search.includes('docs=employee_handbook')", timeout=TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / "demo_720_exit.png"))


def test_back_leaves_the_demo_in_one_press(page, app_url):
    open_explore(page, app_url)
    explore = page.url
    open_demo_from_the_sidebar(page)
    page.get_by_role("button", name="Next").click()  # a step moved: still no new history entry
    page.get_by_text("step 2 of 5").wait_for(timeout=TIMEOUT)
    settle(page)
    page.go_back()
    wait_for_value_chart(page, TIMEOUT)
    settle(page)
    assert page.url == explore
    assert page.locator(SIDEBAR).is_visible()
    assert page.get_by_text("step 2 of 5").count() == 0
