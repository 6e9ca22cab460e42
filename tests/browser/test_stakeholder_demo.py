"""The stakeholder demo in a real browser, with a fake streaming LLM on 127.0.0.1: the answers side
by side, the segment on the page, the three-story Demo page, and the downloaded report opened with
the network cut off.

Screenshots in tests/artifacts/: answers_panel, page_view, demo_factoid_question, demo_broad_page,
demo_gapped_compare, demo_gapped_answers, report_offline, report_offline_pages.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.fake_llm import FakeLLM

from .conftest import ARTIFACTS, screenshot, streamlit_server, wait_for_app

pytestmark = pytest.mark.browser

TIMEOUT = 180_000
MAIN = "[data-testid='stMain']"
QUERY = "How long is the probation period for new hires?"


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLM]:
    with FakeLLM(delay=0.02) as fake:
        yield fake


@pytest.fixture(scope="module")
def demo_url(fake_llm, tmp_path_factory) -> Iterator[str]:
    """The app with the fake LLM configured through the environment, as a presenter would."""
    env = {
        **os.environ,
        "RSE_CACHE_DIR": str(tmp_path_factory.mktemp("rse-cache")),
        "HF_HUB_OFFLINE": "1",
        "OPENAI_BASE_URL": f"{fake_llm.url}/v1",
        "RSE_LLM_MODEL": "fake-model",
    }
    for name in ("OPENAI_API_KEY", "CO_API_KEY", "RSE_LLM_PROVIDER"):
        env.pop(name, None)
    with streamlit_server(tmp_path_factory.mktemp("streamlit-demo"), env) as url:
        yield url


def assert_clean(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in page.locator(MAIN).inner_text()


def settle(page) -> None:
    """Wait for the rerun to end: no status widget and no element left faded (stale) from the last run."""
    page.wait_for_timeout(500)
    wait_for_app(page, TIMEOUT)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=TIMEOUT)


def test_answers_stream_in_side_by_side(page, demo_url, fake_llm):
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{demo_url}/compare?docs=employee_handbook&q={QUERY.replace(' ', '+')}&scorer=minilm")
    wait_for_app(page, TIMEOUT)
    ask = page.get_by_role("button", name="Ask fake-model with each context")
    ask.wait_for(timeout=TIMEOUT)  # the first run loads the model and scores the document
    ask.scroll_into_view_if_needed()
    before = fake_llm.request_count
    ask.click()
    page.get_by_text("According to the context").nth(2).wait_for(timeout=TIMEOUT)
    settle(page)
    heading = page.get_by_role("heading", name="The answer each context gets")
    heading.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "answers_panel.png"))
    assert fake_llm.request_count - before == 4  # RSE, top-k, top-k at RSE's characters, window
    assert len(re.findall(r"tokens in, \d+ out", page.locator(MAIN).inner_text())) == 4
    assert_clean(page)

    # The report of this view, answers included, opened with every non-file request aborted.
    settle(page)
    button = page.get_by_role("button", name="Download report (HTML, opens offline)")
    button.scroll_into_view_if_needed()
    # One CI run on a fresh cache saw a click start no download (3 min; every local run and the
    # runs before it passed): a rerun replacing the button as it is clicked is the suspect. A
    # second click, as a person would give, must then work.
    for attempt in (1, 2):
        try:
            with page.expect_download(timeout=TIMEOUT // 2) as download_info:
                button.click()
            break
        except PlaywrightTimeoutError:
            if attempt == 2:
                raise
            settle(page)
    path = ARTIFACTS / "report.html"
    download_info.value.save_as(str(path))
    assert "According to the context" in path.read_text(encoding="utf-8")


def test_report_opens_offline(browser, demo_url):
    path = ARTIFACTS / "report.html"
    if not path.exists():
        pytest.skip("the answers test did not write the report")
    context = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
    blocked: list[str] = []

    def route(request_route):
        if request_route.request.url.startswith(("file:", "data:")):
            request_route.continue_()
        else:
            blocked.append(request_route.request.url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.resolve().as_uri())
    page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=30_000)
    assert page.locator(".js-plotly-plot").count() == 2
    images = page.locator("figure img")
    assert images.count() >= 1
    assert page.evaluate("() => [...document.images].every(img => img.complete && img.naturalWidth > 0)")
    assert "According to the context" in page.inner_text("body")
    assert blocked == [] and errors == []
    page.screenshot(path=str(ARTIFACTS / "report_offline.png"))
    page.locator("figure img").first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "report_offline_pages.png"))
    context.close()


def test_page_view_highlights_the_segment(page, demo_url):
    page.set_viewport_size({"width": 1440, "height": 1100})
    page.goto(f"{demo_url}/?docs=annual_report&scorer=minilm")  # Explore is the default page
    wait_for_app(page, TIMEOUT)
    panel = page.locator("[data-testid='stExpander']").filter(has_text="The segments on the page")
    panel.scroll_into_view_if_needed()
    panel.locator("[data-testid='stImage'] img").first.wait_for(timeout=TIMEOUT)
    assert panel.locator(".rse-thumbs img").count() == 35
    assert panel.locator(".rse-thumb.marked").count() >= 2
    assert_clean(page)
    assert page.get_by_text("Page not found").count() == 0
    box = panel.bounding_box()
    page.set_viewport_size({"width": 1440, "height": int(box["y"] + box["height"]) + 50})
    clip = {"x": box["x"], "y": box["y"], "width": box["width"], "height": min(box["height"], 1700)}
    page.screenshot(path=str(ARTIFACTS / "page_view.png"), clip=clip)


def test_demo_walks_three_stories(page, demo_url, fake_llm):
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{demo_url}/demo")
    wait_for_app(page, TIMEOUT)
    page.get_by_text("step 1 of 5").wait_for(timeout=TIMEOUT)
    settle(page)
    assert page.locator("[data-testid='stSidebar']").is_hidden()
    screenshot(page, "demo_factoid_question")

    def next_step(expected: int) -> None:
        page.get_by_role("button", name="Next").click()
        page.get_by_text(f"step {expected} of 5").wait_for(timeout=TIMEOUT)
        settle(page)

    def open_story(title: str) -> None:
        page.locator(MAIN).get_by_text(title, exact=True).click()
        page.get_by_text(f"{title} · step 1 of 5").wait_for(timeout=TIMEOUT)
        settle(page)

    open_story("A broad question: a whole section")
    next_step(2)
    next_step(3)
    page.locator("[data-testid='stImage'] img").first.wait_for(timeout=TIMEOUT)
    assert_clean(page)
    screenshot(page, "demo_broad_page")

    open_story("A coolant leak: what top-k drops")
    for expected in (2, 3, 4):
        next_step(expected)
    assert "leaves out" in page.locator(".rse-narration").inner_text()
    screenshot(page, "demo_gapped_compare")
    next_step(5)
    page.wait_for_function(  # both answers finished (each then shows the server's token counts)
        "() => (document.body.innerText.match(/tokens in, \\d+ out/g) || []).length >= 2", timeout=TIMEOUT
    )
    settle(page)
    assert "According to the context" in page.locator(MAIN).inner_text()
    assert_clean(page)
    screenshot(page, "demo_gapped_answers")
