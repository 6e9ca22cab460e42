"""The pages of this run, by title and URL path, so one page can send the user to another.

``st.switch_page`` needs the ``st.Page`` object of a callable page. ``app.py`` builds them from
:mod:`app_ui.page_catalog` and passes its page sections through :func:`register` on the way to
``st.navigation``; a page then calls
:func:`request` with the title (or URL path) of the page it links to, and ``app.py``'s next run
opens it (:func:`follow_request`) before drawing the sidebar.
"""

from __future__ import annotations

from typing import NoReturn

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from .page_catalog import DEFAULT_PAGE
from .page_state import page_request

Sections = dict[str, list[StreamlitPage]]


def register(sections: Sections) -> Sections:
    """Remember every page of ``sections`` for this session; return ``sections`` unchanged."""
    pages: dict[str, StreamlitPage] = {}
    for page in (page for section in sections.values() for page in section):
        pages[page.title] = page
        pages[page.url_path or DEFAULT_PAGE.url_path] = page  # Streamlit gives the default page the path ""
    page_request.register_pages(pages)
    return sections


def page(name: str) -> StreamlitPage:
    """The registered page with this title or URL path."""
    pages = page_request.registered_pages()
    if name not in pages:
        raise KeyError(f"No page {name!r} is registered; known: {', '.join(sorted(pages))}.")
    return pages[name]


def switch_to(name: str) -> NoReturn:
    """Stop this run and open the page with this title or URL path.

    Only before the sidebar is drawn (:func:`follow_request` in ``app.py``): from a page, ask
    with :func:`request` instead, so the sidebar keeps its settings.
    """
    st.switch_page(page(name))


def request(name: str) -> NoReturn:
    """Open the page with this title or URL path: stop here and rerun the whole app, whose run
    opens it first thing (:func:`follow_request`).

    The rerun is the app's, not a fragment's: every page runs in the page fragment
    (:mod:`app_ui.page_frame`), and a fragment's own rerun never reaches ``app.py``. From a widget
    callback or from the page body alike; nothing after the call runs.
    """
    page_request.request(name)


def follow_request() -> None:
    """Open the page :func:`request` asked for, if any, keeping the sidebar's settings.

    Why before the sidebar: after ``st.switch_page`` the sidebar's widgets came back at their
    minimums (no document, chunk size 200, top-k 1), in the browser as in AppTest, because
    Streamlit dropped their values with the old page's widgets. A value the code has set
    outlives its widget (Streamlit's documented way to keep a widget's value across pages), and
    code may set a widget's value only before the widget is drawn in the run.
    """
    name = page_request.take_request()
    if name is None:
        return
    page_request.keep_sidebar_values()
    switch_to(name)
