"""Shared helpers for AppTest-based page tests."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_ui import keys
from app_ui.page_catalog import DEFAULT_PAGE
from tests.support.browser_reruns import BrowserReruns, browser_reruns  # noqa: F401  (re-exported)

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 120


@contextmanager
def own_cache(folder: Path, **environment: str | None) -> Iterator[Path]:
    """``RSE_CACHE_DIR`` at ``folder`` (a module's bundled base is built there once) and the other
    variables set (``None``: removed), for a module-scoped fixture; undone after."""
    patch = pytest.MonkeyPatch()
    patch.setenv("RSE_CACHE_DIR", str(folder))
    for name, value in environment.items():
        if value is None:
            patch.delenv(name, raising=False)
        else:
            patch.setenv(name, value)
    try:
        yield folder
    finally:
        patch.undo()


def new_app(**query_params: str) -> AppTest:
    """An AppTest of app.py with these URL parameters (bm25 unless a scorer is given)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.setdefault("scorer", "bm25")
    for name, value in query_params.items():
        at.query_params[name] = value
    return at


def open_page(at: AppTest, url_path: str) -> AppTest:
    """Switch to a callable page registered by ``st.navigation`` and run (the default page by
    ``""`` or by its own URL path in the catalog, as Streamlit registers it at ``""``).

    ``AppTest.switch_page`` only knows file pages; a callable page is identified by the hash
    Streamlit registered for its URL path, which is what a browser's navigation sends.
    """
    url_path = "" if url_path == DEFAULT_PAGE.url_path else url_path
    matches = [h for h, info in at._registered_pages.items() if info.get("url_pathname") == url_path]
    assert matches, f"no page with URL path {url_path!r}: {at._registered_pages}"
    at._page_hash = matches[0]
    return at.run()


def result_of(at: AppTest):
    return at.session_state[keys.RUN_STATE].result


def html_text(at: AppTest) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def chart_specs(at: AppTest) -> list[dict]:
    """Every Plotly figure on the page in page order: ``st.plotly_chart`` and live charts alike."""
    specs = []
    for element in at:  # the whole tree, in page order
        if element.type == "plotly_chart":
            specs.append(json.loads(element.proto.spec))
        elif element.type == "component_instance" and element.proto.component_name.endswith(".live_chart"):
            specs.append(json.loads(json.loads(element.proto.json_args)["spec"]))
    return specs


def live_charts(at: AppTest) -> list:
    """The live chart elements (``app_ui.live_chart``), e.g. to set a click with ``set_value``."""
    return [e for e in at.get("component_instance") if e.proto.component_name.endswith(".live_chart")]


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
MESSAGE_KINDS = ("error", "warning", "info", "success", "markdown", "caption", "toast")


def rendered(markdown: str) -> str:
    """What a Markdown source shows as text, as far as backslash escapes go (``a\\_b`` -> ``a_b``).

    Messages escape user text (``app_ui.safe_text.md``); tests compare what the reader sees.
    """
    return _ESCAPED.sub(r"\1", markdown)


def messages(at: AppTest, kind: str) -> list[str]:
    """The rendered text of every ``kind`` element (``"info"``, ``"error"``, ...)."""
    return [rendered(str(element.value)) for element in at.get(kind)]


def all_text(at: AppTest) -> str:
    """Every string the page shows: messages, markdown, html, code, captions, metrics, widgets."""
    parts = [
        rendered(str(e.value)) if kind in MESSAGE_KINDS else e.value
        for kind in ("error", "warning", "info", "success", "markdown", "caption", "code", "text")
        for e in at.get(kind)
    ]
    parts += [html_text(at)] + [str(m.value) for m in at.metric]
    parts += [str(getattr(w, "value", "")) for w in at.text_input if w.key != "sb_cohere_api_key"]
    return "\n".join(str(part) for part in parts)


def no_problems(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
