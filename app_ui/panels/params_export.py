"""The current result as code to take away: rse_core Python, the ``rse`` command line and dsRAG's ``rse_params``.

Why a panel: values tuned here are only useful in the reader's own RAG code, and only when it
scores like this app does; the note beside the snippets names the scorer and calibration they
were tuned with and what to re-check when production scores differently. Every snippet comes
from one :class:`rse_core.handoff.HandOff`, so they reproduce the same segments.
"""

from __future__ import annotations

import json

import streamlit as st

from rse_core.handoff import HandOff
from rse_core.params import tuning_note

TITLE = "Take these parameters to your RAG code"


def render_params_export(
    handoff: HandOff, *, model: str, calibration: str, key: str | None = None, expanded: bool = False
) -> None:
    """Copy-ready snippets (the copy button is at each code box's corner) and the tuning note.

    With a ``key``, drawn only when its toggle asks for it (Explore): three highlighted code
    boxes that change with every slider move cost the browser about 130 ms a move on Explore and
    1.7 s on a new tab's first chart (bench/browser_speed.py, one round each), for a panel most
    moves never open.
    """
    with st.expander(TITLE, icon=":material/integration_instructions:", expanded=expanded):
        if key is not None and not st.toggle("Show the code", key=key):
            st.caption("The parameters as rse_core Python, an rse command line and dsRAG's rse_params.")
            return
        st.info(tuning_note(handoff.scorer, model, calibration), icon=":material/science:")
        core, command, dsrag, raw = st.tabs(
            ["rse_core (Python)", "rse (command line)", "dsRAG rse_params (Python)", "dsRAG rse_params (JSON)"]
        )
        with core:
            st.code(handoff.python(), language="python")
        with command:
            st.code(handoff.command(), language="bash")
        with dsrag:
            st.code(handoff.dsrag(), language="python")
        with raw:
            st.code(json.dumps(handoff.params.to_dsrag(), indent=2), language="json")
