"""A step-through's step (the greedy search's turns, round-robin turns, the Demo's steps): kept in
range before its slider is drawn, moved by its buttons' and keys' callbacks."""

from __future__ import annotations

import streamlit as st


def clamp_step(key: str, first: int, last: int) -> int:
    """Keep the step-through under ``key`` within ``first..last`` (its steps may be fewer now); call
    it before the step's slider is drawn. Returns the step."""
    step = min(max(int(st.session_state.get(key, first)), first), last)
    st.session_state[key] = step
    return step


def set_step(key: str, step: int) -> None:
    """Callback of a step-through's Back / Next buttons, and of its keys."""
    st.session_state[key] = step


def step_forward(key: str, last: int) -> None:
    """Callback of a "Next" button: one step on, never past ``last``."""
    st.session_state[key] = min(int(st.session_state.get(key, 1)) + 1, last)
