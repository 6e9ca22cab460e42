"""Keyboard stepping: arrow keys (and in presenter mode space and PageDown) move a step-through.

Streamlit has no keyboard events, and ``st.components.v1.html`` cannot send a value back, so this
is a tiny custom component (``hotkeys_frontend/``, served from its folder like the live chart's)
that listens on the page and returns the last action with a timestamp. :func:`step_keys` turns a
new action into a new step number in ``st.session_state`` *before* the page draws its step
controls, so the slider and the buttons show the step the key moved to.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

import streamlit as st
import streamlit.components.v1 as st_components

from . import presenter
from .page_state import once, steps
from .page_state.component_values import drop_value_unless

Action = Literal["next", "prev", "first", "last"]
FRONTEND = Path(__file__).with_name("hotkeys_frontend")
_COMPONENT = st_components.declare_component("rse_hotkeys", path=str(FRONTEND))
_PRESS_FIELDS = frozenset({"action", "at"})


def is_key_press(value: object) -> bool:
    """``None`` or a key press as the frontend sends it: an action and a number (its time)."""
    if value is None:
        return True
    return (
        isinstance(value, dict)
        and set(value) == _PRESS_FIELDS
        and value["action"] in get_args(Action)
        and isinstance(value["at"], (int, float))
        and not isinstance(value["at"], bool)
    )


def key_action(key: str, *, all_keys: bool = False) -> Action | None:
    """The action of a key pressed since the last run, or ``None`` (each press is seen once).

    Left and right arrows always step; with ``all_keys`` so do the keys that otherwise scroll the
    page (down, up, space, PageDown, PageUp, Home, End): presenter mode and the Demo ask for them.
    """
    drop_value_unless(key, is_key_press)  # anything but a key press the frame posted
    value = _COMPONENT(all_keys=all_keys, key=key, default=None, height=0)
    if value is None:
        return None
    return value["action"] if once.take_once(f"_{key}_seen", value["at"]) else None


def moved(step: int, action: Action | None, first: int, last: int) -> int:
    """``step`` after ``action``, kept within ``first..last``."""
    if action == "next":
        step += 1
    elif action == "prev":
        step -= 1
    elif action == "first":
        step = first
    elif action == "last":
        step = last
    return min(max(step, first), last)


def step_keys(
    key: str, state_key: str, first: int, last: int, *, default: int | None = None, all_keys: bool | None = None
) -> int:
    """Apply a pressed key to the step in ``st.session_state[state_key]``; return the step.

    ``all_keys`` defaults to presenter mode: outside it, space and PageDown still scroll the page.
    """
    current = int(st.session_state.get(state_key, first if default is None else default))
    wanted = presenter.is_on() if all_keys is None else all_keys
    step = moved(current, key_action(key, all_keys=wanted), first, last)
    steps.set_step(state_key, step)
    return step
