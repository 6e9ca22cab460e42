"""Small widgets several places draw: a progress bar for a scorer, and a run's messages."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

import streamlit as st

from rse_core import ScorerName

from . import keys
from .run_state import RunOutcome
from .safe_text import md


@contextlib.contextmanager
def progress_bar(text: str) -> Iterator[Callable[[float, str], None]]:
    """A progress bar for a scorer's ``progress`` callback (fraction done, what is happening),
    removed when the work ends or fails."""
    bar = st.progress(0.0, text=text)
    try:
        yield lambda done, label: bar.progress(min(done, 1.0), text=label)
    finally:
        bar.empty()


def _switch_to_offline() -> None:
    st.session_state[keys.SCORER] = ScorerName.MINILM.value


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
            on_click=_switch_to_offline,
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
