"""Contextual chunk headers in a real browser: the sidebar toggle, the link, the explain panel.

Screenshot: tests/artifacts/explore_headers.png (headers on, a clicked chunk's header shown).
"""

from __future__ import annotations

import pytest

from .conftest import screenshot, value_chart, wait_for_app
from .test_explore_flow import MAIN, SIDEBAR, TIMEOUT, assert_clean, settle

pytestmark = pytest.mark.browser


def test_header_toggle_and_explain_panel(app_url, page):
    page.set_viewport_size({"width": 1440, "height": 1700})
    page.goto(f"{app_url}/?docs=tech_report&scorer=bm25&q=coolant+pump+flow+rate&headers=0")  # on by default
    wait_for_app(page, TIMEOUT)
    settle(page)
    assert_clean(page)
    toggle = page.locator(f"{SIDEBAR} label", has_text="Contextual chunk headers").first
    toggle.click()
    settle(page)
    page.wait_for_function("() => window.location.search.includes('headers=1')", timeout=TIMEOUT)
    assert_clean(page)
    bar = value_chart(page).locator(".js-plotly-plot .barlayer .trace").first.locator(".point").nth(20)
    bar.click(force=True)
    page.get_by_text("Scored with the header").first.wait_for(timeout=TIMEOUT)
    assert "Alderwick GSU-3700" in page.locator(MAIN).inner_text()
    assert_clean(page)
    screenshot(page, "explore_headers")
