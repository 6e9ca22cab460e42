"""What a person does on the Explore page, in a real browser: query, slider, upload, click, compare.

Screenshots land in tests/artifacts/ (explore_default, compare, explore_after_slider,
explore_stages, explore_upload, compare_upload) so a person can look at what the test saw.
"""

from __future__ import annotations

import re

import pytest

from tests.support.pdf_factory import make_pdf

from .conftest import chart_layer_switch, press_slider_up_to, screenshot, value_chart, wait_for_any_chart, wait_for_app

pytestmark = pytest.mark.browser

TIMEOUT = 120_000
SIDEBAR = "[data-testid='stSidebar']"
MAIN = "[data-testid='stMain']"


def settle(page) -> None:
    """Wait for the rerun a change started, then for the chart to be drawn."""
    page.wait_for_timeout(400)  # let the rerun begin (the status widget appears)
    wait_for_app(page, TIMEOUT)
    wait_for_any_chart(page, TIMEOUT)


def metric_value(page, label: str) -> str:
    metric = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return metric.locator("[data-testid='stMetricValue']").inner_text().strip()


def chunks_kept(page) -> int:
    return int(metric_value(page, "Chunks kept").split(" of ")[0])


def assert_clean(page) -> None:
    """No traceback, no Streamlit exception box, no script dialog."""
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in page.locator(MAIN).inner_text()
    assert page.dialogs == []


def set_query(page, text: str) -> None:
    box = page.locator(f"{SIDEBAR} textarea[aria-label='Query']")
    box.click()
    box.fill(text)
    box.press("Control+Enter")
    settle(page)


def open_compare(page) -> None:
    """The RSE vs top-k page, from the navigation, in a viewport tall enough to show all of it."""
    page.set_viewport_size({"width": 1440, "height": 2300})
    page.locator(f"{SIDEBAR} a", has_text="RSE vs top-k").first.click()
    settle(page)
    page.get_by_role("heading", name="RSE vs top-k").wait_for(timeout=TIMEOUT)
    # two contexts and the link (the answers panel adds prompts, some folded away)
    page.locator("[data-testid='stCode']:visible").nth(2).wait_for(timeout=TIMEOUT)
    page.locator(".rse-chip", has_text="Only RSE keeps").wait_for(timeout=TIMEOUT)
    assert_clean(page)
    assert re.search(r"/compare\?", page.url)


def test_explore_flow(app_url, page):
    # Tall enough that a screenshot shows the chart, the text beside it and the exports: Streamlit's
    # main area scrolls inside itself, so a "full page" screenshot is only the viewport.
    page.set_viewport_size({"width": 1440, "height": 1500})
    page.goto(app_url)
    wait_for_app(page, TIMEOUT)
    wait_for_any_chart(page, TIMEOUT)
    settle(page)
    assert_clean(page)
    assert page.locator(".rse-text").count() >= 1  # segment text beside the chart
    assert int(metric_value(page, "Segments")) >= 1
    screenshot(page, "explore_default")

    # The RSE vs top-k page on the same default view, then back.
    open_compare(page)
    screenshot(page, "compare")
    page.set_viewport_size({"width": 1440, "height": 1500})
    page.locator(f"{SIDEBAR} a", has_text="Explore").first.click()
    settle(page)
    page.get_by_role("heading", name="Explore").wait_for(timeout=TIMEOUT)

    # A new query, typed and submitted with Ctrl+Enter.
    query = "What fees were paid to the auditor for the audit of the financial statements?"
    set_query(page, query)
    assert_clean(page)
    page.locator(".rse-query", has_text=query).wait_for(timeout=TIMEOUT)
    assert "What" in page.url and "auditor" in page.url  # the query is in the shareable URL

    # Penalty slider, with the keyboard: +0.15 makes segments shorter.
    before = chunks_kept(page)
    slider = page.locator(f"{SIDEBAR} input[type='range'][aria-label='Irrelevant chunk penalty']")
    press_slider_up_to(slider, 0.35)
    settle(page)
    assert_clean(page)
    page.wait_for_function("() => window.location.search.includes('penalty=0.35')", timeout=TIMEOUT)
    after = chunks_kept(page)
    assert after < before, (before, after)
    screenshot(page, "explore_after_slider")

    # Click a bar: the chunk is outlined and described under the chart.
    bar = value_chart(page).locator(".js-plotly-plot .barlayer .trace").first.locator(".point").nth(3)
    bar.click(force=True)
    page.get_by_text("Selected:").first.wait_for(timeout=TIMEOUT)
    assert_clean(page)

    # Value stages.
    chart_layer_switch(page, "Show value stages").click()
    settle(page)
    value_chart(page).locator(".js-plotly-plot .legendtext", has_text="calibrated").first.wait_for(timeout=TIMEOUT)
    screenshot(page, "explore_stages")
    chart_layer_switch(page, "Show value stages").click()
    settle(page)

    # Upload a PDF made on the spot and ask about it.
    pdf = make_pdf(
        [
            "Zebra herds of the Serengeti migrate clockwise every year, following the rains. " * 3,
            "During the migration zebras cover about 800 kilometres a year and cross the Mara river, "
            "where zebras and wildebeest face crocodiles. " * 3,
            "An appendix about office printers, toner cartridges and paper jams. " * 6,
        ],
        title="Zebra Field Notes",
    )
    page.locator(f"{SIDEBAR} input[type='file']").set_input_files(
        files=[{"name": "zebra_notes.pdf", "mimeType": "application/pdf", "buffer": pdf}]
    )
    settle(page)
    set_query(page, "How far do zebras migrate each year?")
    assert_clean(page)
    page.locator(".rse-text", has_text="zebras cover about 800").first.wait_for(timeout=TIMEOUT)
    page.locator(".rse-segment-head", has_text="Zebra Field Notes").first.wait_for(timeout=TIMEOUT)
    screenshot(page, "explore_upload")

    # The comparison for the uploaded document.
    open_compare(page)
    page.locator(".rse-chunk-list", has_text="Zebra Field Notes").first.wait_for(timeout=TIMEOUT)
    screenshot(page, "compare_upload")
