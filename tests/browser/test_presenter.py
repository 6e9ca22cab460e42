"""Presenter mode at a projector's size (1280x720): Lesson, Worked example and Demo with ``?present=1``.

Each page: no sidebar, the chart's top in the first screen, a way back (menu, exit), and the
keyboard steps (arrow keys, space, PageDown). Screenshots (one viewport each, what the room sees):
tests/artifacts/present_*.png.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ARTIFACTS, PROJECTOR, wait_for_app

pytestmark = pytest.mark.browser

CHART = "[data-testid='stPlotlyChart'] .main-svg"
SIZE = PROJECTOR


def shot(page, name: str) -> Path:
    """What the room sees: one 1280x720 viewport, not the full page."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.wait_for_timeout(700)
    page.screenshot(path=str(path))
    return path


def open_presenting(page, url: str, charts: int = 1) -> None:
    page.goto(url)
    wait_for_app(page)
    page.wait_for_function(f'() => document.querySelectorAll("{CHART}").length >= {charts}', timeout=180_000)
    wait_for_app(page)
    page.wait_for_timeout(800)


def first_chart_top(page) -> float:
    return page.evaluate(
        f'() => Math.min(...[...document.querySelectorAll("{CHART}")].map(s => s.getBoundingClientRect().top))'
    )


def chart_fits(page) -> tuple[float, float]:
    """(top, bottom) of the first chart's plot, in viewport pixels."""
    script = (
        f'() => {{ const r = document.querySelector("{CHART}").getBoundingClientRect(); return [r.top, r.bottom]; }}'
    )
    return tuple(page.evaluate(script))


def assert_presenting(page) -> None:
    assert not page.locator("[data-testid='stSidebar']").is_visible()
    assert page.get_by_role("button", name="Exit presenter").is_visible()
    assert page.get_by_role("button", name="Menu").is_visible()
    assert page.locator("[data-testid='stException']").count() == 0


def press(page, key: str) -> None:
    """A key pressed on the page, as a presenter's clicker sends it (nothing focused: a focused radio
    or slider keeps its own arrow keys)."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)
    page.wait_for_timeout(300)
    wait_for_app(page)


def press_until(page, key: str, text: str, tries: int = 3) -> None:
    """Press ``key`` until ``text`` shows: on a busy machine the first press can come before the
    keyboard listener's frame has loaded, and is lost."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(tries):
        press(page, key)
        try:
            page.get_by_text(text).wait_for(timeout=15_000)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise


def main_text(page) -> str:
    return page.locator("[data-testid='stMain']").inner_text()


def assert_zoomed_with_overview(page) -> None:
    """The step's zoomed chart and the whole-document overview under it, both in the first screen;
    the chart's x axis spans a part of the document, the overview all of it."""
    page.wait_for_function(f'() => document.querySelectorAll("{CHART}").length >= 2', timeout=120_000)
    wait_for_app(page)
    page.wait_for_timeout(500)
    boxes = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"] .js-plotly-plot')]"
        ".map(p => { const r = p.getBoundingClientRect(); return [r.top, r.bottom, r.height]; })"
    )
    (top, bottom, _), (overview_top, overview_bottom, overview_height) = boxes[:2]
    assert 0 < top < 360 and bottom <= overview_top, boxes
    assert overview_bottom <= SIZE["height"] and overview_height <= 120, boxes  # a thin strip, in view
    ranges = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(p => p._fullLayout.xaxis.range)"
    )
    (low, high), (whole_low, whole_high) = ranges[:2]
    assert high - low < (whole_high - whole_low) / 2, ranges


def test_worked_example_presents_and_steps_with_the_keyboard(app_url, projector):
    page = projector
    open_presenting(page, f"{app_url}/worked-example?present=1")
    assert_presenting(page)
    shot(page, "present_worked_turn0")
    top, bottom = chart_fits(page)
    assert 0 < top < 360 and bottom <= SIZE["height"], (top, bottom)
    assert "Turn 0: predict the first pick" in main_text(page)
    assert "S1 = " not in main_text(page)  # predict first: no band yet
    shot(page, "present_worked_turn0")
    press(page, "ArrowRight")
    page.get_by_text("Turn 1: picks chunks 2-3 (1.2) as S1").first.wait_for()
    shot(page, "present_worked_turn1")
    press(page, " ")
    press(page, "PageDown")
    page.get_by_text("Stop:").first.wait_for()
    press(page, "ArrowLeft")  # back one turn: the line no longer says Stop (waited for: the rerun may be late)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.rse-present-line')].some(l => l.innerText.startsWith('Turn '))"
    )


def test_board_reveals_a_column_per_key(app_url, projector):
    page = projector
    open_presenting(page, f"{app_url}/worked-example?present=1")
    page.get_by_text("Board: scores → values").click()
    wait_for_app(page)
    page.get_by_text("Beta lookup").wait_for()
    wait_for_app(page)
    shot(page, "present_board_hidden")
    thumb = page.locator("[data-testid='stMain'] [data-testid='stSliderThumbValue']").first
    assert thumb.inner_text() == "0"
    press(page, "ArrowRight")
    page.wait_for_function(
        "() => document.querySelector(\"[data-testid='stMain'] [data-testid='stSliderThumbValue']\").innerText === '1'"
    )
    assert page.get_by_text("Beta lookup").is_visible()  # still the board: the key went to the page
    shot(page, "present_board_one_column")


