"""LLM settings typed once are kept for the session: across page changes and on the Demo (AppTest)."""

from __future__ import annotations

import pytest

from rse_core.teaching.demo_stories import STEPS
from tests.support.apptest_support import all_text, new_app, no_problems, open_page
from tests.support.fake_llm import FakeLLM

KEY = "sk-SETTINGS-SENTINEL-777"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CO_API_KEY", "RSE_LLM_MODEL", "RSE_LLM_PROVIDER"):
        monkeypatch.delenv(name, raising=False)


def test_settings_typed_on_compare_survive_a_visit_to_explore_and_reach_the_demo(monkeypatch):
    monkeypatch.setenv("RSE_ALLOWED_PRIVATE_HOSTS", "127.0.0.1")  # the typed fake LLM listens there
    with FakeLLM() as fake:
        at = open_page(new_app(docs="employee_handbook").run(), "compare")
        at.text_input(key="ans_base_url").set_value(f"{fake.url}/v1").run()
        at.text_input(key="ans_model").set_value("fake-model").run()
        at.text_input(key="ans_api_key").set_value(KEY).run()
        open_page(at, "")
        no_problems(at)
        open_page(at, "compare")
        no_problems(at)
        assert at.text_input(key="ans_base_url").value == f"{fake.url}/v1"
        assert at.text_input(key="ans_model").value == "fake-model"
        assert "4 calls to fake-model" in all_text(at)
        open_page(at, "")
        open_page(at, "demo")
        at.session_state["demo_step"] = len(STEPS) - 1
        at.run()
        no_problems(at)
        assert not any("No LLM is configured" in info.value for info in at.info)
        assert fake.request_count == 2  # RSE's and top-k's contexts, asked at once
        assert at.text_input(key="ans_model").value == "fake-model"  # the Demo's compact control
        assert KEY not in str(dict(at.query_params))


def test_the_demo_says_where_its_settings_are():
    at = open_page(new_app().run(), "demo")
    at.session_state["demo_step"] = len(STEPS) - 1
    at.run()
    no_problems(at)
    info = " ".join(info.value for info in at.info)
    assert "No LLM is configured" in info and "above" not in info
    assert at.text_input(key="ans_base_url") is not None  # the compact settings control is on the page
