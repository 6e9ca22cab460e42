"""Small widgets several places draw: a progress bar for a scorer, a run's messages, and the guards
that turn an unexpected error in a page or a fragment into a one-line message."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterator, Sequence

import streamlit as st

from rse_core import ScorerName

from . import keys
from .page_state import sidebar_settings
from .run_state import RunOutcome
from .safe_text import md

LOGGER = logging.getLogger(__name__)


@contextlib.contextmanager
def progress_bar(text: str) -> Iterator[Callable[[float, str], None]]:
    """A progress bar for a scorer's ``progress`` callback (fraction done, what is happening),
    removed when the work ends or fails."""
    bar = st.progress(0.0, text=text)
    try:
        yield lambda done, label: bar.progress(min(done, 1.0), text=label)
    finally:
        bar.empty()


def show_messages(outcome: RunOutcome, notices: Sequence[str] = ()) -> None:
    """Errors, warnings and notes above a page's content: short, escaped, never a traceback.

    Every text here may quote a link, a file name or a backend's answer, so each goes through
    :func:`app_ui.safe_text.md`.
    """
    for error in outcome.errors:
        st.error(md(error), icon=":material/error:")
    if outcome.scorer_failed and st.session_state.get(keys.SCORER) != ScorerName.MINILM:
        st.button(
            "Switch to the offline minilm scorer",
            icon=":material/wifi_off:",
            key=keys.SWITCH_TO_OFFLINE,
            on_click=sidebar_settings.switch_to_offline,
        )
    if outcome.stale:
        st.warning("Showing the last good result until the problem above is fixed.", icon=":material/history:")
    for warning in outcome.warnings:
        st.warning(md(warning), icon=":material/content_copy:")
    for notice in notices:
        st.info(md(notice), icon=":material/link:")
    if outcome.result is not None:
        for note in outcome.result.notes:
            st.info(md(note), icon=":material/info:")


def guarded(page: Callable[[], None]) -> Callable[[], None]:
    """Run a page; an unexpected error becomes a short message instead of a traceback.

    The backend already turns every ``RSEError`` into a message; this catches what is left (a bug
    in drawing code) so a demo never shows a stack trace. The traceback goes to the server log.
    Streamlit's own control flow (rerun, stop) derives from ``BaseException`` and passes through.
    """

    @functools.wraps(page)
    def run() -> None:
        try:
            page()
        except Exception as error:  # the point is to catch everything
            LOGGER.exception("page %s failed", page.__module__)
            st.error(
                f"This page could not be drawn ({type(error).__name__}: {md(str(error), 200)}). "
                "Try other settings; the details are in the server log.",
                icon=":material/error:",
            )

    return run


def guarded_fragment(func: Callable[..., None]) -> Callable[..., None]:
    """``st.fragment`` with :func:`guarded`'s net: a fragment reruns on its own, outside its page's
    guard, so without this an error in it showed Streamlit's traceback (server paths included)."""

    @functools.wraps(func)
    def run(*args: object, **kwargs: object) -> None:
        @functools.wraps(func)
        def call() -> None:
            func(*args, **kwargs)

        guarded(call)()

    return st.fragment(run)