def test_lesson_presents_the_gapped_cluster_with_the_nike_case_beside_it(app_url, projector):
    page = projector
    open_presenting(page, f"{app_url}/lesson?present=1")
    assert_presenting(page)
    top, _ = chart_fits(page)
    assert 0 < top < 300, top
    text = main_text(page)
    assert "RSE keeps chunks 86 (-0.2), 87 (-0.2), 90 (-0.18)" in text
    assert "(quoted from the lesson)" in text and "320-339" in text  # the lesson's own case, beside the chart
    card = page.get_by_text("Of the 20 chunks").first.bounding_box()
    assert card["x"] > SIZE["width"] / 2 and card["y"] + card["height"] < SIZE["height"]
    shot(page, "present_lesson_cluster")
    page.get_by_text("3. Search, turn by turn", exact=True).click()
    wait_for_app(page)
    page.get_by_text("Turn 0: predict the first pick").first.wait_for()  # predict first: no pick drawn
    press_until(page, "ArrowRight", "Turn 1: best candidate chunks 85-93")
    shot(page, "present_lesson_steps")
    press(page, "ArrowRight")
    press(page, "End")
    page.get_by_text("The search stops:").first.wait_for()
    page.get_by_text("2. What is maximised", exact=True).click()
    wait_for_app(page)
    page.get_by_text("The maximum total cuts out gap chunk 4").first.wait_for()
    shot(page, "present_lesson_objective")


def test_demo_presents_and_steps_with_the_keyboard_and_exits(app_url, projector):
    page = projector
    open_presenting(page, f"{app_url}/demo?present=1", charts=0)
    page.get_by_text("step 1 of 5").wait_for()
    shot(page, "present_demo_step1")
    press_until(page, "ArrowRight", "step 2 of 5")
    assert_zoomed_with_overview(page)
    shot(page, "present_demo_step2")
    press(page, "PageDown")
    page.get_by_text("step 3 of 5").wait_for()
    press(page, "PageDown")
    page.get_by_text("step 4 of 5").wait_for()
    assert_zoomed_with_overview(page)
    shot(page, "present_demo_step4")
    press(page, "ArrowLeft")
    page.get_by_text("step 3 of 5").wait_for()
    press(page, "ArrowLeft")
    page.get_by_text("step 2 of 5").wait_for()
    page.get_by_text("A coolant leak: what top-k drops", exact=True).click()  # 114 chunks, the story about 9
    page.get_by_text("A coolant leak: what top-k drops · step 1 of 5").wait_for()
    press_until(page, "ArrowRight", "A coolant leak: what top-k drops · step 2 of 5")
    assert_zoomed_with_overview(page)
    shot(page, "present_demo_gapped_step2")
    # The Demo's own exit (its one exit, presenter or not): Explore, with the sidebar, presenter mode off.
    page.get_by_role("button", name="Exit demo").click()
    wait_for_app(page)
    page.get_by_role("button", name="Exit demo").wait_for(state="detached")
    page.locator("[data-testid='stSidebar']").wait_for(state="visible")
    assert not page.get_by_role("button", name="Exit presenter").is_visible()


def test_lesson_headers_confound_and_exercises_at_projector_size(app_url, projector):
    page = projector
    open_presenting(page, f"{app_url}/lesson?present=1")
    page.get_by_text("4. Headers confound", exact=True).click()
    wait_for_app(page)
    page.get_by_text("Headers on vs off, measured now").first.wait_for(timeout=180_000)
    assert page.locator("[data-testid='stDataFrame']").first.is_visible()
    shot(page, "present_lesson_headers")
    page.goto(f"{app_url}/worked-example?present=1")
    wait_for_app(page)
    page.get_by_text("Exercises", exact=True).click()
    wait_for_app(page)
    answer = page.get_by_role("textbox", name="Your answer")
    answer.fill("2-3")
    answer.press("Enter")
    wait_for_app(page)
    page.get_by_text("Right: 2-3.").first.wait_for()
    assert page.get_by_role("button", name="Download the handout (HTML)").is_visible()
    shot(page, "present_exercises")


def test_transform_lab_at_projector_size(app_url, projector):
    page = projector
    open_presenting(page, f"{app_url}/transform-lab?present=1")
    assert_presenting(page)
    top, _ = chart_fits(page)
    shot(page, "present_transform_lab")
    assert 0 < top < 500, top


def test_the_printed_handout_and_key(browser, tmp_path):
    from rse_core.cli.handout import HANDOUT_NAME, KEY_NAME, main

    assert main([str(tmp_path)]) == 0
    context = browser.new_context(viewport={"width": 900, "height": 1200})
    page = context.new_page()
    for name, out in ((HANDOUT_NAME, "handout"), (KEY_NAME, "handout_key")):
        page.goto((tmp_path / name).as_uri())
        assert page.locator("section.ex").count() >= 12
        page.screenshot(path=str(ARTIFACTS / f"{out}.png"))
    context.close()


def test_outside_presenter_mode_arrows_step_and_space_still_scrolls(app_url, projector):
    page = projector
    open_presenting(page, f"{app_url}/worked-example", charts=2)
    assert page.locator("[data-testid='stSidebar']").is_visible()
    thumb = page.locator("[data-testid='stMain'] [data-testid='stSliderThumbValue']").first
    assert thumb.inner_text() == "0"
    press(page, "ArrowRight")
    page.wait_for_function(
        "() => document.querySelector(\"[data-testid='stMain'] [data-testid='stSliderThumbValue']\").innerText === '1'"
    )
    press(page, " ")
    press(page, "PageDown")
    page.wait_for_timeout(800)
    assert thumb.inner_text() == "1"  # space and PageDown scroll the page here; they step in presenter mode
