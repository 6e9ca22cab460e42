"""Presenter mode: a projector's layout (1280x720) for teaching from the teaching pages (Lesson, Worked
example, Demo: ``teaching`` in :mod:`app_ui.page_catalog`).

On with the sidebar's toggle or a ``?present=1`` link. It hides the sidebar (still drawn, so its
widgets keep their state), enlarges the type, tightens the page's top so the chart is in the
first screen, and puts a menu and an exit button at the top of every page. The pages ask
:func:`is_on` to draw their compact layout (the explain panel beside the chart, one line of
narration).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st

from . import keys, navigation, page_catalog
from .page_catalog import PageSpec
from .page_state import presenter_mode

CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"],
[data-testid="stHeader"] { display: none !important; }
[data-testid="stMainBlockContainer"] { max-width: 100% !important; padding: 0.5rem 1.4rem 2rem 1.4rem !important;
  font-size: 1.25rem; }
[data-testid="stMainBlockContainer"] h1 { display: none; }
[data-testid="stMain"], [data-testid="stAppViewContainer"] > section { padding-top: 0 !important; }
.block-container { padding-top: 0.4rem !important; }
[data-testid="stVerticalBlock"] { gap: 0.55rem !important; }
[data-testid="stElementContainer"]:has(iframe[title*="hotkeys"]) { display: none !important; }
.rse-present-title { font-size: 1.6rem; font-weight: 700; color: #0f172a; }
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
    presenter_mode.init_from_link(st.query_params.get(keys.URL_PRESENT))


is_on = presenter_mode.is_on


def keep_in_url() -> None:
    """``present=1`` in the address exactly when presenter mode is on. ``state.sync_url`` writes it
    with the rest of the state; this covers the runs that do not sync (an upload being read) and
    the toggle, and writes only when the address disagrees (a write is a message to the browser)."""
    if is_on():
        presenter_mode.mark_on_in_url()
        if st.query_params.get(keys.URL_PRESENT) != "1":
            st.query_params[keys.URL_PRESENT] = "1"
    elif keys.URL_PRESENT in st.query_params:
        del st.query_params[keys.URL_PRESENT]


@dataclass(frozen=True)
class Exit:
    """The button at the right of the bar."""

    label: str
    icon: str
    key: str
    on_click: Callable[..., None]
    args: tuple[str, ...]
    help: str


EXIT_PRESENTER = Exit(
    "Exit presenter",
    ":material/close_fullscreen:",
    keys.PRESENT_EXIT,
    presenter_mode.exit_presenter,
    (),
    "Back to the normal layout with the sidebar and every page.",
)
EXIT_FULL_SCREEN = Exit(
    "Exit demo",
    ":material/logout:",
    keys.FULL_SCREEN_EXIT,
    presenter_mode.leave_full_screen,
    (page_catalog.DEFAULT_PAGE.url_path,),
    f"Back to {page_catalog.DEFAULT_PAGE.title}, with the sidebar, your documents and your query.",
)


def toolbar(spec: PageSpec) -> None:
    """The page's title, a menu and an exit in one row at the top, in presenter mode and on a
    full-screen page (the Demo, which has no sidebar to leave by); the page's own title is hidden,
    so the chart moves up. Nothing on other pages."""
    if is_on():
        st.html(CSS)
    if spec.full_screen:
        _bar(spec.title, page_catalog.PAGES, EXIT_FULL_SCREEN)
    elif is_on():
        _bar(spec.title, page_catalog.teaching_pages(), EXIT_PRESENTER)


def _bar(title: str, pages: Sequence[PageSpec], leave: Exit) -> None:
    name, menu, button = st.columns([8, 1.2, 1.6], vertical_alignment="center")
    name.html(f'<div class="rse-present-title">{html.escape(title)}</div>')
    with menu.popover("Menu", icon=":material/menu:", width="stretch"):
        for spec in pages:
            st.page_link(navigation.page(spec.url_path), label=spec.title)
    button.button(
        leave.label,
        key=leave.key,
        icon=leave.icon,
        on_click=leave.on_click,
        args=leave.args,
        help=leave.help,
        width="stretch",
    )


def line(text: str) -> None:
    """One line of narration (escaped by the caller's ``html.escape``)."""
    st.html(f'<div class="rse-present-line">{text}</div>')
