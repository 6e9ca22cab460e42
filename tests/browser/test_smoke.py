"""The app opens on a sample document with a real result, with the offline model."""

from __future__ import annotations

from .conftest import screenshot, wait_for_app, wait_for_value_chart


def test_app_opens_with_a_result(app_url, page):
    page.goto(app_url)
    wait_for_app(page)
    wait_for_value_chart(page)
    page.locator(".rse-text").first.wait_for(timeout=120_000)  # a segment's text beside the chart
    segments = page.locator("[data-testid='stMetric']").filter(has_text="Segments").first
    assert int(segments.locator("[data-testid='stMetricValue']").inner_text()) >= 1
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.dialogs == []
    screenshot(page, "smoke_open")
