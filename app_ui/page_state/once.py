"""What is acted on once: a custom component's event (a key press, a drag, stamped with its time),
which the component reports again on every run, and the notices of the link a session opened with."""

from __future__ import annotations

import streamlit as st

from .. import keys


def take_once(marker: str, event: object) -> bool:
    """Whether ``event`` is new under ``marker``, which then remembers it (so each is acted on once).

    A custom component reports its last event (a key press, a drag, stamped with its time) on every
    run; a one-off (the chart warm-up) is an event that never changes."""
    if st.session_state.get(marker) == event:
        return False
    st.session_state[marker] = event
    return True


def take_url_notices() -> list[str]:
    """What was ignored in the link this session was opened with; given once, to the first page."""
    return list(st.session_state.pop(keys.URL_NOTICES, None) or ())
