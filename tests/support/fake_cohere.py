"""A local stand-in for Cohere's ``/v2/rerank`` endpoint, for tests that must not leave 127.0.0.1.

It answers the real request and response JSON with a deterministic score (the share of query
words found in the document), and can be told to fail the way the real service does: a rejected
key, rate limiting, server errors, a dropped connection, a slow answer, or a broken body. Every
request is recorded so tests can check batching and count retries.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

from tests.support.fake_server import FakeServer, send_json_bytes

_WORD = re.compile(r"\w+")

FAILURE_MODES = (
    "unauthorized",  # 401 with Cohere's JSON error body
    "forbidden",  # 403
    "rate_limited",  # 429
    "server_error",  # 500
    "unavailable",  # 503
    "drop",  # read the request, then close the socket without answering
    "slow",  # wait ``slow_seconds`` before answering normally
    "malformed_json",  # 200 with a body that is not JSON
    "missing_results",  # 200 with JSON that has no "results"
    "wrong_index",  # 200 with one result pointing past the documents sent
    "bad_score",  # 200 with a relevance_score that is not a number
)


def overlap_score(query: str, document: str) -> float:
    """Share of the query's distinct words that occur in the document, in [0, 1]."""
    query_words = set(_WORD.findall(query.lower()))
    if not query_words:
        return 0.0
    return len(query_words & set(_WORD.findall(document.lower()))) / len(query_words)


@dataclass(frozen=True)
class RecordedRequest:
    """What the fake server saw of one request."""

    path: str
    authorization: str | None
    body: dict[str, Any] | None

    @property
    def documents(self) -> list[str]:
        return list((self.body or {}).get("documents") or [])


@dataclass
class FakeCohere(FakeServer):
    """Threaded HTTP server on 127.0.0.1 speaking Cohere's rerank API (see :class:`FakeServer`)."""

    FAILURE_MODES: ClassVar[tuple[str, ...]] = FAILURE_MODES
    NAME: ClassVar[str] = "fake-cohere"

    requests: list[RecordedRequest] = field(default_factory=list)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        return _make_handler(self)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)


def _make_handler(fake: FakeCohere) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # answer keep-alive requests without a 40 ms stall

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw) if raw else None
            except json.JSONDecodeError:
                body = None
            fake._record(RecordedRequest(self.path, self.headers.get("Authorization"), body))

            if self.path.rstrip("/") != "/v2/rerank":
                self._send_json(404, {"message": f"no route for {self.path}"})
                return
            if fake.api_key is not None and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
                self._send_json(401, {"message": "invalid api token"})
                return
            if not isinstance(body, dict) or not isinstance(body.get("documents"), list):
                self._send_json(400, {"message": "invalid request: documents must be a list"})
                return

            mode = fake._next_failure()
            if fake.dropped_or_delayed(self, mode):
                return
            statuses = {"unauthorized": 401, "forbidden": 403, "rate_limited": 429, "server_error": 500}
            if mode in statuses:
                self._send_json(statuses[mode], {"message": f"fake {mode}"})
                return
            if mode == "unavailable":
                self._send_json(503, {"message": "service unavailable"})
                return
            if mode == "malformed_json":
                self._send_bytes(200, b'{"id": "x", "results": [{"index": 0, "relevance_')
                return

            documents = [str(document) for document in body["documents"]]
            query = str(body.get("query", ""))
            results = sorted(
                ({"index": i, "relevance_score": overlap_score(query, d)} for i, d in enumerate(documents)),
                key=lambda result: -result["relevance_score"],
            )
            top_n = body.get("top_n")
            if isinstance(top_n, int):
                results = results[:top_n]
            if mode == "wrong_index" and results:
                results[0] = {**results[0], "index": len(documents) + 5}
            if mode == "bad_score" and results:
                results[0] = {**results[0], "relevance_score": "very relevant"}
            answer: dict[str, Any] = {
                "id": str(uuid.uuid4()),
                "results": results,
                "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": 1}},
            }
            if mode == "missing_results":
                del answer["results"]
            self._send_json(200, answer)

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            if status >= 400 and fake.echo_authorization:
                payload = {**payload, "message": f"{payload.get('message')} (got {self.headers.get('Authorization')})"}
            self._send_bytes(status, json.dumps(payload).encode("utf-8"))

        def _send_bytes(self, status: int, data: bytes) -> None:
            send_json_bytes(self, status, data)

    return Handler
