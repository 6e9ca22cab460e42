"""Presenter mode's state: the sidebar's switch (``keys.PRESENT``) and the ``?present=`` value last
applied from the link, so a link turns the mode on once, not on every run."""

from __future__ import annotations

import streamlit as st

from .. import keys
from . import page_request
from .reruns import reruns_app

ON_IN_URL = ("1", "true", "yes", "on")


def init_from_link(wanted: str | None) -> None:
    """Before the switch is drawn: follow the link's ``?present=`` value when it is new; off by default."""
    if wanted is not None and wanted != st.session_state.get(keys.PRESENT_FROM_URL):
        st.session_state[keys.PRESENT_FROM_URL] = wanted
        st.session_state[keys.PRESENT] = wanted in ON_IN_URL
    st.session_state.setdefault(keys.PRESENT, False)


def is_on() -> bool:
    return bool(st.session_state.get(keys.PRESENT))


def mark_on_in_url() -> None:
    """The address says ``present=1`` now: a reload must not apply it again as a new request."""
    st.session_state[keys.PRESENT_FROM_URL] = "1"


@reruns_app  # the sidebar's presenter switch is outside the page fragment
def exit_presenter() -> None:
    """Callback of "Exit presenter": the switch off, and ``present`` out of the address."""
    st.session_state[keys.PRESENT] = False
    st.session_state[keys.PRESENT_FROM_URL] = None
    if keys.URL_PRESENT in st.query_params:
        del st.query_params[keys.URL_PRESENT]


def leave_full_screen(page: str) -> None:
    """Callback of a full-screen page's exit: presenter mode off too (the exit promises the sidebar
    back), then ``page`` opens with the sidebar's settings kept. The address is left alone (the
    page switch writes it): its ``present`` is marked as applied, so it cannot switch the mode on again."""
    st.session_state[keys.PRESENT] = False
    st.session_state[keys.PRESENT_FROM_URL] = st.query_params.get(keys.URL_PRESENT)
    page_request.request(page)
