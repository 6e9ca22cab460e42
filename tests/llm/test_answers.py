"""Answers from each context through the real openai and cohere clients, against fake servers."""

from __future__ import annotations

import logging
from functools import cache

import pytest

from rse_core import remote
from rse_core.errors import LLMAuthenticationError, LLMError, LLMRateLimitError, LLMServiceError, ParameterError
from rse_core.llm import answers
from rse_core.llm.answers import (
    ChatClient,
    LLMProvider,
    LLMSettings,
    answer_contexts,
    build_messages,
    estimate_tokens,
    prompt_text,
    resolve_key,
)
from tests.support.fake_llm import FakeLLM, fake_answer

KEY = "sk-SENTINEL-do-not-leak-4242424242"


@pytest.fixture
def fake():
    with FakeLLM(api_key=KEY, slow_seconds=3.0) as server:
        yield server


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr(remote, "_sleep", waits.append)
    return waits


def settings_for(fake: FakeLLM, provider: LLMProvider = LLMProvider.OPENAI, **changes) -> LLMSettings:
    base_url = f"{fake.url}/v1" if provider == LLMProvider.OPENAI else fake.url
    return LLMSettings(provider=provider, model="fake-model", base_url=base_url, **{"timeout": 5.0, **changes})


@cache
def _result():
    from app_ui.samples import SAMPLE_DIR
    from rse_core import extract, get_scorer, load_document

    scorer = get_scorer("minilm", bundled_embeddings=(SAMPLE_DIR / "embeddings",))
    return extract(
        load_document(SAMPLE_DIR / "employee_handbook.pdf"),
        "How long is the probation period for new hires?",
        scorer=scorer,
    )


def test_contexts_share_one_prompt_and_differ_only_in_context():
    result = _result()
    contexts = answer_contexts(result)
    assert [c.key for c in contexts][:3] == ["rse", "top_k", "top_k_budget"]
    assert contexts[0].text == result.rse_context() and contexts[0].document_characters == result.rse_characters
    prompts = [build_messages(result.queries[0], c.text) for c in contexts]
    assert all(p[0] == prompts[0][0] for p in prompts)  # one system prompt
    for prompt, context in zip(prompts, contexts, strict=True):
        assert prompt[1]["content"] == answers.USER_TEMPLATE.format(context=context.text, question=result.queries[0])
    assert "--- system ---" in prompt_text(prompts[0]) and contexts[0].estimated_tokens == estimate_tokens(
        contexts[0].text
    )


def test_window_context_is_used_when_the_pipeline_has_one():
    class WithWindow:
        def __init__(self, result):
            self._result = result
            self.window = ("w",)

        def __getattr__(self, name):
            return getattr(self._result, name)

        def window_context(self):
            return "[W1] somewhere\ntext"

        def window_characters(self):
            return 4

    contexts = answer_contexts(WithWindow(_result()))
    assert contexts[-1].key == "window" and contexts[-1].document_characters == 4


@pytest.mark.parametrize("provider", [LLMProvider.OPENAI, LLMProvider.COHERE])
def test_answer_streams_in_pieces_with_usage(fake, provider):
    messages = build_messages("How long is the probation period?", "[S1] Handbook\nThe probation period is six months.")
    client = ChatClient(settings_for(fake, provider), KEY)
    pieces = list(client.stream(messages))
    assert len(pieces) > 1
    expected = "According to the context [S1]: The probation period is six months."
    assert "".join(pieces) == fake_answer(messages) == expected
    assert client.usage.input_tokens and client.usage.output_tokens
    request = fake.requests[-1]
    assert request["authorization"] == f"Bearer {KEY}"
    assert request["body"]["messages"] == messages and request["body"]["stream"] is True
    assert KEY not in request["path"]


@pytest.mark.parametrize("provider", [LLMProvider.OPENAI, LLMProvider.COHERE])
def test_rejected_key(fake, provider):
    client = ChatClient(settings_for(fake, provider), "wrong-key-123")
    with pytest.raises(LLMAuthenticationError, match="rejected the API key"):
        client.answer(build_messages("q", "c"))


@pytest.mark.parametrize("provider", [LLMProvider.OPENAI, LLMProvider.COHERE])
def test_rate_limit_is_retried_a_bounded_number_of_times(fake, provider, no_backoff):
    fake.fail("rate_limited", times=2)
    client = ChatClient(settings_for(fake, provider, max_retries=2), KEY)
    assert client.answer(build_messages("probation", "[S1] x\nprobation is long."))
    assert fake.request_count == 3 and no_backoff == [1.0, 2.0]
    fake.fail("rate_limited")
    with pytest.raises(LLMRateLimitError, match="HTTP 429 on 3 attempt"):
        client.answer(build_messages("q", "c"))
    assert fake.request_count == 6


