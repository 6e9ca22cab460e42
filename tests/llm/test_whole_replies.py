"""A server that ignores ``stream=True`` and sends one whole JSON chat completion is read like a
stream, with the same bounds: a 50 MB reply, or one 50 MB event of a stream, stops at the bound,
with the streams' message, before it is read in full (a real HTTP server on 127.0.0.1)."""

from __future__ import annotations

import pytest

from rse_core.llm.answers import ChatClient, LLMSettings, build_messages
from rse_core.llm.bounds import AnswerBudget
from rse_core.llm.collect import collect_answer
from tests.support.whole_reply_llm import WholeReplyLLM, chat_completion, one_event

MESSAGES = build_messages("What is the probation period?", "[S1]\nThe probation period is six months.")
FIFTY_MB = 50_000_000


def client_for(server: WholeReplyLLM, **changes) -> ChatClient:
    return ChatClient(LLMSettings(model="fake-model", base_url=f"{server.url}/v1", **{"timeout": 10.0, **changes}))


def too_long_message(max_chars: int) -> str:
    return str(AnswerBudget(max_chars, 60.0).too_long())


def test_a_whole_reply_is_the_answer_with_its_token_counts():
    with WholeReplyLLM(body=chat_completion("The probation period is six months [S1].")) as server:
        answer = collect_answer(client_for(server), MESSAGES)
    assert (answer.text, answer.error) == ("The probation period is six months [S1].", None)
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (12, 3)


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_a_50_mb_whole_reply_stops_at_the_bound_with_the_streams_message_before_it_is_all_read(compressed):
    body = chat_completion("x" * FIFTY_MB)
    with WholeReplyLLM(body=body, gzip=compressed) as server:
        answer = collect_answer(client_for(server), MESSAGES)
        assert answer.error == too_long_message(LLMSettings(model="m").max_chars) and answer.cut
        if not compressed:
            server.stop()  # the handler has finished writing what the client took
            assert server.bytes_sent < len(body) // 2


def test_a_whole_reply_longer_than_an_answer_is_cut_like_a_stream():
    with WholeReplyLLM(body=chat_completion("six months. " * 1_000)) as server:
        answer = collect_answer(client_for(server, max_chars=500), MESSAGES)
    assert answer.text == ("six months. " * 1_000)[:500]
    assert answer.error == too_long_message(500) and answer.cut


@pytest.mark.parametrize(
    "body",
    [b'{"choices": ' + b"[" * 100_000, b'{"choices": []}', b'{"choices": [{"message": {"content": [1, 2]}}]}', b"{"],
    ids=["nested", "no-choice", "not-text", "truncated"],
)
def test_a_whole_reply_that_is_no_chat_completion_is_one_clear_line(body):
    with WholeReplyLLM(body=body) as server:
        answer = collect_answer(client_for(server), MESSAGES)
    assert answer.text == "" and not answer.cut
    assert answer.error is not None and "could not be read" in answer.error and "OpenAI-compatible" in answer.error


def test_a_stream_of_one_50_mb_event_stops_at_the_bound_before_it_is_all_read():
    body = one_event("x" * FIFTY_MB)
    with WholeReplyLLM(body=body, content_type="text/event-stream") as server:
        answer = collect_answer(client_for(server), MESSAGES)
        assert answer.error == too_long_message(LLMSettings(model="m").max_chars) and answer.cut
        server.stop()
        assert server.bytes_sent < len(body) // 2
