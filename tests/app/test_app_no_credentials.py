"""No page shows the operator's credentials: with passwords and query secrets in OPENAI_BASE_URL and
CO_API_URL, and both keys set, nothing a browser receives (any element, the URL) or the log holds them."""

from __future__ import annotations

import logging

import pytest

from app_ui import keys
from app_ui.page_catalog import PAGES
from tests.support.apptest_support import messages, new_app, no_problems, open_page
from tests.support.fake_llm import FakeLLM

SECRETS = ("S3CRETPASS", "QSECRET", "C0PASS", "CQSECRET", "sk-OPENAI-SENTINEL-4242", "co-COHERE-SENTINEL-4242")


@pytest.fixture(autouse=True)
def operator_settings(monkeypatch):
    monkeypatch.delenv("RSE_LLM_PROVIDER", raising=False)
    monkeypatch.delenv("RSE_ALLOWED_PRIVATE_HOSTS", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-OPENAI-SENTINEL-4242")
    monkeypatch.setenv("CO_API_KEY", "co-COHERE-SENTINEL-4242")
    monkeypatch.setenv("RSE_LLM_MODEL", "fake-model")
    # A closed port on 127.0.0.1: the Cohere scorer fails to connect and says where it tried.
    monkeypatch.setenv("CO_API_URL", "http://co:C0PASS@127.0.0.1:9/?key=CQSECRET")


def browser_side(at) -> str:
    """Everything the server sends a browser for this page: every element's message (values,
    labels, help, bodies, component arguments) and the URL's query parameters."""
    parts = [str(element.proto) for element in at if getattr(element, "proto", None) is not None]
    return "\n".join([*parts, str(dict(at.query_params))])


def assert_no_secret(text: str, where: str) -> None:
    found = [secret for secret in SECRETS if secret in text]
    assert not found, f"{found} in {where}"


def test_no_page_shows_the_operators_credentials(monkeypatch, caplog):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:S3CRETPASS@llm.example.com/v1?api_key=QSECRET")
    caplog.set_level(logging.DEBUG)
    at = new_app(docs="employee_handbook").run()
    for spec in PAGES:
        open_page(at, spec.url_path)
        assert not at.exception, (spec.url_path, [e.value for e in at.exception])
        assert_no_secret(browser_side(at), spec.url_path)
    open_page(at, "compare")
    assert at.text_input(key="ans_base_url").value == "http://llm.example.com/v1"  # shown, without its secrets
    open_page(at, "explore")
    at.selectbox(key=keys.SCORER).set_value("cohere").run()  # its connection error names the endpoint
    errors = " ".join(messages(at, "error"))
    assert "Could not connect to Cohere at" in errors and "127.0.0.1:9" in errors
    assert_no_secret(browser_side(at), "the Cohere scorer's error")
    assert_no_secret(caplog.text, "the log")


def test_the_operators_endpoint_answers_from_its_shown_form_and_nothing_leaks(monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    with FakeLLM() as fake:
        configured = fake.url.replace("http://", "http://user:S3CRETPASS@") + "/v1"
        monkeypatch.setenv("OPENAI_BASE_URL", configured)  # private, and the operator's: no allowance needed
        at = open_page(new_app(docs="employee_handbook").run(), "compare")
        assert at.text_input(key="ans_base_url").value == f"{fake.url}/v1"
        at.button(key="compare_ask").click().run()
        no_problems(at)
        assert fake.request_count == 4
        assert_no_secret(browser_side(at), "the answers")
    assert_no_secret(caplog.text, "the log")


def test_a_typed_private_address_gets_no_request_and_one_clear_line(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeLLM() as target:
        at = open_page(new_app(docs="employee_handbook").run(), "compare")
        typed = target.url.replace("http://", "http://admin:S3CRETPASS@") + "/v1"
        at.text_input(key="ans_base_url").set_value(typed).run()
        at.text_input(key="ans_api_key").set_value("sk-users-own-key").run()
        refusal = " ".join(messages(at, "info"))
        assert "This address (127.0.0.1) is private (loopback)" in refusal
        assert_no_secret(refusal, "the refusal")  # the typed password stays in the user's own field only
        assert "compare_ask" not in [button.key for button in at.button]
        assert target.request_count == 0


def test_the_cohere_base_url_is_shown_without_its_secrets(monkeypatch, caplog):
    monkeypatch.setenv("RSE_LLM_PROVIDER", "cohere")
    caplog.set_level(logging.DEBUG)
    at = open_page(new_app(docs="employee_handbook").run(), "compare")
    assert at.text_input(key="ans_base_url").value == "http://127.0.0.1:9/"
    assert_no_secret(browser_side(at), "compare, with Cohere chat")
    assert_no_secret(caplog.text, "the log")
