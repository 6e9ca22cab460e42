"""RSE vs top-k."""

import streamlit as st

from app_ui import backend


def render() -> None:
    st.title("RSE vs top-k")
    backend.show_messages(backend.current_outcome())
