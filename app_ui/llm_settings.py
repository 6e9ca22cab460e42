"""The LLM settings for answers (provider, base URL, model, key), kept for the whole session.

Why not the widgets' own keys: Streamlit forgets a widget's value as soon as a run does not draw
it, so a base URL typed on RSE vs top-k was gone after a visit to Explore, and the Demo (which
draws the settings folded in a popover, or not at all) never saw it. The values live in
non-widget keys (``keys.LLM_*``); every settings widget is seeded from them before it is drawn
and writes back through its ``on_change``. The key stays in this session's state only: never in
the URL, an export or a message. The base URL starts as the operator's without its
``user:password@`` or query (:func:`rse_core.llm.endpoints.shown_operator_url`): that form still
means the operator's endpoint, whose full URL never leaves the server.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import streamlit as st

from rse_core.llm.answers import DEFAULT_MODELS, MODEL_VARIABLE, LLMProvider
from rse_core.llm.endpoints import shown_operator_url

from . import keys


@dataclass(frozen=True)
class Field:
    """One setting: where the session keeps it and which widget shows it."""

    stored: str
    widget: str


PROVIDER = Field(keys.LLM_PROVIDER, keys.ANSWERS_PROVIDER)
BASE_URL = Field(keys.LLM_BASE_URL, keys.ANSWERS_BASE_URL)
MODEL = Field(keys.LLM_MODEL, keys.ANSWERS_MODEL)
API_KEY = Field(keys.LLM_API_KEY, keys.ANSWERS_API_KEY)
FIELDS = (PROVIDER, BASE_URL, MODEL, API_KEY)


def init_defaults() -> None:
    """Fill the settings once per session from the environment (``RSE_LLM_PROVIDER`` etc.)."""
    if keys.LLM_PROVIDER in st.session_state:
        return
    provider = os.environ.get("RSE_LLM_PROVIDER", LLMProvider.OPENAI)
    provider = provider if provider in tuple(LLMProvider) else LLMProvider.OPENAI
    st.session_state[keys.LLM_PROVIDER] = str(provider)
    st.session_state[keys.LLM_BASE_URL] = shown_operator_url(provider)
    st.session_state[keys.LLM_MODEL] = os.environ.get(MODEL_VARIABLE, DEFAULT_MODELS[provider])
    st.session_state[keys.LLM_API_KEY] = ""


def value(setting: Field) -> str:
    """The kept value of one setting."""
    init_defaults()
    return str(st.session_state.get(setting.stored) or "")


def seed(setting: Field) -> None:
    """Give the widget the kept value; call right before drawing it."""
    init_defaults()
    st.session_state[setting.widget] = st.session_state[setting.stored]


def keep(setting: Field) -> None:
    """``on_change`` of a settings widget: the new value becomes the session's."""
    st.session_state[setting.stored] = st.session_state.get(setting.widget) or ""
