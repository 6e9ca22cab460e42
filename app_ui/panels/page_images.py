"""Page images of a document, kept by what is drawn on them (the page view, the page selection
and the Demo share them)."""

from __future__ import annotations

from streamlit.runtime.scriptrunner import get_script_run_ctx

from rse_core.figures.page_view import Mark, marks_by_page, png_size

from .. import keys, worker_pool
from ..caching import is_private, session_lru, shared_lru

# Images kept per session, by size class (4x as many per process for the bundled samples): every
# place that draws thumbnails or pages shares its class's store, so the same page with the same
# marks is drawn once wherever it is shown.
THUMBS_KEPT = 240  # thumbnails, ~10 KB each
PAGES_KEPT = 24  # pages, ~200 KB each


def png_width(image: bytes) -> int:
    """Pixel width of a PNG, from its header."""
    return png_size(image)[0]


def current_requester() -> str | None:
    """This session's id: whose turn a page is when the workers draw sessions' pages in turn."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def page_images(document, pages: list[int], marks: list[Mark], zoom: float, kept: int) -> list[bytes]:
    """PNGs of ``pages`` with their marks, each remembered by what is drawn on it (the last ``kept``
    of one size class: thumbnails and pages are kept apart): in this session for an upload, in
    the process for a bundled sample (a class that opens the same sample draws its pages once).

    A slider move that changes one segment redraws only the pages that segment touches; every
    other page (and thumbnail) is reused, as bytes, so Streamlit re-sends the same image."""
    if is_private((document,)):
        store = session_lru(keys.page_images_key(kept), kept)
    else:
        store = shared_lru(keys.page_images_key(kept), kept * 4)
    on_page = marks_by_page(document, marks)
    image_keys = {page: (document.doc_id, page, zoom, on_page.get(page, ())) for page in pages}
    found = {page: image for page in pages if (image := store.get(image_keys[page])) is not None}
    missing = [page for page in pages if page not in found]
    if missing:
        drawn = worker_pool.render_pages(document, missing, marks, zoom, requester=current_requester())
        for page, image in zip(missing, drawn, strict=True):
            found[page] = store[image_keys[page]] = image
    return [found[page] for page in pages]
