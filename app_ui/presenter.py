"""Presenter mode: a projector's layout (1280x720) for teaching from the Lesson, Worked example and Demo.

On with the sidebar's toggle or a ``?present=1`` link. It hides the sidebar (still drawn, so its
widgets keep their state), enlarges the type, tightens the page's top so the chart is in the
first screen, and puts a menu and an exit button at the top of every page. The pages ask
:func:`is_on` to draw their compact layout (the explain panel beside the chart, one line of
narration).
"""

from __future__ import annotations

import streamlit as st

from . import keys, navigation

TEACHING_PAGES = (("Lesson", "lesson"), ("Worked example", "worked-example"), ("Demo", "demo"))

CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"],
[data-testid="stHeader"] { display: none !important; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 0.6rem 1.6rem 2rem 1.6rem; font-size: 1.25rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.9rem; padding: 0 0 0.2rem 0; }
[data-testid="stMainBlockContainer"] h2, [data-testid="stMainBlockContainer"] h3 { padding: 0.2rem 0; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.25rem; }
[data-testid="stCaptionContainer"] { display: none; }
.rse-present-line { font-size: 1.45rem; font-weight: 500; color: #0f172a; border-left: 6px solid #2563eb;
                    padding: 0.15em 0.6em; background: #f8fafc; white-space: nowrap; overflow: hidden;
                    text-overflow: ellipsis; }
</style>
"""


def init_from_url() -> None:
    """Turn presenter mode on when the link says ``?present=1`` (once per session, or when it changes)."""
    wanted = st.query_params.get(keys.URL_PRESENT)
    if wanted is not None and wanted != st.session_state.get(keys.PRESENT_FROM_URL):
        st.session_state[keys.PRESENT_FROM_URL] = wanted
        st.session_state[keys.PRESENT] = wanted in ("1", "true", "yes", "on")
    st.session_state.setdefault(keys.PRESENT, False)


def is_on() -> bool:
    return bool(st.session_state.get(keys.PRESENT))


def keep_in_url() -> None:
    """Put ``present=1`` back in the address after the app wrote its state there (a shareable link)."""
    if is_on():
        st.query_params[keys.URL_PRESENT] = "1"
        st.session_state[keys.PRESENT_FROM_URL] = "1"
    elif keys.URL_PRESENT in st.query_params:
        del st.query_params[keys.URL_PRESENT]


def _exit() -> None:
    st.session_state[keys.PRESENT] = False
    st.session_state[keys.PRESENT_FROM_URL] = "0"


def toolbar() -> None:
    """The menu (the teaching pages and every other page) and the exit button, at the top right."""
    st.html(CSS)
    _, menu, leave = st.columns([8, 1.2, 1.6], vertical_alignment="center")
    with menu.popover("Menu", icon=":material/menu:", width="stretch"):
        for title, path in TEACHING_PAGES:
            try:
                st.page_link(navigation.page(path), label=title)
            except KeyError:
                continue
    leave.button(
        "Exit presenter",
        key=keys.PRESENT_EXIT,
        icon=":material/close_fullscreen:",
        on_click=_exit,
        width="stretch",
        help="Back to the normal layout with the sidebar and every page.",
    )


def line(text: str) -> None:
    """One line of narration (escaped by the caller's ``html.escape``)."""
    st.html(f'<div class="rse-present-line">{text}</div>')
