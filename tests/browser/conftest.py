"""A real app in a real browser: Streamlit on 127.0.0.1 and Debian's headless Chromium.

Screenshots go to ``tests/artifacts/`` so a person can look at what the tests saw.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.streamlit_process import (
    CHART_DRAWN_JS,
    ServerStartError,
    free_port,
    running_server,
    streamlit_command,
)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextlib.contextmanager
def streamlit_server(log_dir: Path, env: dict[str, str]) -> Iterator[str]:
    """``streamlit run app.py`` on a free loopback port with ``env``; yields its URL, stops it after."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    try:
        with running_server(
            streamlit_command(port, ROOT / "app.py"), url=url, cwd=ROOT, env=env, log=log_dir / "server.log", timeout=90
        ):
            yield url
    except ServerStartError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="session")
def app_url(tmp_path_factory) -> Iterator[str]:
    """The app on a free loopback port for the whole test session."""
    env = {**os.environ, "RSE_CACHE_DIR": str(tmp_path_factory.mktemp("rse-cache")), "HF_HUB_OFFLINE": "1"}
    with streamlit_server(tmp_path_factory.mktemp("streamlit"), env) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture
def projector(browser):
    """A fresh browser context at a projector's 1280x720."""
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def page(browser):
    """A fresh browser context per test (no shared cookies or storage), 1440x900."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs  # tests assert that no script opened a dialog
    yield page
    context.close()


def screenshot(page, name: str) -> Path:
    """Save a full-page PNG under tests/artifacts/ and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# Explore's value chart is a live chart (``app_ui.live_chart``): a component frame named after it.
LIVE_CHART_FRAME = "iframe[title='app_ui.live_chart.live_chart']"


def value_chart(page):
    """The live value chart's frame (a Playwright FrameLocator): locate bars and legends inside it."""
    return page.frame_locator(LIVE_CHART_FRAME).first


def wait_for_value_chart(page, timeout: float = 120_000) -> None:
    """Until the live value chart has drawn its plot."""
    value_chart(page).locator(".js-plotly-plot .main-svg").first.wait_for(timeout=timeout)


def wait_for_any_chart(page, timeout: float = 120_000) -> None:
    """Until a Plotly chart is drawn, in the page (``st.plotly_chart``) or in a live chart's frame."""
    page.wait_for_function(CHART_DRAWN_JS, timeout=timeout, polling=100)


def chart_layer_switch(page, label: str):
    """Explore's switch ``label`` in its "Chart layers" popover, opening the popover when it is closed."""
    switch = page.get_by_text(label, exact=True)
    if not switch.is_visible():
        page.get_by_role("button", name="Chart layers").click()
        switch.wait_for()
    return switch


def press_slider_up_to(slider, value: float) -> None:
    """Press the right arrow on ``slider`` (a range input's locator) until it reads ``value``: on a
    busy machine a rerun can start between presses and one may be lost, so count what the slider
    shows rather than the presses sent."""
    for _ in range(40):
        if float(slider.input_value()) >= value - 1e-9:
            return
        slider.focus()
        slider.press("ArrowRight")
        slider.page.wait_for_timeout(150)


def wait_for_app(page, timeout: float = 120_000) -> None:
    """Wait until Streamlit has finished running the script (no 'Running...' status)."""
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
        timeout=timeout,
    )
