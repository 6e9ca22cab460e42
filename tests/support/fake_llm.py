"""Local stand-ins for an OpenAI-compatible ``/v1/chat/completions`` and Cohere's ``/v2/chat``,
streaming like the real ones (server-sent events), for tests and demos that must not leave
127.0.0.1.

The "model" is deterministic: it answers with the sentence of the context that shares the most
words with the question, citing the passage label it came from, so RSE's and top-k's contexts
give visibly different answers. It can be told to fail the way real services do: a rejected key,
rate limiting, a server error, a dropped connection, a slow answer, or a broken event; or the way a
hostile server would: an ``endless`` answer (1 KB pieces as fast as the client reads) or a
``drip`` (3 characters every ``drip_seconds``, forever, each read inside any timeout).

Run on its own for a manual demo: ``python -m tests.support.fake_llm --port 8765`` then point the app's
base URL at ``http://127.0.0.1:8765/v1``.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

from tests.support.fake_server import FakeServer, send_json_bytes

FAILURE_MODES = (
    "unauthorized",
    "rate_limited",
    "server_error",
    "drop",
    "slow",
    "malformed_json",
    "cut_stream",
    "endless",
    "drip",
)
_WORD = re.compile(r"\w+")
_LABEL = re.compile(r"^\[([^\]]+)\]", re.MULTILINE)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]|$)")
_STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "on",
        "and",
        "or",
        "is",
        "are",
        "what",
        "how",
        "for",
        "with",
        "by",
        "me",
        "show",
        "does",
        "do",
    ]
)


def fake_answer(messages: list[dict[str, Any]]) -> str:
    """The best-matching sentence of the context for the question, with its passage label."""
    user = next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
    if "Reference passage:" in user and "Answer to grade:" in user:  # the judge's prompt
        reference, _, answer = user.partition("Reference passage:")[2].partition("Answer to grade:")
        reference_words = set(_WORD.findall(reference.lower())) - _STOPWORDS
        answer_words = set(_WORD.findall(answer.lower())) - _STOPWORDS
        share = len(reference_words & answer_words) / len(reference_words) if reference_words else 0.0
        return f"Grade: {round(10 * share)}\nThe answer shares {share:.0%} of the reference's words."
    context, _, question = user.rpartition("Question:")
    words = {w for w in _WORD.findall(question.lower()) if w not in _STOPWORDS}
    passages: list[tuple[str, list[str]]] = [("", [])]
    for line in context.splitlines():
        found = _LABEL.match(line)
        if found:
            passages.append((found.group(1), []))
        else:
            passages[-1][1].append(line.strip())
    best, best_label, best_score = "", "", 0
    for label, lines in passages:
        for sentence in _SENTENCE.findall(" ".join(lines)):  # a PDF's line breaks are not sentence ends
            score = len(words & set(_WORD.findall(sentence.lower())))
            if score > best_score:
                best, best_label, best_score = sentence.strip(), label, score
    if not best:
        return "The context does not contain the answer."
    return f"According to the context [{best_label}]: {best}"


@dataclass
class FakeLLM(FakeServer):
    """Threaded HTTP server on 127.0.0.1 speaking OpenAI's and Cohere's streaming chat APIs (see
    :class:`FakeServer`). ``delay``: seconds between streamed pieces (so a browser sees the answer
    arrive). ``finished_streams`` counts answers whose streaming ended (an endless one ends only
    when the client closes the connection)."""

    FAILURE_MODES: ClassVar[tuple[str, ...]] = FAILURE_MODES
    NAME: ClassVar[str] = "fake-llm"

    slow_seconds: float = 3.0
    delay: float = 0.0
    drip_seconds: float = 0.3
    finished_streams: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        return _make_handler(self)


def _pieces(text: str) -> list[str]:
    return re.findall(r"\S+\s*", text) or [text]


def _make_handler(fake: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"null")
            except json.JSONDecodeError:
                body = None
            authorization = self.headers.get("Authorization")
            with fake._lock:
                fake.requests.append({"path": self.path, "authorization": authorization, "body": body})
            path = self.path.rstrip("/")
            flavour = "openai" if path.endswith("/chat/completions") else "cohere" if path == "/v2/chat" else None
            if flavour is None:
                self._json(404, {"message": f"no route for {self.path}"})
                return
            if fake.api_key is not None and authorization != f"Bearer {fake.api_key}":
                self._json(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
                return
            mode = fake._next_failure()
            if fake.dropped_or_delayed(self, mode):
                return
            statuses = {"unauthorized": 401, "rate_limited": 429, "server_error": 500}
            if mode in statuses:
                self._json(statuses[mode], {"error": {"message": f"fake {mode}"}, "message": f"fake {mode}"})
                return
            messages = (body or {}).get("messages") or []
            text = fake_answer(messages)
            if fake.echo_authorization:
                text += f" (request came with {authorization})"
            prompt_tokens = sum(len(str(m.get("content", ""))) for m in messages) // 4
            self._stream(flavour, _pieces(text), prompt_tokens, mode, (body or {}).get("model", "fake"))

        def _stream(self, flavour: str, pieces: list[str], prompt_tokens: int, mode: str | None, model: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                if mode in ("endless", "drip"):
                    self._forever(flavour, model, mode)
                    return
                if mode == "malformed_json":
                    self._event('{"id": "x", "choices": [{"delta": {"content": "Trunc')
                    self._event("[DONE]")
                    return
                for number, piece in enumerate(pieces):
                    if mode == "cut_stream" and number == len(pieces) // 2:
                        self.wfile.flush()
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    if flavour == "openai":
                        event = {
                            "id": "chatcmpl-fake",
                            "object": "chat.completion.chunk",
                            "created": 0,
                            "model": model,
                            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
                        }
                    else:
                        event = {
                            "type": "content-delta",
                            "index": 0,
                            "delta": {"message": {"content": {"text": piece}}},
                        }
                    self._event(json.dumps(event))
                    if fake.delay:
                        time.sleep(fake.delay)
                output_tokens = len(pieces)
                if flavour == "openai":
                    self._event(
                        json.dumps(
                            {
                                "id": "chatcmpl-fake",
                                "object": "chat.completion.chunk",
                                "created": 0,
                                "model": model,
                                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                                "usage": {
                                    "prompt_tokens": prompt_tokens,
                                    "completion_tokens": output_tokens,
                                    "total_tokens": prompt_tokens + output_tokens,
                                },
                            }
                        )
                    )
                    self._event("[DONE]")
                else:
                    self._event(
                        json.dumps(
                            {
                                "type": "message-end",
                                "delta": {
                                    "finish_reason": "COMPLETE",
                                    "usage": {
                                        "billed_units": {"input_tokens": prompt_tokens, "output_tokens": output_tokens},
                                        "tokens": {"input_tokens": prompt_tokens, "output_tokens": output_tokens},
                                    },
                                },
                            }
                        )
                    )
            except OSError:
                pass
            finally:
                with fake._lock:
                    fake.finished_streams += 1

        def _forever(self, flavour: str, model: str, mode: str) -> None:
            """Stream until the client hangs up (or the fake stops): fast 1 KB pieces, or a drip."""
            piece = "endless " * 128 if mode == "endless" else "abc"
            while not fake._release.is_set():
                if flavour == "openai":
                    event = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": model}
                    event["choices"] = [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]
                else:
                    event = {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": piece}}}}
                self._event(json.dumps(event))
                if mode == "drip":
                    fake._release.wait(fake.drip_seconds)

        def _event(self, data: str) -> None:
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            if status >= 400 and fake.echo_authorization:
                note = f" (got {self.headers.get('Authorization')})"
                payload = {**payload, "message": f"{payload.get('message', '')}{note}"}
                if isinstance(payload.get("error"), dict):
                    payload["error"] = {**payload["error"], "message": payload["error"]["message"] + note}
            send_json_bytes(self, status, json.dumps(payload).encode("utf-8"))

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description="A fake streaming chat server on 127.0.0.1 for demos and tests.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--delay", type=float, default=0.05, help="seconds between streamed words")
    options = parser.parse_args()
    fake = FakeLLM(delay=options.delay).start(options.port)
    print(f"fake LLM on {fake.url} (OpenAI-compatible: {fake.url}/v1, Cohere: {fake.url})", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
