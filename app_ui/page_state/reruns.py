"""Callbacks that must rerun the whole app, not only the page fragment."""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st


def reruns_app(callback: Callable[..., None]) -> Callable[..., None]:
    """A widget callback that changes a control drawn outside the page fragment (the query, the
    documents, the scorer, presenter mode), then reruns the whole app.

    Why: a widget inside the fragment (every page's, see :mod:`app_ui.page_frame`) reruns only the
    fragment, and a control outside it would keep showing its old value while the run used the
    new one. ``st.rerun()`` in a callback makes the interaction's rerun a full one.
    """

    @functools.wraps(callback)
    def run(*args: object, **kwargs: object) -> None:
        callback(*args, **kwargs)
        st.rerun()

    return run
