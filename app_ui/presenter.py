"""Presenter mode: a projector's layout (1280x720) for teaching a class from the app alone.

On with the sidebar's toggle, a ``?present=1`` link or a block of the class plan. It hides the
sidebar's documents, query and scorer (still drawn, so their widgets keep their state), enlarges
the type, tightens the page's top so the chart is in the first screen, and puts a bar at the top
of every page: the page's title (and the class plan's block), "Next block" while a class is on,
the parameters (preset, penalty and the other sliders: the sidebar's own widgets, drawn in a
popover), a menu of every page, and an exit. The pages ask :func:`is_on` to draw their compact
layout; their narration (:func:`line`) and notes (:func:`note`) wrap, never cut, and captions stay.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from rse_core.teaching.class_plan import CLASS_PLAN

from . import keys, navigation, page_catalog
from .page_catalog import PageSpec
from .page_state import class_plan, presenter_mode

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
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { font-size: 1.0rem !important;
  color: #334155; }
.rse-present-line { font-size: 1.35rem; font-weight: 500; color: #0f172a; border-left: 6px solid #2563eb;
                    padding: 0.15em 0.6em; background: #f8fafc; white-space: normal; overflow-wrap: anywhere;
                    line-height: 1.35; }
.rse-present-note { font-size: 1.05rem; color: #334155; border-left: 4px solid #94a3b8; padding: 0.1em 0.6em;
                    white-space: normal; line-height: 1.35; }
.rse-present-block { font-size: 1.0rem; color: #475569; }
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


def toolbar(spec: PageSpec) -> DeltaGenerator | None:
    """The page's title, a menu and an exit in one row at the top, in presenter mode and on a
    full-screen page (the Demo, which has no sidebar to leave by); the page's own title is hidden,
    so the chart moves up. Nothing on other pages.

    Returns the popover the parameters go in (presenter mode, a page that uses them), else ``None``
    (they stay in the sidebar)."""
    if is_on():
        st.html(CSS)
    if spec.full_screen:
        _bar(spec.title, page_catalog.PAGES, EXIT_FULL_SCREEN)
        return None
    if is_on():
        return _bar(spec.title, page_catalog.PAGES, EXIT_PRESENTER, settings=bool(spec.scope))
    return None


def _bar(title: str, pages: Sequence[PageSpec], leave: Exit, *, settings: bool = False) -> DeltaGenerator | None:
    """The bar's row; in presenter mode also the class plan's block and its "Next block"."""
    block = class_plan.current() if leave is EXIT_PRESENTER else None
    name, step, params, menu, button = st.columns([4.4, 1.9, 1.7, 1.5, 2.1], vertical_alignment="center")
    heading = f'<div class="rse-present-title">{html.escape(title)}</div>'
    if block is not None:
        here = CLASS_PLAN[block]
        heading = (
            f'<div class="rse-present-title">{html.escape(here.title)}</div><div class="rse-present-block">'
            f"Block {block + 1} of {len(CLASS_PLAN)} · {here.minutes} min · {html.escape(title)}</div>"
        )
    name.html(heading)
    if block is not None and block + 1 < len(CLASS_PLAN):
        step.button(
            "Next block",
            key=class_plan.Keys.NEXT,
            icon=":material/skip_next:",
            on_click=class_plan.next_block,
            help=f"Block {block + 2}: {CLASS_PLAN[block + 1].title}",
            width="stretch",
        )
    elif block is not None:
        step.page_link(navigation.page(page_catalog.CLASS_PLAN_PAGE.url_path), label="Class plan")
    popover = params.popover("Settings", icon=":material/tune:", width="stretch") if settings else None
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
    return popover


def line(text: str) -> None:
    """The narration of the step on screen (escaped by the caller's ``html.escape``); it wraps, never cut."""
    st.html(f'<div class="rse-present-line">{text}</div>')


def note(text: str) -> None:
    """A teaching note that is part of the slide (a source, a numbering, the point of an example):
    escaped here, drawn in presenter mode as on the normal layout."""
    st.html(f'<div class="rse-present-note">{html.escape(text)}</div>')
