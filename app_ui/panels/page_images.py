"""Page images of a document, kept per session by what is drawn on them (the page view and the
page selection share them)."""

from __future__ import annotations

from rse_core.figures.page_view import Mark, marks_by_page, png_size, render_pages

from .. import keys
from ..caching import session_lru


def png_width(image: bytes) -> int:
    """Pixel width of a PNG, from its header."""
    return png_size(image)[0]


def page_images(document, pages: list[int], marks: list[Mark], zoom: float, kept: int) -> list[bytes]:
    """PNGs of ``pages`` with their marks, each remembered in this session by what is drawn on it
    (the last ``kept`` of one size class: thumbnails and pages are kept apart).

    A slider move that changes one segment redraws only the pages that segment touches; every
    other page (and thumbnail) is reused, as bytes, so Streamlit re-sends the same image."""
    store = session_lru(keys.page_images_key(kept), kept)
    on_page = marks_by_page(document, marks)
    image_keys = {page: (document.doc_id, page, zoom, on_page.get(page, ())) for page in pages}
    found = {page: store[image_keys[page]] for page in pages if image_keys[page] in store}  # a hit counts as a use
    missing = [page for page in pages if page not in found]
    if missing:
        for page, image in zip(missing, render_pages(document, missing, marks, zoom), strict=True):
            found[page] = store[image_keys[page]] = image
    return [found[page] for page in pages]
