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

import base64
import hashlib
import importlib.util
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
import plotly.graph_objects as go
import streamlit.components.v1 as st_components
from _plotly_utils.utils import to_typed_array_spec
from plotly.io.json import to_json_plotly

from rse_core.scoring.embedding_cache import default_cache_dir

from .page_state.component_values import drop_value_unless

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


@dataclass(frozen=True)
class ScreenFit:
    """Shrink the chart to what is left of the browser's first screen below its top, to ``min`` pixels at
    least and ``margin`` pixels above the screen's bottom edge (its figure's height at most)."""

    min: int = 300
    margin: int = 12


def live_plotly_chart(
    figure: go.Figure | dict, *, key: str, config: dict[str, object] | None = None, fit: ScreenFit | None = None
) -> ChartClick | None:
    """Draw ``figure`` (a Plotly figure, or its ``{"data", "layout"}`` as plain data) under
    ``key``; return the last bar clicked, if any.

    The click is also in ``st.session_state[key]``. Args are the figure's own JSON (what
    ``st.plotly_chart`` would send), so tests read the spec back as they read a Plotly chart's.
    With ``fit``, the browser keeps the whole chart in the first screen (a laptop or projector's 720 pixels).
    """
    height = (figure["layout"].get("height") if isinstance(figure, dict) else figure.layout.height) or DEFAULT_HEIGHT
    drop_value_unless(key, is_click)  # anything but a click the frame posted
    fitted = None if fit is None else {"min": fit.min, "margin": fit.margin}
    return _COMPONENT(
        spec=figure_json(figure), config=config or {}, height=int(height), fit=fitted, key=key, default=None
    )


_NOT_TYPED = frozenset({"geojson", "layer", "layers", "range"})  # keys plotly never turns into typed arrays


def figure_json(figure: go.Figure | dict) -> str:
    """``figure.to_json()``, the same string, in a third of the time (for plain data: the JSON
    plotly would write for ``go.Figure(**figure)``, keys in the order given).

    Why: ``to_json`` deep-copies the whole figure, then asks of every value whether it is a
    pandas, narwhals or numpy array (4-5 ms of a slider move at 125 chunks). The figures here are
    built without validation from numpy arrays, lists and plain values, so a walk that turns the
    numpy arrays into plotly's typed arrays (with plotly's own function) makes the same JSON
    without copying (a test compares the two). A figure without the attributes read here
    (another plotly version) takes ``to_json``.
    """
    if isinstance(figure, dict):
        data, layout = figure["data"], figure["layout"]
    else:
        data, layout = getattr(figure, "_data", None), getattr(figure, "_layout", None)
    if not isinstance(data, list) or not isinstance(layout, dict):
        return figure.to_json()
    traces = [{key: value for key, value in _typed(trace).items() if key != "uid"} for trace in data]
    return to_json_plotly({"data": traces, "layout": _typed(layout)})


def _typed(value: object) -> object:
    """``value`` with each numpy array held in a dict replaced by its typed-array spec, as
    plotly's ``convert_to_base64`` does in place (arrays directly in a list stay as they are)."""
    if isinstance(value, dict):
        return {
            key: item if key in _NOT_TYPED else (_typed_array(item) if isinstance(item, np.ndarray) else _typed(item))
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_typed(item) for item in value]
    return value


_SHORT_TYPES = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4", "uint32": "u4"}
_SHORT_TYPES |= {"float32": "f4", "float64": "f8"}


def _typed_array(array: np.ndarray) -> object:
    """plotly's ``to_typed_array_spec`` for a numeric array (a list for text), without its checks
    for other array libraries (0.05 ms an array, two dozen arrays a chart); anything else goes to
    plotly's."""
    if array.dtype.kind in "OU" and array.ndim == 1:  # hover texts: plotly writes them as a list, after checks
        return array.tolist()
    if array.size == 0 or array.dtype.kind not in "iuf":
        return to_typed_array_spec(array)
    if array.dtype == np.int64 or array.dtype == np.uint64:  # plotly.js has no 64-bit integers: narrow, as plotly does
        low, high = int(array.min()), int(array.max())
        signed = array.dtype == np.int64
        for narrow in (np.int8, np.int16, np.int32) if signed else (np.uint8, np.uint16, np.uint32):
            if np.iinfo(narrow).min <= low and high <= np.iinfo(narrow).max:
                array = array.astype(narrow)
                break
        else:
            return array
    short = _SHORT_TYPES.get(str(array.dtype))
    if short is None:
        return to_typed_array_spec(array)
    spec: dict[str, str] = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(array)).decode("ascii")}
    if array.ndim > 1:
        spec["shape"] = str(array.shape)[1:-1]
    return spec
