"""An LLM answer is bounded in characters and time, whatever the server does."""

from __future__ import annotations

import time

import pytest

from rse_core import remote
from rse_core.errors import LLMAnswerLimitError, ParameterError
from rse_core.llm.answers import ChatClient, LLMProvider, LLMSettings, build_messages
from rse_core.llm.bounds import DEFAULT_MAX_CHARS, DEFAULT_MAX_SECONDS
from rse_core.llm.collect import collect_answer
from tests.support.fake_llm import FakeLLM

KEY = "sk-SENTINEL-bounds-4242424242"
MESSAGES = build_messages("What is the probation period?", "[S1]\nThe probation period is six months.")
PROVIDERS = [LLMProvider.OPENAI, LLMProvider.COHERE]


@pytest.fixture
def fake():
    with FakeLLM(api_key=KEY) as server:
        yield server


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch):
    monkeypatch.setattr(remote, "_sleep", lambda seconds: None)


def client_for(fake: FakeLLM, provider: LLMProvider, **changes) -> ChatClient:
    base_url = f"{fake.url}/v1" if provider == LLMProvider.OPENAI else fake.url
    settings = LLMSettings(provider=provider, model="fake-model", base_url=base_url, **{"timeout": 5.0, **changes})
    return ChatClient(settings, KEY)


def wait_for_hang_up(fake: FakeLLM, streams: int = 1) -> None:
    """The server's streaming loop ends once the client has closed the connection."""
    for _ in range(200):
        if fake.finished_streams >= streams:
            return
        time.sleep(0.02)
    raise AssertionError("the client kept the endless stream open")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_endless_answer_stops_at_the_character_bound(fake, provider):
    fake.fail("endless")
    received = 0
    with pytest.raises(LLMAnswerLimitError, match=r"cut at 50,000 characters.*RSE_LLM_MAX_CHARS") as caught:
        for piece in client_for(fake, provider, max_chars=50_000).stream(MESSAGES):
            received += len(piece)
    assert 50_000 - len(KEY) <= received <= 50_000
    assert KEY not in str(caught.value)
    wait_for_hang_up(fake)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_drip_stops_at_the_time_bound(fake, provider):
    fake.fail("drip")
    fake.drip_seconds = 0.1  # each read well inside the 5 s read timeout
    answer = collect_answer(client_for(fake, provider, max_seconds=0.6), MESSAGES)
    assert answer.error is not None and "stopped after 0.6 s" in answer.error and "RSE_LLM_MAX_SECONDS" in answer.error
    assert answer.cut and set(answer.text) <= set("abc")  # the last characters may be held back by the key scrub
    wait_for_hang_up(fake)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_drip_slower_than_the_bound_ends_at_the_bound(fake, provider):
    fake.fail("drip")
    fake.drip_seconds = 30.0  # one piece, then silence far beyond the bound
    answer = collect_answer(client_for(fake, provider, max_seconds=0.5), MESSAGES)
    assert answer.error is not None and "RSE_LLM_MAX_SECONDS" in answer.error


def test_collect_answer_keeps_only_the_bounded_text_and_the_message(fake):
    fake.fail("endless")
    seen: list[int] = []
    client = client_for(fake, LLMProvider.OPENAI, max_chars=10_000)
    answer = collect_answer(client, MESSAGES, lambda piece: seen.append(len(piece)))
    assert len(answer.text) <= 10_000 and "RSE_LLM_MAX_CHARS" in (answer.error or "")
    assert sum(seen) == len(answer.text)


def test_a_normal_answer_is_untouched(fake):
    answer = collect_answer(client_for(fake, LLMProvider.OPENAI), MESSAGES)
    assert answer.error is None and not answer.cut and "six months" in answer.text
    assert answer.usage.output_tokens


def test_the_bounds_come_from_the_environment(monkeypatch):
    settings = LLMSettings(model="m")
    assert (settings.max_chars, settings.max_seconds) == (DEFAULT_MAX_CHARS, DEFAULT_MAX_SECONDS)
    monkeypatch.setenv("RSE_LLM_MAX_CHARS", "1234")
    monkeypatch.setenv("RSE_LLM_MAX_SECONDS", "7.5")
    assert (LLMSettings(model="m").max_chars, LLMSettings(model="m").max_seconds) == (1234, 7.5)
    monkeypatch.setenv("RSE_LLM_MAX_CHARS", "lots")
    with pytest.raises(ParameterError, match="RSE_LLM_MAX_CHARS='lots'"):
        LLMSettings(model="m")
    with pytest.raises(ParameterError):
        LLMSettings(model="m", max_chars=0, max_seconds=1)
