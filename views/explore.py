"""Explore: the chunk-value chart with segments, beside the reconstructed text."""

import streamlit as st

from app_ui import backend


def render() -> None:
    st.title("Explore")
    outcome = backend.current_outcome()
    backend.show_messages(outcome)
    if outcome.result is not None:
        result = outcome.result
        st.write(
            f"{len(result.segments)} segment(s), {len(result.rse_chunks)} chunks, {result.rse_characters} characters"
        )
