"""The first screen shows RSE: on a laptop or projector (1280x720) and a desktop (1920x1080), in the
normal and presenter layouts, each result page's chart and the start of its segment text are in
view without scrolling.

Screenshots (tests/artifacts/): first_screen_<page>_<width>x<height>[_present].png, the window as
a user first sees it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from .conftest import ARTIFACTS, LIVE_CHART_FRAME, wait_for_any_chart, wait_for_app

pytestmark = pytest.mark.browser

TIMEOUT = 180_000
TEXT_LINE = 24  # pixels: at least the first line of a segment's text shows


@dataclass(frozen=True)
class FirstScreenPage:
    name: str  # in the screenshot's file name
    path: str  # the page's address
    segment_text: bool  # the page shows a segment's text (``.rse-text``) beside or under its chart
    next_steps: int = 0  # presses of "Next" before the step with the chart (the Demo opens on its question)


PAGES = (
    FirstScreenPage("explore", "/", segment_text=True),
    FirstScreenPage("compare", "/compare", segment_text=False),
    FirstScreenPage("knowledge_base", "/knowledge-base", segment_text=True),
)
"""The result pages held to the first screen."""

DEMO_PAGES = (FirstScreenPage("demo", "/demo", segment_text=False, next_steps=1),)
"""The Demo's first chart, one step after its question."""

VIEWPORTS = ((1280, 720), (1920, 1080))

# The first chart drawn: a live chart's frame, else a Plotly chart element in the page.
FIRST_CHART_BOX_JS = f"""() => {{
  const chart = document.querySelector("{LIVE_CHART_FRAME}")
    || document.querySelector("[data-testid='stPlotlyChart']");
  if (!chart) return null;
  const box = chart.getBoundingClientRect();
  return {{top: box.top, bottom: box.bottom}};
}}"""

FIRST_TEXT_TOP_JS = """() => {
  const text = document.querySelector('.rse-text');
  return text ? text.getBoundingClientRect().top : null;
}"""

MAIN_SCROLL_JS = "() => document.querySelector(\"[data-testid='stMain']\").scrollTop + window.scrollY"


@pytest.mark.parametrize("present", [False, True], ids=["normal", "present"])
@pytest.mark.parametrize("width,height", VIEWPORTS, ids=[f"{w}x{h}" for w, h in VIEWPORTS])
@pytest.mark.parametrize("shown", PAGES + DEMO_PAGES, ids=lambda shown: shown.name)
def test_the_chart_and_the_segment_text_start_in_the_first_screen(browser, app_url, shown, width, height, present):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(f"{app_url}{shown.path}{'?present=1' if present else ''}", wait_until="domcontentloaded")
        wait_for_app(page, TIMEOUT)
        for _ in range(shown.next_steps):
            page.get_by_role("button", name="Next").click()
            wait_for_app(page, TIMEOUT)
        wait_for_any_chart(page, TIMEOUT)
        if shown.segment_text:
            page.locator(".rse-text").first.wait_for(timeout=TIMEOUT)
        page.wait_for_timeout(1500)  # the live chart fits itself to the room left, then settles
        wait_for_app(page, TIMEOUT)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        suffix = "_present" if present else ""
        page.screenshot(path=str(ARTIFACTS / f"first_screen_{shown.name}_{width}x{height}{suffix}.png"))

        assert page.evaluate(MAIN_SCROLL_JS) == 0
        box = page.evaluate(FIRST_CHART_BOX_JS)
        assert box is not None, "no chart on the page"
        assert box["top"] >= 0 and box["bottom"] <= height, f"the chart spans {box} in a {width}x{height} window"
        if shown.segment_text:
            top = page.evaluate(FIRST_TEXT_TOP_JS)
            assert top is not None and 0 <= top <= height - TEXT_LINE, f"the segment text starts at {top} of {height}"
        assert page.locator("[data-testid='stException']").count() == 0
    finally:
        context.close()
