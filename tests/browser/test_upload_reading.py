"""While a new upload is read, the page shows only that it is being read, in a real browser.

Streamlit keeps what a run does not draw on screen, faded, until a run ends normally, and a run
that ends in ``st.rerun`` removes nothing: the reading run's note came with the old document's
chart and numbers still under it. Screenshots: tests/artifacts/upload_reading.png (during),
upload_read.png (after).
"""

from __future__ import annotations

import random

import pytest

from .conftest import LIVE_CHART_FRAME, screenshot, wait_for_app, wait_for_value_chart

pytestmark = pytest.mark.browser

TIMEOUT = 240_000
SIDEBAR = "[data-testid='stSidebar']"
WORDS = (  # noqa: SIM905 - a sentence reads better than quoted words
    "the ferry leaves the harbour at dawn when the tide is high and returns with the evening catch "
    "while gulls follow the boats and the harbour master records each arrival in the ledger"
).split()


def _notes(chunks: int = 150) -> bytes:
    """A text that chunks into about ``chunks`` chunks: long enough to be seen being read."""
    rng = random.Random(22)
    sentences = [" ".join(rng.choice(WORDS) for _ in range(16)).capitalize() + "." for _ in range(chunks * 8)]
    return "\n\n".join(" ".join(sentences[i : i + 4]) for i in range(0, len(sentences), 4)).encode()


def test_no_stale_result_while_an_upload_is_read_and_the_chart_frame_is_kept(page, app_url):
    page.goto(app_url)
    wait_for_app(page, TIMEOUT)
    wait_for_value_chart(page, TIMEOUT)
    wait_for_app(page, TIMEOUT)
    headline = page.get_by_text("Chunks kept", exact=True)
    assert headline.is_visible()
    frame = page.locator(LIVE_CHART_FRAME).first.element_handle()

    page.locator(f"{SIDEBAR} input[type='file']").set_input_files(
        files=[{"name": "harbour_log.txt", "mimeType": "text/plain", "buffer": _notes()}]
    )
    page.get_by_text("Reading harbour_log.txt").wait_for(timeout=TIMEOUT)
    assert not headline.is_visible()  # the old document's numbers are gone, not faded
    assert not frame.is_visible()  # and its chart
    assert page.locator("[data-testid='stMain'] [data-testid='stAlert']").count() == 1  # only the note
    page.wait_for_timeout(1500)  # Streamlit fades what a run has not drawn after a moment
    stale, faded = page.evaluate(
        "() => { const s = [...document.querySelectorAll(\"[data-testid='stSidebar'] [data-stale='true']\")]"
        ".filter(e => e.offsetParent);"
        " return [s.length, s.filter(e => Number(getComputedStyle(e).opacity) < 1).length]; }"
    )
    assert page.get_by_text("Reading harbour_log.txt").is_visible() and stale > 0  # still reading, sidebar not redrawn
    assert faded == 0  # yet its controls look as they are: they still work
    screenshot(page, "upload_reading")

    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stMetricValue\"]')]"
        ".some(m => / of (\\d+)$/.test(m.innerText.trim()) && Number(m.innerText.trim().split(' of ')[1]) > 200)",
        timeout=TIMEOUT,
    )
    wait_for_app(page, TIMEOUT)
    assert frame.evaluate("f => f.isConnected") and frame.is_visible()  # the same frame, redrawn in place
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "upload_read")
