"""The Learn and Tune pages in a real browser: they draw their charts, and the clicks work.

Screenshots (tests/artifacts/): worked_example.png, transform_lab.png, sweep.png. The Transform
lab and the sweep use the app's default scorer (minilm), as a first-time user sees them.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from .conftest import screenshot, wait_for_app

pytestmark = pytest.mark.browser  # conftest's own pytestmark does not reach test modules

CHART = "[data-testid='stPlotlyChart'] .main-svg"


def wait_for_charts(page, count: int, timeout: float = 120_000) -> None:
    page.wait_for_function(
        f'() => document.querySelectorAll("{CHART}").length >= {count}',
        timeout=timeout,
    )
    wait_for_app(page)
    page.wait_for_timeout(600)  # let Plotly finish its first layout pass


def tall_screenshot(page, name: str, height: int) -> None:
    """Streamlit scrolls inside its main container, so a full-page shot is one viewport: grow it."""
    page.set_viewport_size({"width": 1440, "height": height})
    page.wait_for_timeout(1200)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, name)


def slider_value(page, label: str) -> float:
    """A sidebar slider's value, as its thumb shows it."""
    slider = page.locator("[data-testid='stSidebar'] [data-testid='stSlider']").filter(has_text=label)
    return float(slider.get_by_test_id("stSliderThumbValue").inner_text())


def test_worked_example(app_url, page):
    page.goto(f"{app_url}/worked-example")
    wait_for_app(page)
    wait_for_charts(page, 2)
    main = page.locator("[data-testid='stMain']")
    assert "Predict: which segments" in main.inner_text() and "S1 = chunks 2-3" not in main.inner_text()
    page.get_by_text("Reveal the answer").click()
    page.get_by_text("S1 = chunks 2-3 (1.2)").wait_for()
    wait_for_app(page)
    tall_screenshot(page, "worked_example", 1500)

    # Turn 0 is the prediction; turn 1 picks S1, turn 2 finds nothing, then the stop.
    for heading in ("Turn 1: picks S1", "Turn 2: no pick", "The search stops"):
        page.get_by_role("button", name="Next turn").click()
        page.get_by_text(heading).wait_for()
        wait_for_app(page)
        page.wait_for_function(
            "() => [...document.querySelectorAll('button')].filter(b => b.innerText.includes('Next turn')).length === 1"
        )
    assert "no segment can be formed" in main.inner_text()

    tall_screenshot(page, "worked_example_stop", 1500)
    page.get_by_role("tab", name="Candidate segments").click()
    page.locator("[data-testid='stDataFrame']").first.wait_for()
    page.wait_for_timeout(800)
    tall_screenshot(page, "worked_example_table", 1500)

    page.get_by_role("tab", name="Check yourself").click()
    answer = page.get_by_role("textbox", name="Which segment does the search pick?")
    answer.fill("2-4")
    answer.press("Enter")
    wait_for_app(page)
    page.get_by_text(re.compile("^Not quite")).wait_for()
    answer.fill("2-3")
    answer.press("Enter")
    wait_for_app(page)
    page.get_by_text(re.compile("^Right")).wait_for()
    tall_screenshot(page, "worked_example_check", 1500)
    assert page.dialogs == []


def test_transform_lab(app_url, page):
    page.goto(f"{app_url}/transform-lab")
    wait_for_app(page)
    wait_for_charts(page, 4)
    text = page.locator("[data-testid='stMain']").inner_text()
    assert "Beta transform" in text and "Rank decay" in text
    tall_screenshot(page, "transform_lab", 2000)
    assert page.dialogs == []


def test_sweep_click_sets_the_sliders(app_url, page):
    page.goto(f"{app_url}/sweep")
    wait_for_app(page)
    wait_for_charts(page, 1)
    tall_screenshot(page, "sweep", 1100)
    assert slider_value(page, "Irrelevant chunk penalty") == 0.2  # the default preset
    assert slider_value(page, "Minimum segment value") == 0.5

    # Click the cell at penalty 0.4 (column 20 of 0, 0.02, ..., 0.5), minimum value 1.0 (row 10).
    plot = page.locator("[data-testid='stPlotlyChart'] .nsewdrag").first
    box = plot.bounding_box()
    columns, rows = 26, 21
    x = box["x"] + box["width"] * (20 + 0.5) / columns
    y = box["y"] + box["height"] * (1 - (10 + 0.5) / rows)
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    page.mouse.click(x, y)
    page.wait_for_function(
        """() => [...document.querySelectorAll("[data-testid='stSidebar'] [data-testid='stSlider']")]
                 .some(s => s.innerText.includes('Irrelevant chunk penalty')
                            && s.querySelector("[data-testid='stSliderThumbValue']").innerText === '0.40')""",
        timeout=60_000,
    )
    wait_for_app(page)
    assert slider_value(page, "Irrelevant chunk penalty") == 0.4
    assert slider_value(page, "Minimum segment value") == 1.0
    screenshot(page, "sweep_after_click")

    main = page.locator("[data-testid='stMain']")
    main.get_by_text("max chunks per segment", exact=True).click()
    wait_for_app(page)
    main.get_by_text("chunks kept", exact=True).click()
    wait_for_app(page)
    page.wait_for_timeout(800)
    page.wait_for_function(
        """() => [...document.querySelectorAll("[data-testid='stPlotlyChart'] .ytitle")]
                 .some(t => t.textContent === 'max chunks per segment')""",
        timeout=60_000,
    )
    tall_screenshot(page, "sweep_max_length", 1100)
    assert page.dialogs == []


def test_transform_lab_warning_and_its_fix(app_url, page):
    # Built to look uncalibrated: bm25 on the handbook with no penalty leaves most chunks positive.
    query = quote("Which public holidays does the company give us off this year?")
    page.goto(f"{app_url}/transform-lab?docs=employee_handbook&q={query}&scorer=bm25&penalty=0")
    wait_for_app(page)
    wait_for_charts(page, 4)
    warning = page.locator("[data-testid='stAlert']").filter(has_text="are positive after the penalty")
    warning.wait_for()
    suggested = re.search(r"Raise the penalty to about ([0-9.]+)", warning.inner_text()).group(1)
    tall_screenshot(page, "transform_lab_warning", 1300)
    page.get_by_role("button", name=f"Set the penalty to {suggested}").click()
    warning.wait_for(state="detached", timeout=60_000)
    wait_for_app(page)
    assert slider_value(page, "Irrelevant chunk penalty") == float(suggested)
    assert page.dialogs == []
