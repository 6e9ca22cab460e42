"""The answers panel on RSE vs top-k (AppTest): offline prompts, a fake server, keys kept out."""

from __future__ import annotations

import pytest

from rse_core.llm.answers import build_messages, prompt_text
from rse_core.llm.bounds import DEFAULT_MAX_CHARS, DEFAULT_MAX_SECONDS, AnswerBudget
from tests.support.apptest_support import all_text, new_app, no_problems, open_page, rendered, result_of
from tests.support.fake_llm import FakeLLM, fake_answer
from tests.support.whole_reply_llm import WholeReplyLLM, chat_completion

KEY = "sk-APPTEST-SENTINEL-5151515151"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CO_API_KEY", "RSE_LLM_MODEL", "RSE_LLM_PROVIDER"):
        monkeypatch.delenv(name, raising=False)


def shown_text(at) -> str:
    """Everything the page shows except the password field's own value."""
    return "\n".join(line for line in all_text(at).split("\n") if line != KEY)


def test_without_an_endpoint_the_exact_prompts_and_how_to_configure_are_shown():
    at = open_page(new_app(docs="employee_handbook").run(), "compare")
    no_problems(at)
    result = result_of(at)
    text = all_text(at)
    assert "No LLM is configured" in text and "OPENAI_BASE_URL" in text
    codes = [code.value for code in at.code]
    assert prompt_text(build_messages(result.queries[0], result.rse_context())) in codes
    assert prompt_text(build_messages(result.queries[0], result.top_k_context())) in codes
    assert "compare_ask" not in [button.key for button in at.button]  # nothing to send to


def test_answers_from_a_fake_server_side_by_side_and_the_key_stays_out(monkeypatch):
    with FakeLLM(api_key=KEY, echo_authorization=True) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
        monkeypatch.setenv("RSE_LLM_MODEL", "fake-model")
        at = open_page(
            new_app(docs="employee_handbook", q="How long is the probation period for new hires?").run(), "compare"
        )
        at.text_input(key="ans_api_key").set_value(KEY).run()
        no_problems(at)
        assert "4 calls to fake-model" in all_text(at)  # RSE, top-k, top-k at RSE's characters, window
        at.button(key="compare_ask").click().run()
        no_problems(at)
        result = result_of(at)
        shown = "\n".join(m.value for m in at.markdown)
        contexts = (
            result.rse_context(),
            result.top_k_context(),
            result.top_k_context(result.top_k_equal_budget),
            result.window_context(),
        )
        for context in contexts:
            expected = fake_answer(build_messages(result.queries[0], context))
            assert expected.split(": ", 1)[1][:30].replace("-", "\\-") in shown or expected[:20] in shown
        assert fake.request_count == 4
        assert "(server's count)" in all_text(at)
        assert "Bearer \\[api key\\]" in shown or "[api key]" in shown
        assert KEY not in shown_text(at) and KEY not in shown
        assert KEY not in str(dict(at.query_params))
        # asking again is not needed: a rerun shows the stored answers without new calls
        at.run()
        assert fake.request_count == 4


def test_a_rejected_key_is_a_message_in_each_column(monkeypatch):
    with FakeLLM(api_key="the-right-key") as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
        monkeypatch.setenv("RSE_LLM_MODEL", "fake-model")
        at = open_page(new_app(docs="employee_handbook").run(), "compare")
        at.text_input(key="ans_api_key").set_value(KEY).run()
        at.button(key="compare_ask").click().run()
        assert not at.exception
        errors = [e.value for e in at.error]
        assert len(errors) == 4 and all("rejected the API key" in e for e in errors)
        assert KEY not in "\n".join(errors)


def test_evaluate_judge_runs_only_on_request_and_quotes_the_model(monkeypatch):
    with FakeLLM() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
        monkeypatch.setenv("RSE_LLM_MODEL", "fake-judge")
        at = open_page(new_app(docs="employee_handbook").run(), "evaluate")
        no_problems(at)
        assert fake.request_count == 0  # nothing is sent until asked
        text = all_text(at)
        assert "Reference passage:" in text  # the judge prompt is shown
        assert "calls to fake-judge" in text and "answers to grade" in text
        at.button(key="ev_judge_run").click().run()
        no_problems(at)
        assert fake.request_count > 0
        frames = [frame.value for frame in at.dataframe if "mean grade (graded by fake-judge)" in frame.value.columns]
        assert frames and frames[0]["mean grade (graded by fake-judge)"].notna().any()
        assert "recall" in frames[0].columns


def test_the_operators_key_never_goes_to_a_base_url_a_user_typed(monkeypatch):
    """With OPENAI_API_KEY set by the operator, a user who types their own base
    URL and no key is asked for their own key; nothing is sent, so the operator's key cannot leak."""
    with FakeLLM(echo_authorization=True) as attacker:
        monkeypatch.setenv("RSE_ALLOWED_PRIVATE_HOSTS", "127.0.0.1")  # the "user's server" listens there
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("RSE_LLM_MODEL", "fake-model")
        at = open_page(new_app(docs="employee_handbook").run(), "compare")
        at.text_input(key="ans_base_url").set_value(f"{attacker.url}/v1").run()
        no_problems(at)
        assert "own API key" in all_text(at)
        assert "compare_ask" not in [button.key for button in at.button]
        assert attacker.request_count == 0
        assert KEY not in shown_text(at)
        # with their own key, the user's endpoint gets that key and only that key
        at.text_input(key="ans_api_key").set_value("sk-the-users-own").run()
        at.button(key="compare_ask").click().run()
        assert attacker.request_count == 4
        assert [request["authorization"] for request in attacker.requests] == ["Bearer sk-the-users-own"] * 4


def test_a_50_mb_whole_reply_is_the_answer_bounds_message_in_each_column(monkeypatch):
    """A server that ignores streaming and sends 50 MB of JSON used to leave each answer silently empty."""
    with WholeReplyLLM(body=chat_completion("x" * 50_000_000)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("RSE_LLM_MODEL", "fake-model")
        at = open_page(new_app(docs="employee_handbook").run(), "compare")
        at.button(key="compare_ask").click().run()
        assert not at.exception
        errors = [rendered(error.value) for error in at.error]
        assert errors == [str(AnswerBudget(DEFAULT_MAX_CHARS, DEFAULT_MAX_SECONDS).too_long())] * 4
