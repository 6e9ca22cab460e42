"""A local OpenAI-compatible chat endpoint that ignores ``stream=True`` and answers with one whole
(non-streaming) JSON chat completion, as some servers and proxies do: of any size, optionally
gzip-compressed. Runs on 127.0.0.1 (see :class:`~tests.support.fake_server.FakeServer`).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

from tests.support.fake_server import FakeServer

PIECE_BYTES = 2**20


def chat_completion(content: str, model: str = "fake-model") -> bytes:
    """A non-streaming chat completion answering ``content``, as JSON bytes."""
    reply = {
        "id": "chatcmpl-whole",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }
    return json.dumps(reply).encode("utf-8")


@dataclass
class WholeReplyLLM(FakeServer):
    """Answers every chat completion with ``body`` (the JSON bytes, gzip-compressed when ``gzip``);
    ``bytes_sent`` counts what the client took before it hung up."""

    NAME: ClassVar[str] = "whole-reply-llm"

    body: bytes = b""
    gzip: bool = False
    bytes_sent: int = 0

    def handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with fake._lock:
                    fake.requests.append({"path": self.path})
                data = gzip.compress(fake.body, compresslevel=1) if fake.gzip else fake.body
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if fake.gzip:
                    self.send_header("Content-Encoding", "gzip")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for start in range(0, len(data), PIECE_BYTES):
                        self.wfile.write(data[start : start + PIECE_BYTES])
                        with fake._lock:
                            fake.bytes_sent += len(data[start : start + PIECE_BYTES])
                except OSError:
                    pass  # the client hung up

        return Handler
