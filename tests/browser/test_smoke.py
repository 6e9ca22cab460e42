"""The app opens on a sample document with a real result."""

from __future__ import annotations

from .conftest import screenshot, wait_for_app


def test_app_opens_with_a_result(app_url, page):
    page.goto(app_url)
    wait_for_app(page)
    page.get_by_text("segment(s)").first.wait_for(timeout=120_000)
    path = screenshot(page, "smoke_open")
    assert path.exists()
    assert page.dialogs == []
