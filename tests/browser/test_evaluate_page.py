"""The Evaluate page in a real browser: it opens by URL, shows the chart and table, and is screenshotted."""

from __future__ import annotations

import pytest

from .conftest import ARTIFACTS as ARTIFACTS_DIR
from .conftest import screenshot, wait_for_app

pytestmark = pytest.mark.browser  # conftest's own pytestmark does not reach test modules


def test_evaluate_page_opens_by_url(app_url, page):
    page.goto(app_url + "/evaluate")
    wait_for_app(page)
    page.get_by_text("Per query kind").first.wait_for(timeout=180_000)
    page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=60_000)
    page.locator("[data-testid='stDataFrame']").first.wait_for(timeout=60_000)
    wait_for_app(page)
    page.wait_for_timeout(1500)  # let Plotly finish drawing
    assert page.locator("[data-testid='stException']").count() == 0
    # Streamlit scrolls inside its main container, so a full-page shot is one viewport: grow the viewport.
    page.set_viewport_size({"width": 1440, "height": 2700})
    page.wait_for_timeout(1500)
    path = screenshot(page, "evaluate_page")
    assert path.exists()
    assert page.dialogs == []


def test_bad_golden_set_upload_shows_an_error(app_url, page, tmp_path):
    bad = tmp_path / "bad.golden.json"
    bad.write_text('{"document": "annual_report.pdf", "queries": [{"id": "x_1", "query": "Who?", "kind": "trivia"}]}')
    page.goto(app_url + "/evaluate")
    wait_for_app(page)
    page.get_by_text("Upload a golden set").click()
    wait_for_app(page)
    page.locator("[data-testid='stMain'] input[type='file']").set_input_files(str(bad))
    alert = page.locator("[data-testid='stAlert']").filter(has_text="trivia")
    alert.wait_for(timeout=60_000)
    text = alert.inner_text()
    assert "x_1" in text and "\\" not in text  # escaped for Markdown, shown as typed
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "evaluate_upload_error")


def test_recall_vs_characters_and_auto_tune(app_url, page):
    page.goto(app_url + "/evaluate?scorer=bm25")
    wait_for_app(page)
    heading = page.get_by_text("Recall vs characters sent")
    heading.wait_for(timeout=180_000)
    page.locator("[data-testid='stPlotlyChart']").nth(1).wait_for(timeout=60_000)
    page.get_by_role("button", name="Auto-tune").click()
    wait_for_app(page)
    page.get_by_text("Best within 8,000 characters").wait_for(timeout=120_000)
    page.get_by_role("button", name="Apply to the sidebar").click()
    wait_for_app(page)
    page.wait_for_timeout(1500)
    assert page.locator("[data-testid='stException']").count() == 0
    page.set_viewport_size({"width": 1440, "height": 1500})
    heading.evaluate("element => element.scrollIntoView({block: 'start'})")
    page.mouse.move(700, 5)  # no tooltip from a button the mouse happens to be over
    page.wait_for_timeout(1500)  # let Plotly finish drawing
    path = ARTIFACTS_DIR / "evaluate_budget.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    assert page.get_by_text("Auto-tuned").count() >= 1  # the winner is in the chart's legend
    assert page.dialogs == []


def test_external_set_on_a_third_party_document(app_url, page):
    from rse_core.evaluation.sets import corpus_missing_message

    if corpus_missing_message():
        pytest.skip(corpus_missing_message())
    page.goto(app_url + "/evaluate?scorer=bm25")
    wait_for_app(page)
    page.get_by_text("External set", exact=True).click()
    wait_for_app(page)
    heading = page.get_by_text("Recall vs characters sent")
    heading.wait_for(timeout=180_000)
    page.locator("[data-testid='stPlotlyChart']").nth(1).wait_for(timeout=60_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("6 queries on AI_Information.pdf").count() >= 1
    page.set_viewport_size({"width": 1440, "height": 1500})
    heading.evaluate("element => element.scrollIntoView({block: 'start'})")
    page.mouse.move(700, 5)
    page.wait_for_timeout(1500)
    path = ARTIFACTS_DIR / "evaluate_external.png"
    page.screenshot(path=str(path))
    assert page.dialogs == []


def test_a_knowledge_base_set_runs_on_request_with_its_curves(app_url, page):
    """Over a knowledge base: Run asks the samples' 36 queries of the bundled base and draws the
    table and the curves, at a projector's 1280x720 too."""
    page.goto(app_url + "/evaluate?scorer=bm25")
    wait_for_app(page)
    heading = page.get_by_text("Over a knowledge base", exact=True)
    heading.wait_for(timeout=180_000)
    page.locator(".st-key-ev_kb_run button").click()
    wait_for_app(page)
    page.get_by_text("Gold-page hit", exact=True).wait_for(timeout=240_000)
    page.locator("[data-testid='stPlotlyChart']").last.wait_for(timeout=60_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Knowledge base page's setting").count() >= 1  # the marker in the chart's legend
    sizes = ((1440, 1500, "evaluate_knowledge_base"), (1280, 720, "evaluate_knowledge_base_1280x720"))
    for width, height, name in sizes:
        page.set_viewport_size({"width": width, "height": height})
        heading.evaluate("element => element.scrollIntoView({block: 'start'})")
        page.mouse.move(700, 5)
        page.wait_for_timeout(1500)  # let Plotly finish drawing
        path = ARTIFACTS_DIR / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path))
    # The methods at equal characters, under the summary table.
    equal = page.get_by_text("At equal characters:", exact=False).first
    equal.evaluate("element => element.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS_DIR / "evaluate_knowledge_base_equal_1280x720.png"))
    assert page.dialogs == []
