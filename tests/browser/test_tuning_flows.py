"""In a real browser: LLM settings typed in the app reach the Demo (1280x720), the dsRAG
export, and a golden set made by selecting text with the mouse.

Screenshots in tests/artifacts/: tune_demo_answers_1280x720, tune_dsrag_export, tune_golden_by_selection.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest

from rse_core import load_document
from tests.support.fake_llm import FakeLLM

from .conftest import ARTIFACTS, ROOT, streamlit_server, wait_for_app

pytestmark = pytest.mark.browser

TIMEOUT = 180_000
MAIN = "[data-testid='stMain']"
QUERY = "How long is the probation period for new hires?"
SELECT_FRAME = "iframe[title='app_ui.text_select.text_select']"


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLM]:
    with FakeLLM(delay=0.02) as fake:
        yield fake


@pytest.fixture(scope="module")
def url(tmp_path_factory) -> Iterator[str]:
    """The app with no LLM in its environment: the settings are typed in the app."""
    env = {**os.environ, "RSE_CACHE_DIR": str(tmp_path_factory.mktemp("rse-cache")), "HF_HUB_OFFLINE": "1"}
    env["RSE_ALLOWED_PRIVATE_HOSTS"] = "127.0.0.1"  # the fake LLM the user types listens there
    for name in ("OPENAI_BASE_URL", "RSE_LLM_MODEL", "OPENAI_API_KEY", "CO_API_KEY", "RSE_LLM_PROVIDER"):
        env.pop(name, None)
    with streamlit_server(tmp_path_factory.mktemp("streamlit-tune"), env) as server:
        yield server


def settle(page) -> None:
    page.wait_for_timeout(500)
    wait_for_app(page, TIMEOUT)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=TIMEOUT)


def assert_clean(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in page.locator(MAIN).inner_text()


def go_to(page, title: str) -> None:
    """Another page of the same session, through the sidebar's navigation (a new URL would start a new session)."""
    page.locator("[data-testid='stSidebarNav']").get_by_role("link", name=title, exact=True).click()
    settle(page)


def test_llm_settings_typed_on_compare_give_answers_on_the_demo(page, url, fake_llm):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{url}/compare?docs=employee_handbook&q={QUERY.replace(' ', '+')}&scorer=bm25")
    wait_for_app(page, TIMEOUT)
    page.get_by_text("LLM for answers").first.wait_for(timeout=TIMEOUT)
    settle(page)
    page.get_by_text("LLM for answers").first.click()
    base_url = page.get_by_role("textbox", name="Base URL")
    base_url.fill(f"{fake_llm.url}/v1")
    base_url.press("Enter")
    settle(page)
    model = page.get_by_role("textbox", name="Model", exact=True)
    model.fill("fake-model")
    model.press("Enter")
    settle(page)
    page.get_by_role("button", name="Ask fake-model with each context").wait_for(timeout=TIMEOUT)
    go_to(page, "Explore")
    go_to(page, "Demo")  # the Demo hides the sidebar: it is the last page visited here
    page.get_by_text("step 1 of 5").wait_for(timeout=TIMEOUT)
    for expected in (2, 3, 4, 5):
        page.get_by_role("button", name="Next").click()
        page.get_by_text(f"step {expected} of 5").wait_for(timeout=TIMEOUT)
        settle(page)
    page.wait_for_function(
        "() => (document.body.innerText.match(/tokens in, \\d+ out/g) || []).length >= 2", timeout=TIMEOUT
    )
    settle(page)
    text = page.locator(MAIN).inner_text()
    assert "No LLM is configured" not in text and "According to the context" in text
    assert page.get_by_role("button", name="LLM for answers").count() == 1  # the compact settings control
    assert_clean(page)
    page.get_by_text("According to the context").first.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "tune_demo_answers_1280x720.png"))


def test_the_dsrag_export_is_on_explore(page, url):
    page.goto(f"{url}/?docs=employee_handbook&scorer=bm25&penalty=0.27")
    wait_for_app(page, TIMEOUT)
    heading = page.get_by_text("Take these parameters to your RAG code")
    heading.wait_for(timeout=TIMEOUT)
    settle(page)
    heading.click()
    page.get_by_text("Show the code").click()  # the snippets are drawn on request (slider moves stay light)
    page.get_by_role("tab", name="dsRAG rse_params (Python)").click()
    code = page.locator("[data-testid='stCode']").filter(has_text="rse_params = {")
    code.wait_for(timeout=TIMEOUT)
    exported = code.inner_text()
    for key in ("max_length", "overall_max_length_extension", "top_k_for_document_selection"):
        assert f"'{key}'" in exported
    assert "'irrelevant_chunk_penalty': 0.27" in exported
    assert "Tuned with the bm25" in page.locator(MAIN).inner_text()
    expander = page.locator("[data-testid='stExpander']").filter(has_text="Take these parameters")
    expander.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    expander.screenshot(path=str(ARTIFACTS / "tune_dsrag_export.png"))


