"""A whole class clicked through in presenter mode at a projector's size (1280x720).

From the Class plan page: "Start the class", then "Next block" in the presenter bar, block by block
to the last. At each block: presenter mode is on, the block's chart or table lies inside the first
screen, and no answer is on screen before its reveal. One screenshot per block (what the room
sees): tests/artifacts/class_plan_NN.png.
"""

from __future__ import annotations

import pytest

from rse_core.teaching.class_plan import CLASS_PLAN

from .conftest import wait_for_app
from .test_presenter import SIZE, main_text, press, shot

pytestmark = pytest.mark.browser

ELEMENTS = (
    "[data-testid='stPlotlyChart'] .main-svg, [data-testid='stDataFrame'], "
    "iframe[title='app_ui.live_chart.live_chart'], [data-testid='stMetric']"
)
EXERCISE = "[data-testid='stTextInput']"  # the Exercises block: the prompt and the answer box

# What must not be on screen before the reveal, by block view (the answer's own words).
NOT_YET = {
    "steps": ("taken as S1",),
    "segments": ("picks chunks", "S1 = "),
    "round_robin": ("Query 1 picks", "picks chunks"),
}
PREDICT = {
    "steps": "Turn 0: predict",
    "segments": "Turn 0: predict",
    "round_robin": "Turn 0: predict",
}


def first_element_box(page, elements: str = ELEMENTS) -> tuple[float, float] | None:
    """(top, bottom) of the first chart or table of the page's main area, in viewport pixels."""
    script = (
        "(sel) => { const e = [...document.querySelectorAll(sel)].filter(e => e.getBoundingClientRect().height > 40"
        " && !e.closest('[data-testid=\"stExpander\"] details:not([open])')"
        " && !e.closest('[data-testid=\"stSidebar\"]') && !e.closest('[data-testid=\"stPopoverBody\"]'));"
        " if (!e.length) return null; const r = e[0].getBoundingClientRect();"
        # A Plotly chart's bottom: its x axis's tick labels (a legend or margin below them may fall outside).
        " const axis = e[0].querySelector && e[0].querySelector('g.xaxislayer-above');"
        " const bottom = axis ? axis.getBoundingClientRect().bottom : r.bottom; return [r.top, bottom]; }"
    )
    return page.evaluate(script, elements)


def wait_for_block(page, number: int, elements: str = ELEMENTS) -> None:
    page.get_by_text(f"Block {number} of {len(CLASS_PLAN)}").first.wait_for(timeout=180_000)
    wait_for_app(page, timeout=300_000)
    page.wait_for_function(
        "(sel) => document.querySelectorAll(sel).length > 0", arg=elements, timeout=120_000, polling=200
    )
    wait_for_app(page, timeout=300_000)
    page.wait_for_timeout(1200)


def test_the_class_plan_walks_every_block_in_the_first_screen(app_url, projector):
    page = projector
    page.goto(f"{app_url}/class-plan")
    wait_for_app(page)
    page.get_by_text("14. Exercises").wait_for()
    page.get_by_role("button", name="Start the class").wait_for()
    wait_for_app(page)
    shot(page, "class_plan_00_plan")
    page.get_by_role("button", name="Start the class").click()
    measured = []
    for index, block in enumerate(CLASS_PLAN):
        elements = EXERCISE if block.view == "exercises" else ELEMENTS
        wait_for_block(page, index + 1, elements)
        assert not page.locator("[data-testid='stSidebar']").is_visible()
        assert page.locator("[data-testid='stException']").count() == 0, block.title
        page.mouse.move(SIZE["width"] // 2, SIZE["height"] - 5)  # no tooltip over the slide
        shot(page, f"class_plan_{index + 1:02d}")
        box = first_element_box(page, elements)
        measured.append((index + 1, block.title, box))
        text = main_text(page)
        for answer in NOT_YET.get(block.view, ()):
            assert answer not in text, (block.title, answer)
        if block.view in PREDICT:
            assert PREDICT[block.view] in text, block.title
        # Tables draw on a canvas: their "?" cells (runs, board) are checked in tests/app/test_app_class_plan.py.
        if index == 0:  # the parameters, with the sidebar hidden: in the bar's Settings
            page.get_by_role("button", name="Settings").click()
            page.get_by_text("Irrelevant chunk penalty").first.wait_for()
            shot(page, "class_plan_01_settings")
            page.keyboard.press("Escape")
            page.wait_for_timeout(400)
        if block.view == "board":  # every column revealed: the values' chart beside the table, in the first screen
            press(page, "End")
            page.wait_for_function(
                "() => document.querySelectorAll(\"[data-testid='stPlotlyChart'] .main-svg\").length > 0",
                timeout=60_000,
            )
            wait_for_app(page)
            page.wait_for_timeout(800)
            shot(page, f"class_plan_{index + 1:02d}_revealed")
            chart = page.locator("[data-testid='stPlotlyChart']").first.bounding_box()
            assert chart["y"] + chart["height"] <= SIZE["height"], chart
        if index + 1 < len(CLASS_PLAN):
            page.get_by_role("button", name="Next block").click()
    print(measured)
    outside = [(n, title, box) for n, title, box in measured if box is None or box[0] < 0 or box[1] > SIZE["height"]]
    assert not outside, outside
