"""The pages' state modules: every page's keys are its own, and a setting a page puts in the
sidebar stays within the sliders' ranges."""

from __future__ import annotations

import importlib
import pkgutil

from streamlit.testing.v1 import AppTest

import app_ui.page_state
from app_ui import keys


def _page_keys() -> dict[str, list[str]]:
    """Each key string (or key-function's output for a sample argument) -> the pages naming it."""
    owners: dict[str, list[str]] = {}
    for module in pkgutil.iter_modules(app_ui.page_state.__path__):
        page_keys = getattr(importlib.import_module(f"app_ui.page_state.{module.name}"), "Keys", None)
        for name, value in vars(page_keys or object).items():
            if name.startswith("__") or name in ("PREFIX", "PARAM_FIELDS"):
                continue
            if isinstance(value, staticmethod):  # a key per document, story, ...: one sample of it
                value = value.__func__(*["x"] * value.__func__.__code__.co_argcount)
            if isinstance(value, str):
                owners.setdefault(value, []).append(f"{module.name}.{name}")
    return owners


def test_no_two_pages_share_a_key_and_no_page_takes_an_app_wide_one():
    owners = _page_keys()
    assert len(owners) > 150
    assert {key: names for key, names in owners.items() if len(names) > 1} == {}
    app_wide = {value for value in vars(keys).values() if isinstance(value, str)}
    assert sorted(app_wide & set(owners)) == []


def _apply_script():
    import streamlit as st

    from app_ui import state
    from app_ui.page_state import sidebar_settings

    state.init_state()
    st.button(
        "far", key="far", on_click=sidebar_settings.set_sidebar_params, kwargs={"max_length": 1e6, "decay_rate": 0.5}
    )
    st.button("penalty 0.25", key="off", on_click=sidebar_settings.apply_penalty, args=(0.25,))
    st.button("penalty 0.2", key="back", on_click=sidebar_settings.apply_penalty, args=(0.2,))


def test_a_setting_put_in_the_sidebar_is_kept_within_the_sliders_and_names_its_preset():
    at = AppTest.from_function(_apply_script, default_timeout=60).run()
    at.button(key="far").click().run()
    assert at.session_state["sb_max_length"] == 60 and isinstance(at.session_state["sb_max_length"], int)
    assert at.session_state["sb_decay_rate"] == 1.0 and isinstance(at.session_state["sb_decay_rate"], float)
    assert at.session_state["sb_preset"] == "custom"


def test_a_suggested_penalty_moves_the_slider_and_names_the_preset_it_matches():
    at = AppTest.from_function(_apply_script, default_timeout=60).run()
    at.button(key="off").click().run()
    assert (at.session_state["sb_irrelevant_chunk_penalty"], at.session_state["sb_preset"]) == (0.25, "custom")
    at.button(key="back").click().run()
    assert (at.session_state["sb_irrelevant_chunk_penalty"], at.session_state["sb_preset"]) == (0.2, "default")
