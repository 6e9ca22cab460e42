"""What pages put in the sidebar's controls: a setting (parameters, a query), or a query and its
documents before opening Explore; and the sidebar's own callbacks (a sample's showcase query, a
preset's values, the preset a slider move matches).

Why one module: "apply this setting to the sidebar" was written on the Sweep, Evaluate, Transform
lab and Knowledge base pages, each with its own casts and its own preset update.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from rse_core import ScorerName
from rse_core.param_specs import PENALTY

from .. import keys, state
from ..samples import list_samples
from . import page_request
from .reruns import reruns_app


def set_sidebar_params(**changes: object) -> None:
    """Move the sidebar's parameter sliders to ``changes`` (each kept within its slider's range and
    of its field's type) and select the preset they now match, or custom.

    Call it from a callback: the sliders are drawn in the page fragment, which reruns after it.
    """
    state.set_param_values(changes)


def apply_penalty(penalty: float) -> None:
    """Callback of a suggested penalty (Transform lab, the explain panel): the sidebar's slider moves there."""
    set_sidebar_params(**{PENALTY.name: penalty})


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
    page_request.request("Explore")


@reruns_app  # the sidebar's scorer is outside the page fragment
def switch_to_offline() -> None:
    """Callback of "Switch to the offline minilm scorer" under a scorer's failure."""
    st.session_state[keys.SCORER] = ScorerName.MINILM.value


def on_samples_change() -> None:
    """Switching the first sample switches to its showcase query, unless the user typed one."""
    samples = list_samples()
    showcase = {sample.showcase_query for sample in samples.values()}
    chosen = st.session_state[keys.SAMPLES]
    if chosen and st.session_state[keys.QUERY] in showcase | {""}:
        st.session_state[keys.QUERY] = samples[chosen[0]].showcase_query


def on_preset_change() -> None:
    """The chosen preset fills the sliders."""
    state.apply_preset(st.session_state[keys.PRESET])


def on_param_change() -> None:
    """A slider moved: the preset shows the one the values now match, or custom."""
    st.session_state[keys.PRESET] = state.matching_preset(state.read_params())
