"""State of the Worked example page: its keys, what the view reads, its defaults and its callbacks.

A classroom example sets the values and the three limits at once; typing other values makes it
"your own values"; any change of values or limits goes back to turn 0 and hides the answer again
(predict, then reveal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import streamlit as st

from rse_core.teaching.classroom import DEFAULT_EXAMPLE, EXAMPLES

from . import steps


class Keys:
    """The widget and state keys of views/worked_example.py."""

    VALUES: Final = "we_values"
    EXAMPLE: Final = "we_example"
    MAX_LENGTH: Final = "we_max_length"
    OVERALL: Final = "we_overall_max_length"
    MINIMUM: Final = "we_minimum_value"
    STEP: Final = "we_step"
    OPTIMAL: Final = "we_optimal"
    MODE: Final = "we_mode"
    ANSWER: Final = "we_answer"
    TABLE: Final = "we_candidates"
    CHART: Final = "we_chart"
    ALL_RUNS: Final = "we_all_runs"
    OPTIMAL_CHART: Final = "we_optimal_chart"
    NEXT: Final = "we_next"
    STEP_CHART: Final = "we_step_chart"
    REVEAL: Final = "we_reveal"  # predict, then reveal: the answer stays hidden until the class has guessed
    HOTKEYS: Final = "we_hotkeys"
    RUNS_REVEAL: Final = "we_runs_reveal"  # Table 1's stage: 0 runs only, 1 their sums, 2 which is best and why
    RUNS_HOTKEYS: Final = "we_runs_hotkeys"
    EXERCISE: Final = "we_exercise"
    EXERCISE_ANSWER: Final = "we_exercise_answer"
    EXERCISE_KEY: Final = "we_exercise_key"
    HANDOUT: Final = "we_handout"
    HANDOUT_KEY: Final = "we_handout_key"


OWN_VALUES: Final = "Your own values"
"""The example choice that means the values were typed, not picked."""


@dataclass(frozen=True)
class WorkedExampleState:
    """What the page's widgets hold, typed."""

    mode: str
    example: str
    values_text: str
    limits: dict[str, float]
    """The search's three limits, as keyword arguments of the teaching functions."""
    step: int
    answer: str
    revealed: bool
    optimal: bool


def init() -> None:
    """The default example, once per session (before the page draws its widgets)."""
    if Keys.VALUES not in st.session_state:
        _load_example(DEFAULT_EXAMPLE)


def read() -> WorkedExampleState:
    state = st.session_state
    return WorkedExampleState(
        mode=str(state.get(Keys.MODE) or "segments"),
        example=str(state.get(Keys.EXAMPLE) or OWN_VALUES),
        values_text=str(state.get(Keys.VALUES) or ""),
        limits={
            "max_length": int(state[Keys.MAX_LENGTH]),
            "overall_max_length": int(state[Keys.OVERALL]),
            "minimum_value": float(state[Keys.MINIMUM]),
        },
        step=int(state.get(Keys.STEP, 0)),
        answer=str(state.get(Keys.ANSWER) or ""),
        revealed=bool(state.get(Keys.REVEAL)),
        optimal=bool(state.get(Keys.OPTIMAL)),
    )


def on_exercise_change() -> None:
    """Callback of the exercise picker: a new exercise starts with its key hidden, so the key shown for
    the last one does not give this one away."""
    st.session_state[Keys.EXERCISE_KEY] = False


def clamp_step(total: int) -> int:
    """Keep the turn within 0..``total`` (the values may have fewer turns now); call it before the
    turn slider is drawn."""
    return steps.clamp_step(Keys.STEP, 0, total)


def _load_example(name: str) -> None:
    example = EXAMPLES[name]
    st.session_state[Keys.EXAMPLE] = name
    st.session_state[Keys.VALUES] = example.text
    st.session_state[Keys.MAX_LENGTH] = example.max_length
    st.session_state[Keys.OVERALL] = example.overall_max_length
    st.session_state[Keys.MINIMUM] = example.minimum_value
    st.session_state[Keys.STEP] = 0
    st.session_state[Keys.ANSWER] = ""
    st.session_state[Keys.REVEAL] = False
    st.session_state[Keys.RUNS_REVEAL] = 0


def on_example_change() -> None:
    """Callback of the example choice: load its values and limits (not for "your own values")."""
    name = st.session_state[Keys.EXAMPLE]
    if name in EXAMPLES:
        _load_example(name)


def on_values_change(parse_values: Callable[[str], Sequence[float]]) -> None:
    """Callback of the values box: values other than the example's make them the user's own;
    back to turn 0, answer hidden."""
    example = EXAMPLES.get(st.session_state.get(Keys.EXAMPLE))
    if example is not None:
        try:
            same = list(parse_values(st.session_state[Keys.VALUES])) == list(example.values)
        except ValueError:
            same = False
        if not same:
            st.session_state[Keys.EXAMPLE] = OWN_VALUES
    st.session_state[Keys.STEP] = 0
    st.session_state[Keys.REVEAL] = False


def on_limits_change() -> None:
    """Callback of the three limits: the search starts again at turn 0."""
    st.session_state[Keys.STEP] = 0
