"""A page's drawing is bounded by what rasterising it would cost, measured before it is drawn: a
costly page is drawn at a lower resolution or refused with a message, never drawn in full."""

from __future__ import annotations

import pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rse_core import ParameterError, load_document
from rse_core.figures import page_view
from rse_core.figures.page_view import (
    MIN_DRAWN_ZOOM,
    DrawingLimits,
    PageDrawing,
    PaintCost,
    draw_page,
    png_size,
    render_pages,
)
from tests.support.pdf_factory import make_pdf, make_stroke_heavy_pdf

TEXT = "The pump runs at a steady pace and the valves open in turn as the pressure builds. " * 4


@pytest.fixture
def rasterised(monkeypatch) -> list[tuple[int, float]]:
    """(content bytes of the page, zoom) of every page PyMuPDF rasterises."""
    seen: list[tuple[int, float]] = []
    original = pymupdf.Page.get_pixmap

    def recording(page, *args, matrix=None, **kwargs):
        seen.append((len(page.read_contents()), matrix.a if matrix is not None else 1.0))
        return original(page, *args, matrix=matrix, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_pixmap", recording)
    return seen


def test_a_page_of_thousands_of_thick_strokes_is_refused_without_being_rasterised(rasterised):
    source = make_stroke_heavy_pdf(7_000, text=TEXT)
    drawn = draw_page(source, PageDrawing(1, ()), 1.5, DrawingLimits())
    assert drawn.refused and drawn.zoom == 0
    assert "too costly to draw" in drawn.note and "Read its text" in drawn.note and "RSE_MAX_PAGE_PAINT" in drawn.note
    assert png_size(drawn.png) == (357, 506)  # a notice of the page's shape, at NOTICE_ZOOM (0.6) at most
    assert all(content < 10_000 for content, _ in rasterised), "the costly page itself was rasterised"


def test_a_moderately_costly_page_is_drawn_at_the_resolution_its_budget_allows(rasterised):
    source = make_stroke_heavy_pdf(1_000, text=TEXT)
    drawn = draw_page(source, PageDrawing(1, ()), 1.5, DrawingLimits())
    assert not drawn.refused and MIN_DRAWN_ZOOM <= drawn.zoom < 1.5
    assert "of the resolution asked for" in drawn.note
    width, _ = png_size(drawn.png)
    assert abs(width - 595 * drawn.zoom) <= 1
    assert [zoom for _, zoom in rasterised] == [drawn.zoom]  # drawn once, at the reduced zoom only
    assert PaintCost.of_page(pymupdf.open(stream=source)[0]).at(drawn.zoom) <= DrawingLimits().max_paint + 1


def test_an_ordinary_page_is_drawn_as_asked(tmp_path):
    source = make_pdf([TEXT, TEXT])
    drawn = draw_page(source, PageDrawing(2, ()), 4.0, DrawingLimits())
    assert (drawn.zoom, drawn.note) == (4.0, "") and png_size(drawn.png)[0] == 2380


def test_the_budget_comes_from_the_environment(tmp_path, monkeypatch):
    path = tmp_path / "strokes.pdf"
    path.write_bytes(make_stroke_heavy_pdf(300, text=TEXT))
    document = load_document(path)
    assert png_size(render_pages(document, [1], [], zoom=1.5)[0])[0] < 893  # the default lowers it
    monkeypatch.setenv("RSE_MAX_PAGE_PAINT", "100000000000")
    assert png_size(render_pages(document, [1], [], zoom=1.5)[0])[0] == 893
    monkeypatch.setenv("RSE_MAX_PAGE_PAINT", "1000")
    assert DrawingLimits.from_environment().max_paint == 1000
    monkeypatch.setenv("RSE_MAX_PAGE_PAINT", "lots")
    with pytest.raises(ParameterError, match="RSE_MAX_PAGE_PAINT"):
        render_pages(document, [1], [])


@given(
    operations=st.integers(0, 10**6),
    area=st.floats(0, 1e12),
    zoom=st.floats(0.1, 4.0),
    budget=st.integers(1, 10**10),
)
def test_the_affordable_zoom_is_the_zoom_asked_or_a_lower_one_within_budget_or_a_refusal(
    operations, area, zoom, budget
):
    cost = PaintCost(operations, area, 595, 842)
    fitted = cost.affordable_zoom(zoom, budget)
    if cost.at(zoom) <= budget:
        assert fitted == zoom
    elif fitted:
        assert MIN_DRAWN_ZOOM <= fitted < zoom and cost.at(fitted) <= budget * (1 + 1e-9)
    else:
        assert cost.at(MIN_DRAWN_ZOOM) > budget * (1 - 1e-9)


def test_the_paint_cost_counts_every_operation_and_the_area_it_covers_on_the_page():
    cost = PaintCost.of_page(pymupdf.open(stream=make_stroke_heavy_pdf(10))[0])
    assert cost.operations == 10
    assert cost.area == pytest.approx(10 * 595 * 842)  # each stroke's box is the whole page, clipped to it
    assert page_view.PAINT_PER_OPERATION * 10 + cost.area * 4 == cost.at(2.0)
