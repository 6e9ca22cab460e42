"""The current parameters as code to take away: dsRAG's ``rse_params`` and rse_core's ``RSEParams``.

Why a panel: values tuned here are only useful in the reader's own RAG code, and only when it
scores like this app does; the note beside the snippets names the scorer and calibration they
were tuned with and what to re-check when production scores differently.
"""

from __future__ import annotations

import json

import streamlit as st

from rse_core import RSEParams
from rse_core.params import dsrag_snippet, rse_core_snippet, tuning_note

TITLE = "Take these parameters to your RAG code"


def render_params_export(
    params: RSEParams, *, scorer: str, model: str, calibration: str, key: str | None = None, expanded: bool = False
) -> None:
    """Copy-ready snippets (the copy button is at each code box's corner) and the tuning note.

    With a ``key``, drawn only when its toggle asks for it (Explore): three highlighted code
    boxes that change with every slider move cost the browser about 130 ms a move on Explore and
    1.7 s on a new tab's first chart (bench/browser_speed.py, one round each), for a panel most
    moves never open.
    """
    with st.expander(TITLE, icon=":material/integration_instructions:", expanded=expanded):
        if key is not None and not st.toggle("Show the code", key=key):
            st.caption("The parameters as dsRAG's rse_params and as rse_core's RSEParams, with what to re-check.")
            return
        st.info(tuning_note(scorer, model, calibration), icon=":material/science:")
        dsrag, core, raw = st.tabs(["dsRAG rse_params (Python)", "rse_core (Python)", "dsRAG rse_params (JSON)"])
        with dsrag:
            st.code(dsrag_snippet(params), language="python")
        with core:
            st.code(rse_core_snippet(params, scorer), language="python")
        with raw:
            st.code(json.dumps(params.to_dsrag(), indent=2), language="json")
