"""The page view reads glyphs only for the pages it shows, keeps a bounded number, and renders a
bounded number of pixels per page."""

from __future__ import annotations

import struct

import pytest

from rse_core import load_document
from rse_core.documents import layout as layout_module
from rse_core.errors import PageViewTooLargeError
from rse_core.figures.page_view import Mark, fitted_zoom, highlighted_glyphs, render_pages, render_thumbnails
from tests.support.pdf_factory import make_pdf, make_sized_pdf

PAGE_TEXT = "The pump runs at a steady pace and the valves open in turn as the pressure builds. " * 6


def png_size(data: bytes) -> tuple[int, int]:
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def long_pdf(tmp_path):
    path = tmp_path / "long.pdf"
    path.write_bytes(make_pdf([f"Page {n}. {PAGE_TEXT}" for n in range(120)]))
    return path


@pytest.fixture
def reads(monkeypatch):
    """Counts the pages whose glyphs are read."""
    counted: list[int] = []
    original = layout_module.read_page

    def counting(page):
        counted.append(page.number)
        return original(page)

    monkeypatch.setattr(layout_module, "read_page", counting)
    return counted


def test_only_the_pages_shown_are_read(long_pdf, reads):
    document = load_document(long_pdf)
    start = document.page_starts[40]
    mark = Mark(document.doc_id, start, start + 50, "segment")
    assert render_pages(document, [41], [mark])
    assert set(highlighted_glyphs(document, mark.start, mark.end)) == {41}
    assert reads == [40]  # one page read, not 120


def test_the_glyphs_kept_are_bounded(long_pdf, reads, monkeypatch):
    monkeypatch.setenv("RSE_MAX_GLYPHS", "2000")
    document = load_document(long_pdf)
    page_chars = document.page_starts[1]
    assert 500 < page_chars < 1000
    for page in range(1, 30):
        start = document.page_starts[page - 1]
        render_pages(document, [page], [Mark(document.doc_id, start, start + 50, "segment")], zoom=0.2)
    layout = document.layout
    assert layout._held <= 2000 and len(reads) == 29
    with pytest.raises(PageViewTooLargeError, match="RSE_MAX_GLYPHS"):
        highlighted_glyphs(document, 0, document.page_starts[10])  # ten pages' glyphs at once
    with pytest.raises(PageViewTooLargeError, match="RSE_MAX_GLYPHS"):
        _ = layout.glyph  # the whole document's


def test_a_huge_page_is_rendered_within_the_pixel_bound(tmp_path):
    path = tmp_path / "huge.pdf"
    path.write_bytes(make_sized_pdf(14_400, 14_400))
    assert path.stat().st_size < 5000
    document = load_document(path)
    width, height = png_size(render_pages(document, [1], [], zoom=1.5, max_page_pixels=1_000_000)[0])
    assert width * height <= 1_000_000 and width > 900


def test_the_pixel_bound_comes_from_the_environment_and_covers_thumbnails(tmp_path, monkeypatch):
    path = tmp_path / "big.pdf"
    path.write_bytes(make_sized_pdf(3000, 2000, pages=2))
    document = load_document(path)
    monkeypatch.setenv("RSE_MAX_PAGE_PIXELS", "250000")
    for image in render_pages(document, [1, 2], [], zoom=4.0):
        width, height = png_size(image)
        assert width * height <= 250_000
    for _, image in render_thumbnails(document, [], zoom=1.0):
        width, height = png_size(image)
        assert width * height <= 250_000
    monkeypatch.setenv("RSE_MAX_PAGE_PIXELS", "many")
    with pytest.raises(Exception, match="RSE_MAX_PAGE_PIXELS"):
        render_pages(document, [1], [])


def test_normal_pages_keep_their_zoom_and_slivers_are_refused():
    assert fitted_zoom(595, 842, 4.0, 12_000_000) == 4.0
    with pytest.raises(PageViewTooLargeError, match="RSE_MAX_PAGE_PIXELS"):
        fitted_zoom(14_400_000, 1, 1.0, 1_000)
