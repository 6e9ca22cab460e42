"""A tuner's work survives the trip to other pages, in a real browser at 1280x720: an uploaded
document stays selected, the query and a moved slider are kept, and the upload is not embedded
again on the way back.

The observable for "not embedded again": this server keeps upload embeddings on disk
(``RSE_UPLOAD_DISK_CACHE=1``) and every embedding of chunks is written there at once (replaced
whole), so a file of that folder left untouched, and no file added, means no chunk was embedded.

Screenshots in tests/artifacts/: work_kept_before, work_kept_evaluate, work_kept_after.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import ARTIFACTS, press_slider_up_to, streamlit_server, wait_for_app, wait_for_value_chart

pytestmark = pytest.mark.browser

TIMEOUT = 180_000
MAIN = "[data-testid='stMain']"
SIDEBAR = "[data-testid='stSidebar']"
QUERY = "How far do zebras migrate each year?"
PENALTY = "input[type='range'][aria-label='Irrelevant chunk penalty']"
NOTES = (
    "Zebra herds of the Serengeti migrate clockwise every year, following the rains. " * 6
    + "During the migration zebras cover about 800 kilometres a year and cross the Mara river. " * 6
    + "An appendix about office printers, toner cartridges and paper jams. " * 20
)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """The app with its own cache folder, keeping upload embeddings on disk where the test can see them."""
    cache = tmp_path_factory.mktemp("rse-cache-work")
    env = {**os.environ, "RSE_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "RSE_UPLOAD_DISK_CACHE": "1"}
    with streamlit_server(tmp_path_factory.mktemp("streamlit-work"), env) as url:
        yield url, cache


def settle(page) -> None:
    page.wait_for_timeout(500)
    wait_for_app(page, TIMEOUT)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=TIMEOUT)


def embeddings_written(cache: Path) -> dict[str, tuple[int, int]]:
    """Each embedding file in the cache, with its inode and modification time (a new write replaces both)."""
    folder = cache / "embeddings"
    if not folder.is_dir():
        return {}
    return {path.name: (path.stat().st_ino, path.stat().st_mtime_ns) for path in folder.glob("*.npy")}


def open_from_the_sidebar(page, title: str) -> None:
    page.locator(f"{SIDEBAR} [data-testid='stSidebarNav'] a", has_text=title).first.click()
    settle(page)


def assert_work_kept(page) -> None:
    """The upload selected and drawn, the query and the moved slider as the user left them."""
    wait_for_value_chart(page, TIMEOUT)
    settle(page)
    main = page.locator(MAIN).inner_text()
    assert "No document selected" not in main
    page.locator(".rse-text", has_text="zebras cover about 800").first.wait_for(timeout=TIMEOUT)
    assert page.locator(f"{SIDEBAR} textarea[aria-label='Query']").input_value() == QUERY
    assert float(page.locator(f"{SIDEBAR} {PENALTY}").input_value()) == pytest.approx(0.35)
    assert "zebra_notes.txt" in page.locator(SIDEBAR).inner_text()


def test_upload_query_and_slider_survive_page_switches_without_embedding_again(page, server):
    url, cache = server
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{url}/?docs=employee_handbook&scorer=minilm")
    wait_for_value_chart(page, TIMEOUT)
    settle(page)
    page.locator(f"{SIDEBAR} input[type='file']").set_input_files(
        files=[{"name": "zebra_notes.txt", "mimeType": "text/plain", "buffer": NOTES.encode()}]
    )
    settle(page)
    box = page.locator(f"{SIDEBAR} textarea[aria-label='Query']")
    box.fill(QUERY)
    box.press("Control+Enter")
    settle(page)
    press_slider_up_to(page.locator(f"{SIDEBAR} {PENALTY}"), 0.35)
    settle(page)
    assert_work_kept(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "work_kept_before.png"))
    embedded = embeddings_written(cache)
    assert embedded, "the upload's embeddings were written to the cache"

    open_from_the_sidebar(page, "Evaluate")
    page.get_by_role("heading", name="Evaluate").first.wait_for(timeout=TIMEOUT)
    settle(page)
    assert "No document selected" not in page.locator(MAIN).inner_text()
    page.screenshot(path=str(ARTIFACTS / "work_kept_evaluate.png"))

    open_from_the_sidebar(page, "Explore")
    assert_work_kept(page)

    # An in-app link (the Demo's exit asks for Explore from inside the page) keeps it all too.
    open_from_the_sidebar(page, "Demo")
    page.get_by_text("step 1 of 5").wait_for(timeout=TIMEOUT)
    settle(page)
    page.get_by_role("button", name="Exit demo").click()
    assert_work_kept(page)
    page.screenshot(path=str(ARTIFACTS / "work_kept_after.png"))
    assert embeddings_written(cache) == embedded  # nothing embedded on any return
