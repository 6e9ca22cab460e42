"""A local chat endpoint that answers every request with one fixed body, of any size, optionally
gzip-compressed: a whole (non-streaming) JSON chat completion, as servers and proxies that ignore
``stream=True`` send, or a stream of one huge event. Runs on 127.0.0.1 (see
:class:`~tests.support.fake_server.FakeServer`).
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


def one_event(content: str) -> bytes:
    """An OpenAI-compatible event stream of one piece, ``content``."""
    event = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "fake-model"}
    event["choices"] = [{"index": 0, "delta": {"content": content}, "finish_reason": None}]
    return f"data: {json.dumps(event)}\n\ndata: [DONE]\n\n".encode()


@dataclass
class WholeReplyLLM(FakeServer):
    """Answers every request with ``body`` as ``content_type`` (gzip-compressed when ``gzip``);
    ``bytes_sent`` counts what the client took before it hung up."""

    NAME: ClassVar[str] = "whole-reply-llm"

    body: bytes = b""
    content_type: str = "application/json"
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
                self.send_header("Content-Type", fake.content_type)
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
