"""Switching the retriever on Explore in a real browser: an embedding endpoint the operator named
(a local fake speaking OpenAI's /v1/embeddings) replaces bm25, and the document and the query stay.

Screenshot: tests/artifacts/explore_retriever_switched.png (1280x720).
"""

from __future__ import annotations

import os

import pytest

from tests.support.fake_embeddings import FakeEmbeddings

from .conftest import screenshot, streamlit_server, wait_for_any_chart, wait_for_app

pytestmark = pytest.mark.browser

TIMEOUT = 120_000
SIDEBAR = "[data-testid='stSidebar']"
MAIN = "[data-testid='stMain']"
QUERY = "How are the battery cells kept at an even temperature?"


@pytest.fixture(scope="module")
def endpoint():
    with FakeEmbeddings() as server:
        yield server


@pytest.fixture(scope="module")
def picker_url(tmp_path_factory, endpoint):
    env = {
        **os.environ,
        "RSE_CACHE_DIR": str(tmp_path_factory.mktemp("rse-cache")),
        "HF_HUB_OFFLINE": "1",
        "RSE_EMBEDDERS": f"openai:fake-embed@{endpoint.url}/v1",
        "OPENAI_API_KEY": "test-key-not-real",
    }
    env.pop("CO_API_KEY", None)
    with streamlit_server(tmp_path_factory.mktemp("streamlit-picker"), env) as url:
        yield url


def settle(page) -> None:
    page.wait_for_timeout(500)
    wait_for_app(page, TIMEOUT)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=TIMEOUT)
    wait_for_any_chart(page, TIMEOUT)


def test_switching_to_an_operator_endpoint_keeps_document_and_query(page, picker_url, endpoint):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{picker_url}/?scorer=bm25", wait_until="domcontentloaded")
    settle(page)
    box = page.locator(f"{SIDEBAR} textarea[aria-label='Query']")
    box.fill(QUERY)
    box.press("Control+Enter")
    settle(page)
    documents = page.locator(f"{SIDEBAR} [data-testid='stMultiSelect']").first.inner_text()
    assert endpoint.request_count == 0

    page.locator(f"{SIDEBAR} [data-testid='stSelectbox']").filter(has_text="Scorer").first.get_by_role(
        "combobox"
    ).click()
    page.keyboard.press("ArrowDown")  # a click focuses the box; the key opens its list
    options = page.get_by_role("option")
    options.first.wait_for()
    assert "openai:fake-embed" in options.all_inner_texts()
    assert endpoint.url.split("//")[1] not in " ".join(options.all_inner_texts())  # shown by model name only
    page.get_by_role("option", name="openai:fake-embed").click()
    settle(page)
    scorer = page.locator(f"{SIDEBAR} [data-testid='stSelectbox']").filter(has_text="Scorer").first
    assert "openai:fake-embed" in scorer.inner_html()

    assert endpoint.request_count > 0  # the chunks and the query went to the operator's endpoint
    assert box.input_value() == QUERY
    assert page.locator(f"{SIDEBAR} [data-testid='stMultiSelect']").first.inner_text() == documents
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(f"{MAIN} [data-testid='stAlertContentError']").count() == 0
    path = screenshot(page, "explore_retriever_switched")
    page.screenshot(path=str(path.with_name("explore_retriever_switched_viewport.png")))
