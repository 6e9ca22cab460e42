"""A Plotly chart the browser updates in place, for the charts a slider redraws on every move.

``st.plotly_chart`` (Streamlit 1.67) hashes the figure into the element's identity even when a
``key`` is given, so each changed figure is a new chart in the browser: the old one is purged and
the new one drawn hidden, shown and laid out again (170-300 ms of a 435 ms slider move at 125
chunks, measured with ``bench/browser_speed.py``). A custom component keeps its identity by key,
so its frame stays and ``Plotly.react`` redraws only what changed (and keeps the reader's zoom).

The frontend (``live_chart_frontend/``) needs plotly.js beside it, and Streamlit serves a
component's files only from inside its folder; so the folder is assembled once per version in the
cache directory: our two files plus the ``plotly.min.js`` the installed ``plotly`` package ships.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, TypedDict

import streamlit as st
import streamlit.components.v1 as st_components

from rse_core.scoring.embedding_cache import default_cache_dir

LOGGER = logging.getLogger(__name__)
FRONTEND = Path(__file__).with_name("live_chart_frontend")
FRONTEND_FILES = ("index.html", "live_chart.js")
COMPONENT_NAME = "live_chart"
DEFAULT_HEIGHT = 450


class ChartClick(TypedDict):
    """A clicked bar: its x value, its trace's index, and the click's time (ms) so repeats differ."""

    x: Any
    curve: int
    at: int


_CLICK_FIELDS = frozenset(ChartClick.__annotations__)


def is_click(value: object) -> bool:
    """``None`` or a click as the frontend sends it: a small dict of numbers (x may be a short string)."""
    if value is None:
        return True
    if not isinstance(value, dict) or not set(value) <= _CLICK_FIELDS:
        return False
    return all(
        isinstance(item, (int, float)) or (name == "x" and isinstance(item, str) and len(item) <= 100)
        for name, item in value.items()
    )


def plotly_js() -> Path:
    """The minified plotly.js inside the installed ``plotly`` package (found without importing it)."""
    spec = importlib.util.find_spec("plotly")
    if spec is None or spec.origin is None:
        raise RuntimeError("the plotly package is not installed (pip install -r requirements.txt)")
    return Path(spec.origin).parent / "package_data" / "plotly.min.js"


def assemble_frontend(cache_root: Path) -> Path:
    """The component folder under ``cache_root``, made if missing; named by a digest of its files.

    Made in a staging folder and renamed into place, so two servers starting at once never serve
    a half-copied folder.
    """
    library = plotly_js()
    digest = hashlib.sha256()
    for name in FRONTEND_FILES:
        digest.update((FRONTEND / name).read_bytes())
    digest.update(f"{library.stat().st_size}:{library.stat().st_mtime_ns}".encode())
    folder = cache_root / "live_chart" / digest.hexdigest()[:16]
    if (folder / "index.html").is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder.parent))
    for name in FRONTEND_FILES:
        shutil.copyfile(FRONTEND / name, staging / name)
    shutil.copyfile(library, staging / "plotly.min.js")
    try:
        os.rename(staging, folder)
    except OSError:  # another process put it there first
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def _frontend_folder() -> Path:
    try:
        return assemble_frontend(default_cache_dir())
    except OSError as error:  # a read-only home: a folder of this process's own
        LOGGER.warning("cache directory not writable (%s); the chart's files go to a temporary folder", error)
        return assemble_frontend(Path(tempfile.mkdtemp(prefix="rse-live-chart-")))


_COMPONENT = st_components.declare_component(COMPONENT_NAME, path=str(_frontend_folder()))


def live_plotly_chart(figure, *, key: str, config: dict[str, object] | None = None) -> ChartClick | None:
    """Draw ``figure`` (a Plotly figure) under ``key``; return the last bar clicked, if any.

    The click is also in ``st.session_state[key]``. Args are the figure's own JSON (what
    ``st.plotly_chart`` would send), so tests read the spec back as they read a Plotly chart's.
    """
    height = figure.layout.height or DEFAULT_HEIGHT
    if key in st.session_state and not is_click(st.session_state[key]):
        # The value is whatever the frame posted: anything but a click (a 900-level nested list
        # made Streamlit's own widget bookkeeping recurse until the session broke) is dropped.
        del st.session_state[key]
    return _COMPONENT(spec=figure.to_json(), config=config or {}, height=int(height), key=key, default=None)
