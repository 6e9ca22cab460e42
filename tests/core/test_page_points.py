"""Points on a PDF page -> character offsets (a drag across the page view selects a gold span).

The expected spans come from PyMuPDF's own text search on the sample PDF, not from the glyph map
under test: a drag from the left edge of a found phrase to the right edge of another must select
exactly the document text between them.
"""

from __future__ import annotations

from functools import cache

import pymupdf
import pytest

from app_ui.samples import SAMPLE_DIR
from rse_core import load_document
from rse_core.documents.layout import PageLayout
from rse_core.documents.page_points import PagePoint, caret_offset, span_between
from rse_core.errors import PageViewTooLargeError
from tests.support.pdf_factory import make_pdf

HANDBOOK = SAMPLE_DIR / "employee_handbook.pdf"


@cache
def _document():
    return load_document(HANDBOOK)


def _found(page: int, phrase: str) -> pymupdf.Rect:
    """Where PyMuPDF's search finds ``phrase`` on 1-based ``page`` (first hit)."""
    with pymupdf.open(HANDBOOK) as pdf:
        hits = pdf[page - 1].search_for(phrase)
    assert hits, phrase
    return hits[0]


def _left(rect: pymupdf.Rect) -> PagePoint:
    return PagePoint(0, rect.x0 + 1, (rect.y0 + rect.y1) / 2)


def _right(rect: pymupdf.Rect) -> PagePoint:
    return PagePoint(0, rect.x1 - 1, (rect.y0 + rect.y1) / 2)


def _on(page: int, point: PagePoint) -> PagePoint:
    return PagePoint(page, point.x, point.y)


def test_a_drag_across_one_word_selects_that_word():
    document = _document()
    rect = _found(3, "probationary period of 120")
    span = span_between(document.layout, _on(3, _left(rect)), _on(3, _right(rect)))
    assert span is not None
    assert document.text[span[0] : span[1]] == "probationary period of 120"
    assert document.text.index("serves a probationary period of 120") + len("serves a ") == span[0]


def test_a_drag_over_several_lines_selects_the_text_between_in_reading_order():
    document = _document()
    first, last = _found(3, "Every new employee"), _found(3, "of your tenth week.")
    span = span_between(document.layout, _on(3, _left(first)), _on(3, _right(last)))
    assert span is not None
    selected = document.text[span[0] : span[1]]
    assert selected.startswith("Every new employee serves a probationary period of 120 calendar days")
    assert selected.endswith("at the end of your tenth week.")
    assert selected.count("\n") == 2  # three lines of the PDF


def test_a_drag_upwards_selects_the_same_span():
    document = _document()
    first, last = _found(3, "Every new employee"), _found(3, "of your tenth week.")
    down = span_between(document.layout, _on(3, _left(first)), _on(3, _right(last)))
    up = span_between(document.layout, _on(3, _right(last)), _on(3, _left(first)))
    assert down == up


def test_a_point_in_the_left_margin_is_the_start_of_its_line():
    document = _document()
    line = _found(3, "Every new employee")
    offset = caret_offset(document.layout, PagePoint(3, 5.0, (line.y0 + line.y1) / 2))
    assert document.text[offset:].startswith("Every new employee")


def test_a_point_right_of_a_line_is_after_its_last_character():
    document = _document()
    line = _found(3, "of your tenth week.")
    offset = caret_offset(document.layout, PagePoint(3, 590.0, (line.y0 + line.y1) / 2))
    assert document.text[:offset].endswith("of your tenth week.")


def test_a_drag_across_a_page_break_spans_both_pages():
    document = _document()
    pages = len(document.layout.page_starts)
    assert pages >= 4
    last_line = document.text[: document.layout.page_span(2)[1]].rstrip().rsplit("\n", 1)[-1]
    end_of_3 = _found(3, last_line[-12:])
    start_of_4 = document.text[document.layout.page_span(3)[0] :].split("\n", 1)[0]
    top_of_4 = _found(4, start_of_4[:12])
    span = span_between(document.layout, _on(3, _left(end_of_3)), _on(4, _right(top_of_4)))
    assert span is not None
    assert document.pages_of_span(*span) == (3, 4)
    selected = document.text[span[0] : span[1]]
    assert selected.startswith(last_line[-12:]) and selected.endswith(start_of_4[:12])


def test_a_click_without_a_drag_and_points_without_text_select_nothing():
    document = _document()
    rect = _found(3, "probationary")
    point = _on(3, _left(rect))
    assert span_between(document.layout, point, point) is None
    assert caret_offset(document.layout, PagePoint(0, 10, 10)) is None  # no page 0
    assert caret_offset(document.layout, PagePoint(999, 10, 10)) is None
    blank_second = load_document(make_pdf(["Some words on the first page.", ""]), name="two.pdf")
    assert caret_offset(blank_second.layout, PagePoint(2, 100, 100)) is None  # a page with no text
    assert caret_offset(blank_second.layout, PagePoint(1, 100, 100)) is not None


def test_the_glyph_bound_holds_for_a_selection_too():
    document = _document()
    source = document.layout
    small = PageLayout(source.source, document.text, source.page_starts, max_glyphs=50)
    with pytest.raises(PageViewTooLargeError):
        caret_offset(small, PagePoint(3, 100, 100))
