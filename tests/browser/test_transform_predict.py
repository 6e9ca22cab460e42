"""Transform lab at 1280x720 with the default scorer (MiniLM), as a class sees it on a projector:
both predict histograms inside the first screen, the answer hidden until Reveal.

Screenshots (tests/artifacts/): transform_predict_1280.png (before), transform_predict_revealed_1280.png.
"""

from __future__ import annotations

import pytest

from .conftest import screenshot, wait_for_app

pytestmark = pytest.mark.browser

CHART = "[data-testid='stPlotlyChart']"


def test_predict_histograms_fit_the_first_screen_and_the_answer_waits_for_reveal(app_url, page):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/transform-lab")
    wait_for_app(page)
    page.wait_for_function(f'() => document.querySelectorAll("{CHART} .main-svg").length >= 4', timeout=180_000)
    page.wait_for_timeout(1000)
    main = page.locator("[data-testid='stMain']")
    assert "Predict" in main.inner_text()
    assert "Answer:" not in main.inner_text()
    for index in (0, 1):
        box = page.locator(CHART).nth(index).bounding_box()
        assert box is not None and box["height"] > 150
        assert box["y"] >= 0 and box["y"] + box["height"] <= 720, box  # no scrolling needed
    assert "Illustration" in page.locator(CHART).nth(1).inner_text()
    screenshot(page, "transform_predict_1280")

    page.get_by_text("most stay at the ends").click()
    page.get_by_text("Reveal", exact=True).click()
    page.get_by_text("Answer:").first.wait_for(timeout=60_000)
    wait_for_app(page)
    page.wait_for_timeout(800)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(f"{CHART}").nth(0).get_by_text("beta-transformed").count() >= 1
    screenshot(page, "transform_predict_revealed_1280")
    assert page.dialogs == []
