"""The app's pages for this session and the page one page asked another to open.

Why here: the request is written by a page (or its callback) and read by ``app.py``'s next run,
which opens the page before the sidebar is drawn (:func:`app_ui.navigation.follow_request`); the
sidebar's values are set again then, because Streamlit would drop them with the old page's widgets.
"""

from __future__ import annotations

from typing import NoReturn

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from .. import keys


def register_pages(pages: dict[str, StreamlitPage]) -> None:
    """Keep this run's pages (by title and by URL path) for :func:`registered_pages`."""
    st.session_state[keys.NAV_PAGES] = pages


def registered_pages() -> dict[str, StreamlitPage]:
    return st.session_state.get(keys.NAV_PAGES, {})


def request(name: str) -> NoReturn:
    """Ask for the page with this title or URL path and rerun the whole app, which opens it."""
    st.session_state[keys.GOTO_PAGE] = name
    st.rerun()


def take_request() -> str | None:
    """The page asked for, if any; asked once."""
    return st.session_state.pop(keys.GOTO_PAGE, None)


def keep_sidebar_values() -> None:
    """Set the sidebar's values (and presenter mode) again by code, so they outlive a page switch.

    A value the code has set outlives its widget (Streamlit's documented way to keep a widget's
    value across pages); call it only before the sidebar's widgets are drawn in the run.
    """
    for key in (*keys.SIDEBAR_VALUES, *keys.PARAM_KEYS.values(), keys.PRESENT):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