def mark_answer_span(page, url: str) -> str:
    """On Evaluate, drag over the handbook's probation answer with the mouse; check the span the page
    reports is exactly the selection, and return the selected text. The "Add to my golden set" form
    is then open for that span."""
    page.set_viewport_size({"width": 1440, "height": 1000})
    text = load_document(ROOT / "sample_docs" / "employee_handbook.pdf").text
    page.goto(f"{url}/evaluate?docs=employee_handbook&scorer=bm25&q={QUERY.replace(' ', '+')}")
    wait_for_app(page, TIMEOUT)
    page.locator(SELECT_FRAME).wait_for(timeout=TIMEOUT)
    settle(page)
    page.locator(SELECT_FRAME).scroll_into_view_if_needed()
    frame = page.frame_locator(SELECT_FRAME)
    box = frame.locator("#text")
    box.wait_for(timeout=TIMEOUT)
    target = text.index("Every new employee serves")
    target_end = text.index("tenth week.") + len("tenth week.")
    # Where the answer's first and last characters are drawn, in page coordinates.
    rects = box.evaluate(
        """(pre, [start, end]) => {
            const node = pre.firstChild, range = document.createRange();
            range.setStart(node, start); range.setEnd(node, start + 1);
            range.startContainer.parentElement.scrollTop = 0;
            const line = range.getBoundingClientRect();
            pre.scrollTop = Math.max(0, line.top - pre.getBoundingClientRect().top - 40);
            const first = range.getBoundingClientRect();
            range.setStart(node, end - 1); range.setEnd(node, end);
            const last = range.getBoundingClientRect();
            return [first.left + 1, first.top + first.height / 2, last.right - 1, last.top + last.height / 2];
        }""",
        [target, target_end],
    )
    frame_box = page.locator(SELECT_FRAME).bounding_box()
    x0, y0, x1, y1 = rects
    page.mouse.move(frame_box["x"] + x0, frame_box["y"] + y0)
    page.mouse.down()
    page.mouse.move(frame_box["x"] + x1, frame_box["y"] + y1, steps=8)
    page.mouse.up()
    selected = box.evaluate("() => window.getSelection().toString()")
    label = page.locator("[data-testid='stExpander'] summary").filter(
        has_text=re.compile(r"Gold span: characters [\d,]+-")
    )
    label.wait_for(timeout=TIMEOUT)
    settle(page)
    start, end = (
        int(n.replace(",", "")) for n in re.search(r"characters ([\d,]+)-([\d,]+)", label.inner_text()).groups()
    )
    assert text[start:end] == selected  # the reported offsets are the selection, exactly
    assert abs(start - target) <= 1 and abs(end - target_end) <= 1
    return selected


def test_a_golden_set_made_by_selecting_text(page, url):
    mark_answer_span(page, url)
    box = page.frame_locator(SELECT_FRAME).locator("#text")
    page.get_by_label("Queries this span answers (one a line; each becomes a golden query)").fill(
        f"{QUERY}\nWhen does a new hire's probation end?"
    )
    page.get_by_role("button", name="Add to my golden set").click()
    page.get_by_text("Added q-01, q-02 to my golden set.").wait_for(timeout=TIMEOUT)
    settle(page)
    assert_clean(page)
    page.locator(SELECT_FRAME).scroll_into_view_if_needed()
    box.evaluate(  # the selection back in view inside the text box
        """pre => { const r = window.getSelection().getRangeAt(0).getBoundingClientRect();
                    pre.scrollTop += r.top - pre.getBoundingClientRect().top - 30; }"""
    )
    page.mouse.wheel(0, 150)
    page.wait_for_timeout(400)
    page.screenshot(path=str(ARTIFACTS / "tune_golden_by_selection.png"))


def test_a_golden_query_cannot_be_added_twice(page, url):
    """The same query (other case and spacing) for a second span is refused with a message, and the
    set keeps one answer for it."""
    mark_answer_span(page, url)
    form_queries = page.get_by_label("Queries this span answers (one a line; each becomes a golden query)")
    form_queries.fill("How long is the probation period?")
    page.get_by_role("button", name="Add to my golden set").click()
    page.get_by_text("Added q-01 to my golden set.").wait_for(timeout=TIMEOUT)
    settle(page)
    form_queries.fill("how long is  the PROBATION period?")
    page.get_by_role("button", name="Add to my golden set").click()
    page.get_by_text("is already q-01 in the golden set").wait_for(timeout=TIMEOUT)
    assert page.get_by_text("Added q-02").count() == 0
    assert_clean(page)
