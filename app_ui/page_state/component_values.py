"""A custom component's value, checked before the component is drawn."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st


def drop_value_unless(key: str, valid: Callable[[object], bool]) -> None:
    """Drop the value of the custom component under ``key`` unless ``valid`` accepts it; call it
    before the component is drawn.

    Why: a component's value is whatever its frame posted, and drawing the component has
    Streamlit's widget bookkeeping copy and compare it: a 900-level nested list recursed until the
    page broke. A value ``valid`` rejects is dropped, as if nothing had been posted.
    """
    if key in st.session_state and not valid(st.session_state[key]):
        del st.session_state[key]
