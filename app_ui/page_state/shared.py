"""What several pages change the same way, written once: the sidebar's controls, a step-through's
step, the link's notices, the events a component reports that were acted on.

Why here: "apply this setting to the sidebar" was written on the Sweep, Evaluate, Transform lab
and Knowledge base pages, each with its own casts and its own preset update, and every
step-through clamped and advanced its own step; a page's callback or initialiser calls these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from .. import keys, navigation, state


@dataclass(frozen=True)
class PageSpan:
    """Characters ``start:end`` of the document ``doc_id``, selected on its pages."""

    doc_id: str
    start: int
    end: int


def keep_page_span(span: PageSpan) -> None:
    """The gold span last dragged on a page: the page view and Evaluate's form both show it."""
    st.session_state[keys.PAGE_GOLD_SPAN] = span


def set_sidebar_params(**changes: object) -> None:
    """Move the sidebar's parameter sliders to ``changes`` (each kept within its slider's range and
    of its field's type) and select the preset they now match, or custom.

    Call it from a callback: the sliders are drawn in the page fragment, which reruns after it.
    """
    current = state.read_params()
    typed = {field: type(getattr(current, field))(value) for field, value in changes.items()}
    fitted = state.fit_to_widgets(current.with_changes(**typed))
    for field in changes:
        st.session_state[keys.PARAM_KEYS[field]] = getattr(fitted, field)
    st.session_state[keys.PRESET] = state.matching_preset(state.read_params())


def apply_penalty(penalty: float) -> None:
    """Callback of a suggested penalty (Transform lab, the explain panel): the sidebar's slider moves there."""
    set_sidebar_params(irrelevant_chunk_penalty=penalty)


def set_sidebar_query(query: str) -> None:
    """Put ``query`` in the sidebar's query box (the second query kept). The box is drawn outside
    the page fragment: call it from a callback that reruns the app."""
    st.session_state[keys.QUERY] = query


def open_in_explore(samples: Sequence[str], queries: Sequence[str]) -> None:
    """Callback body: the sidebar's documents set to ``samples`` and its two queries to ``queries``,
    then Explore opens (a full rerun, so the sidebar shows them). Nothing after it runs."""
    st.session_state[keys.SAMPLES] = list(samples)
    st.session_state[keys.QUERY] = queries[0] if queries else ""
    st.session_state[keys.QUERY_2] = queries[1] if len(queries) > 1 else ""
    navigation.request("Explore")


def take_url_notices() -> list[str]:
    """What was ignored in the link this session was opened with; given once, to the first page."""
    return list(st.session_state.pop(keys.URL_NOTICES, None) or ())


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


def take_once(marker: str, event: object) -> bool:
    """Whether ``event`` is new under ``marker``, which then remembers it (so each is acted on once).

    A custom component reports its last event (a key press, a drag, stamped with its time) on every
    run; a one-off (the chart warm-up) is an event that never changes."""
    if st.session_state.get(marker) == event:
        return False
    st.session_state[marker] = event
    return True
