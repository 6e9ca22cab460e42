"""The pages of this run, by title and URL path, so one page can send the user to another.

``st.switch_page`` needs the ``st.Page`` object of a callable page. ``app.py`` passes its page
sections through :func:`register` on the way to ``st.navigation``; a page then calls
:func:`switch_to` with the title (or URL path) of the page it links to.
"""

from __future__ import annotations

from typing import NoReturn

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from . import keys

Sections = dict[str, list[StreamlitPage]]


def register(sections: Sections) -> Sections:
    """Remember every page of ``sections`` for this session; return ``sections`` unchanged."""
    pages: dict[str, StreamlitPage] = {}
    for page in (page for section in sections.values() for page in section):
        pages[page.title] = page
        if page.url_path:  # the default page's URL path is "" (the app's root)
            pages[page.url_path] = page
    st.session_state[keys.NAV_PAGES] = pages
    return sections


def page(name: str) -> StreamlitPage:
    """The registered page with this title or URL path."""
    pages: dict[str, StreamlitPage] = st.session_state.get(keys.NAV_PAGES, {})
    if name not in pages:
        raise KeyError(f"No page {name!r} is registered; known: {', '.join(sorted(pages))}.")
    return pages[name]


def switch_to(name: str) -> NoReturn:
    """Stop this run and open the page with this title or URL path."""
    st.switch_page(page(name))
