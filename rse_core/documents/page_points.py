"""From points on a PDF page to character offsets in ``Document.text``: what a drag across a
rendered page selects.

Why: a gold span marked on the page image must be the exact characters of the text the scorer
read, not a search for the words seen (a repeated phrase would match the wrong place). The glyph
map (:mod:`rse_core.documents.layout`) gives every character its box on its page, so a point maps
to the caret nearest it, and a drag from one point to another to the characters between the two
carets, in text order, as a PDF viewer selects. Only the pages pointed at are read, within
``RSE_MAX_GLYPHS``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rse_core.documents.layout import PageLayout


@dataclass(frozen=True)
class PagePoint:
    """A point on 1-based ``page``, in PDF points from the page's top-left corner."""

    page: int
    x: float
    y: float


def caret_offset(layout: PageLayout, point: PagePoint) -> int | None:
    """Offset in ``Document.text`` of the caret nearest ``point``, or ``None`` if its page has no
    glyph (a scanned page) or does not exist.

    The nearest glyph is the one on the nearest text line (vertical distance first), then the
    nearest along it; the caret goes before it when the point is left of its middle and after it
    otherwise (after both letters of a ligature, which share a glyph).

    Raises:
        PageViewTooLargeError: the page alone holds more characters than ``RSE_MAX_GLYPHS``.
    """
    if not 1 <= point.page <= layout.page_count:
        return None
    data = layout.page_glyphs(point.page - 1)
    boxes = data.boxes
    drawn = np.flatnonzero(~np.isnan(boxes).any(axis=1))
    if not len(drawn):
        return None
    x0, y0, x1, y1 = boxes[drawn].T
    dy = np.maximum.reduce([y0 - point.y, np.zeros_like(y0), point.y - y1])
    dx = np.maximum.reduce([x0 - point.x, np.zeros_like(x0), point.x - x1])
    nearest = int(drawn[np.lexsort((dx, dy))[0]])  # the nearest line, then the nearest glyph on it
    index = nearest
    if point.x > (boxes[nearest, 0] + boxes[nearest, 2]) / 2:
        index += 1
        while index < len(data.glyph) and data.glyph[index] == data.glyph[nearest]:
            index += 1  # the other letters of a ligature
    page_start, _ = layout.page_span(point.page - 1)
    return page_start + index


def span_between(layout: PageLayout, a: PagePoint, b: PagePoint) -> tuple[int, int] | None:
    """Characters ``start, end`` between the carets nearest ``a`` and ``b`` (either may come first
    in the text), or ``None`` when they meet or a point has no caret."""
    first, second = caret_offset(layout, a), caret_offset(layout, b)
    if first is None or second is None or first == second:
        return None
    return min(first, second), max(first, second)
