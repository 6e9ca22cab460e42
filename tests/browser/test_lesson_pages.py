"""The teaching pages in a real browser: the Lesson page, Worked example's board mode, and Explore
with the optimal toggle and the gold span.

Screenshots (tests/artifacts/): lesson.png, worked_example_board.png, explore_optimal_gold.png.
Run with the bm25 scorer (``?scorer=bm25``) so no model is loaded; the page logic is the same.
"""

from __future__ import annotations

import pytest

from .conftest import chart_layer_switch, value_chart, wait_for_any_chart, wait_for_app, wait_for_value_chart
from .test_teaching_pages import tall_screenshot, wait_for_charts

pytestmark = pytest.mark.browser


def test_lesson_page(app_url, page):
    page.goto(f"{app_url}/lesson?scorer=bm25")
    wait_for_app(page)
    wait_for_charts(page, 1)
    main = page.locator("[data-testid='stMain']")
    text = main.inner_text()
    for expected in ("323-333", "the authors report", "We did not run KITE", "24,000 characters", "ar-10"):
        assert expected in text, expected
    sidebar = page.locator("[data-testid='stSidebar']").inner_text()
    assert "documents and query below do not apply here" in sidebar
    tall_screenshot(page, "lesson", 2600)


def test_explore_with_the_optimal_toggle_and_the_gold_span(app_url, page):
    page.goto(f"{app_url}/?scorer=bm25")
    wait_for_app(page)
    wait_for_value_chart(page)
    main = page.locator("[data-testid='stMain']")
    assert "gold answer of ar-10" in main.inner_text()
    chart_layer_switch(page, "Compare with the optimal search").click()
    page.get_by_text("Greedy vs optimal:").wait_for()
    wait_for_app(page)
    assert "optimal total" in main.inner_text()
    # The chart draws the gold strip and the dashed optimal outlines (SVG shapes in Plotly's layer).
    value_chart(page).get_by_text("Optimal segment (exact search)").first.wait_for()
    page.wait_for_timeout(800)
    legend = value_chart(page).locator(".js-plotly-plot").first.inner_text()
    assert "Gold span (golden set)" in legend and "Optimal segment (exact search)" in legend
    tall_screenshot(page, "explore_optimal_gold", 1300)


def test_compare_shows_the_window_as_a_third_column(app_url, page):
    page.goto(f"{app_url}/compare?scorer=bm25")
    wait_for_app(page)
    wait_for_any_chart(page)
    main = page.locator("[data-testid='stMain']")
    page.locator(".rse-chip", has_text="Window (±").first.wait_for()
    main.locator("[data-testid='stCode']").nth(3).wait_for(state="attached")  # three contexts and the link, folded
    assert "never keeps" not in main.inner_text()
    tall_screenshot(page, "compare_window", 2200)


def test_worked_example_board_mode(app_url, page):
    page.goto(f"{app_url}/worked-example?scorer=bm25")
    wait_for_app(page)
    wait_for_charts(page, 1)
    page.get_by_text("Board: scores → values").click()
    page.get_by_text("Beta lookup").first.wait_for()
    wait_for_app(page)
    main = page.locator("[data-testid='stMain']")
    assert "Columns revealed" in main.inner_text()
    assert "Searched with the course's limits" not in main.inner_text()  # the class fills in the columns first
    sidebar = page.locator("[data-testid='stSidebar']").inner_text()
    assert "Nothing in this sidebar applies on Worked example" in sidebar
    tall_screenshot(page, "worked_example_board", 1500)