@pytest.mark.parametrize("provider", [LLMProvider.OPENAI, LLMProvider.COHERE])
def test_timeout(fake, provider):
    fake.fail("slow")
    client = ChatClient(settings_for(fake, provider, timeout=0.5, max_retries=0), KEY)
    with pytest.raises(LLMServiceError, match=r"did not answer within 0\.5 s"):
        client.answer(build_messages("q", "c"))


@pytest.mark.parametrize("provider", [LLMProvider.OPENAI, LLMProvider.COHERE])
def test_dropped_connection_is_retried_then_reported(fake, provider):
    fake.fail("drop", times=1)
    client = ChatClient(settings_for(fake, provider, max_retries=1), KEY)
    assert client.answer(build_messages("probation", "[S1] x\nprobation."))
    fake.fail("drop")
    with pytest.raises(LLMServiceError):
        client.answer(build_messages("q", "c"))


@pytest.mark.parametrize("provider", [LLMProvider.OPENAI, LLMProvider.COHERE])
def test_malformed_and_cut_streams(fake, provider):
    client = ChatClient(settings_for(fake, provider, max_retries=0), KEY)
    fake.fail("malformed_json", times=1)
    with pytest.raises(LLMServiceError):
        client.answer(build_messages("q", "c"))
    fake.fail("server_error")
    with pytest.raises(LLMServiceError, match="HTTP 500"):
        client.answer(build_messages("q", "c"))


def test_keys_never_appear_in_any_output(caplog, provider_pairs=(LLMProvider.OPENAI, LLMProvider.COHERE)):
    """A server that echoes the Authorization header in its errors and its answers."""
    caplog.set_level(logging.DEBUG)
    outputs: list[str] = []
    with FakeLLM(api_key=KEY, echo_authorization=True) as echo:
        for provider in provider_pairs:
            client = ChatClient(settings_for(echo, provider, max_retries=1), KEY)
            outputs.append(repr(client) + repr(client.settings) + client.settings.describe())
            outputs.append(client.answer(build_messages("probation", "[S1] x\nprobation.")))
            outputs.extend(client.stream(build_messages("probation", "[S1] x\nprobation.")))
            for mode in ("rate_limited", "server_error", "unauthorized", "drop", "malformed_json"):
                echo.fail(mode)
                with pytest.raises(LLMError) as caught:
                    client.answer(build_messages("q", "c"))
                error = caught.value
                outputs += [str(error), repr(error), str(error.__cause__), str(error.__context__)]
            echo.fail(None)
            wrong = ChatClient(settings_for(echo, provider), KEY[::-1])
            with pytest.raises(LLMAuthenticationError) as caught:
                wrong.answer(build_messages("q", "c"))
            outputs.append(str(caught.value))
    joined = "\n".join(outputs) + caplog.text
    assert "(request came with Bearer [api key])" in joined  # the echo arrived, scrubbed
    assert KEY not in joined and KEY[::-1] not in joined


def test_settings_are_validated():
    with pytest.raises(ParameterError, match="provider"):
        LLMSettings(provider="llama", model="m")
    with pytest.raises(ParameterError, match="model"):
        LLMSettings(model=" ")
    with pytest.raises(ParameterError, match="http"):
        LLMSettings(model="m", base_url="ftp://x")
    with pytest.raises(LLMAuthenticationError, match="CO_API_KEY"):
        ChatClient(LLMSettings(provider=LLMProvider.COHERE, model="command"), None)


def test_key_resolution_order():
    assert (
        resolve_key(LLMProvider.OPENAI, " typed ", {"OPENAI_API_KEY": "env"}, {"OPENAI_API_KEY": "secret"}) == "typed"
    )
    assert resolve_key(LLMProvider.OPENAI, "", {"OPENAI_API_KEY": "env"}, {"OPENAI_API_KEY": "secret"}) == "env"
    assert resolve_key(LLMProvider.COHERE, None, {}, {"CO_API_KEY": "secret"}) == "secret"
    assert resolve_key(LLMProvider.COHERE, None, {}, {}) is None


def test_credentials_in_a_base_url_are_never_shown(fake):
    settings = LLMSettings(model="m", base_url=f"http://user:{KEY}@127.0.0.1:9/v1", timeout=1.0, max_retries=0)
    assert KEY not in settings.describe() and settings.display_url == "http://127.0.0.1:9/v1"
    with pytest.raises(LLMServiceError) as caught:
        ChatClient(settings, None).answer(build_messages("q", "c"))
    assert KEY not in str(caught.value)
