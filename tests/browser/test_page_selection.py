"""A golden set made by dragging across the rendered PDF page, with the mouse in a real browser.

Explore's page view takes the drag; the span is exactly the document text between the drag's
ends (checked against the text PyMuPDF's own search finds there), is drawn in purple on the page,
and goes to Evaluate's golden-set form. Screenshots in tests/artifacts/: page_view_gold_selection,
golden_by_page_selection.
"""

from __future__ import annotations

import re

import pymupdf
import pytest

from rse_core import load_document

from .conftest import ARTIFACTS, ROOT, wait_for_app, wait_for_value_chart

pytestmark = pytest.mark.browser

TIMEOUT = 180_000
HANDBOOK = ROOT / "sample_docs" / "employee_handbook.pdf"
FRAME = "iframe[title='app_ui.page_select.page_select']"
FIRST, LAST = "Every new employee", "of your tenth week."
QUERY = "How long is the probation period?"


def settle(page) -> None:
    page.wait_for_timeout(500)
    wait_for_app(page, TIMEOUT)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=TIMEOUT)


def _fractions(page_number: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where the answer's first and last words are on the page, as fractions of its size."""
    with pymupdf.open(HANDBOOK) as pdf:
        pdf_page = pdf[page_number - 1]
        width, height = pdf_page.rect.width, pdf_page.rect.height
        a, b = pdf_page.search_for(FIRST)[0], pdf_page.search_for(LAST)[0]
    # Just inside the first letter and just past the last one (the line ends there), as a hand
    # drags: the mouse moves in whole pixels, and the full stop is narrower than two of them.
    return ((a.x0 + 1) / width, (a.y0 + a.y1) / 2 / height), ((b.x1 + 2) / width, (b.y0 + b.y1) / 2 / height)


def _expected() -> tuple[int, int]:
    text = load_document(HANDBOOK).text
    start = text.index(FIRST)
    return start, text.index(LAST, start) + len(LAST)


def test_a_drag_on_the_page_view_makes_a_golden_query(page, app_url):
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{app_url}/?docs=employee_handbook&scorer=bm25&q={QUERY.replace(' ', '+').replace('?', '%3F')}")
    wait_for_app(page, TIMEOUT)
    wait_for_value_chart(page, TIMEOUT)
    settle(page)
    page.get_by_text("Select a gold span", exact=True).click()
    page.locator(FRAME).wait_for(timeout=TIMEOUT)
    settle(page)
    frame = page.frame_locator(FRAME)
    image = frame.locator(".page[data-page='3'] img")
    image.wait_for(timeout=TIMEOUT)
    (ax, ay), (bx, by) = _fractions(3)
    page.locator(FRAME).evaluate("f => f.scrollIntoView({block: 'start'})")
    image.evaluate(  # the answer's lines near the top of the frame's scrolling box
        "(img, fy) => { document.getElementById('pages').scrollTop ="
        " img.closest('.page').offsetTop + fy * img.clientHeight - 120; }",
        ay,
    )
    page.wait_for_timeout(300)
    box = image.bounding_box()
    page.mouse.move(box["x"] + ax * box["width"], box["y"] + ay * box["height"])
    page.mouse.down()
    page.mouse.move(box["x"] + bx * box["width"], box["y"] + by * box["height"], steps=10)
    page.mouse.up()
    start, end = _expected()
    summary = page.get_by_text(re.compile(r"Gold span \(p\. 3, characters"))
    summary.wait_for(timeout=TIMEOUT)
    settle(page)
    assert f"characters {start:,}-{end:,}" in summary.inner_text()
    assert page.locator("[data-testid='stException']").count() == 0
    page.locator(FRAME).evaluate("f => f.scrollIntoView({block: 'start'})")
    page.mouse.wheel(0, -140)  # the "Gold span" line under the frame stays in view too
    page.wait_for_timeout(500)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "page_view_gold_selection.png"))

    page.get_by_role("button", name="Make golden queries of it (Evaluate)").click()
    page.get_by_role("heading", name="Evaluate").first.wait_for(timeout=TIMEOUT)
    settle(page)
    label = page.locator("[data-testid='stExpander'] summary").filter(has_text="Gold span: characters")
    label.wait_for(timeout=TIMEOUT)
    assert f"characters {start:,}-{end:,}" in label.inner_text()  # the same span, in the form
    assert "No document selected" not in page.locator("[data-testid='stMain']").inner_text()
    page.get_by_label("Queries this span answers (one a line; each becomes a golden query)").fill(
        f"{QUERY}\nWhen are the probation check-ins?"
    )
    page.get_by_role("button", name="Add to my golden set").click()
    page.get_by_text("Added q-01, q-02 to my golden set.").wait_for(timeout=TIMEOUT)
    settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    page.locator(FRAME).scroll_into_view_if_needed()
    page.mouse.wheel(0, 300)
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / "golden_by_page_selection.png"))
