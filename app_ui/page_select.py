"""Select a gold span on a PDF's rendered pages: drag from the answer's first word to its last.

Why a component: Streamlit's image element reports no pointer, and the segment text box
(:mod:`app_ui.text_select`) is not where a reader finds an answer in a long PDF: the page is. The
frontend (``page_select_frontend/``) shows the page images and reports the drag's two ends as the
page and the fraction of its image they fell on; here they become PDF points and, through the
glyph map (:mod:`rse_core.documents.page_points`), character offsets, so the span is exactly
``document.text[start:end]``, the same as a text selection gives.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from pathlib import Path

import streamlit.components.v1 as st_components

from rse_core import Document
from rse_core.documents.page_points import PagePoint, span_between
from rse_core.figures.page_view import png_size

from .page_state.component_values import drop_value_unless
from .text_select import TextSpan

FRONTEND = Path(__file__).with_name("page_select_frontend")
DEFAULT_HEIGHT = 760

_COMPONENT = st_components.declare_component("page_select", path=str(FRONTEND))


_DRAG_FIELDS, _END_FIELDS = frozenset({"a", "b", "at"}), frozenset({"page", "x", "y"})


def is_drag(value: object) -> bool:
    """``None`` or a drag as the frontend sends it: ends ``a`` and ``b``, each a small dict of
    numbers, and ``at``, a number (whether the ends lie on the document is :func:`drag_points`'s
    to check)."""
    if value is None:
        return True
    if not isinstance(value, dict) or set(value) != _DRAG_FIELDS or not _number(value["at"]):
        return False
    ends = (value["a"], value["b"])
    return all(isinstance(end, dict) and set(end) <= _END_FIELDS and all(map(_number, end.values())) for end in ends)


def _number(item: object) -> bool:
    return isinstance(item, (int, float))


def select_on_pages(pages: Sequence[tuple[int, bytes]], *, key: str, height: int = DEFAULT_HEIGHT) -> object:
    """Show ``(page, PNG)`` images for dragging across; returns the last drag's raw value
    (``{"a": {page, x, y}, "b": {...}, "at"}``); read it with :func:`span_from_value`."""
    drop_value_unless(key, is_drag)  # anything but a drag the frame posted
    shown = [
        {
            "page": page,
            "src": "data:image/png;base64," + base64.b64encode(image).decode("ascii"),
            "size": png_size(image),  # laid out before it loads
        }
        for page, image in pages
    ]
    return _COMPONENT(pages=shown, height=height, key=key, default=None)


def drag_points(value: object, page_count: int) -> tuple[tuple[int, float, float], tuple[int, float, float]] | None:
    """The drag's two ends as ``(page, x, y)`` fractions, if the value is a valid drag.

    The value comes from the browser, so it is checked like any input: each end a page of the
    document (a whole number) and two finite numbers in ``[0, 1]``.
    """
    if not isinstance(value, dict):
        return None
    ends = []
    for name in ("a", "b"):
        end = value.get(name)
        if not isinstance(end, dict):
            return None
        page, x, y = end.get("page"), end.get("x"), end.get("y")
        if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= page_count:
            return None
        if not all(_fraction(number) for number in (x, y)):
            return None
        ends.append((page, float(x), float(y)))
    return ends[0], ends[1]


def _fraction(number: object) -> bool:
    return (
        not isinstance(number, bool) and isinstance(number, (int, float)) and math.isfinite(number) and 0 <= number <= 1
    )


def span_from_value(value: object, document: Document) -> TextSpan | None:
    """The characters a drag on ``document``'s pages selects, or ``None`` (no drag, a bad value,
    a click, a page with no text).

    Raises:
        PageViewTooLargeError: a page pointed at holds more characters than ``RSE_MAX_GLYPHS``.
    """
    layout = document.layout
    if layout is None:
        return None
    ends = drag_points(value, layout.page_count)
    if ends is None:
        return None
    points = []
    for page, x, y in ends:
        width, height = layout.page_sizes[page - 1]
        points.append(PagePoint(page, x * width, y * height))
    span = span_between(layout, points[0], points[1])
    return None if span is None else TextSpan(*span)
