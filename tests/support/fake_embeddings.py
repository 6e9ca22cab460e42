"""A local embeddings service on 127.0.0.1 that misbehaves on request: OpenAI's ``/v1/embeddings``
and Cohere's ``/v2/embed``, each with its real request and reply JSON, for the real clients.

Vectors are words hashed into ``dimension`` buckets (texts sharing words are close), so a base built
through it can be queried meaningfully. :meth:`FakeEmbeddings.schedule` makes chosen requests fail
the ways an endpoint does (500, 429, a vector of another size, NaN, fewer vectors than texts), and
every request's texts are recorded, so tests count what was embedded and retried.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

from tests.support.fake_server import FakeServer, QuietHandler, send_json_bytes

_WORD = re.compile(r"[a-z0-9]+")
FAILURE_MODES = ("server_error", "rate_limited", "wrong_dimension", "nan", "truncated", "unauthorized")


def hashed_vector(text: str, dimension: int) -> list[float]:
    vector = [0.0] * dimension
    for word in _WORD.findall(text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest()[:8], 16) % dimension] += 1.0
    vector[0] += 0.01  # never all zero
    return vector


@dataclass(frozen=True)
class EmbedRequest:
    path: str
    authorization: str | None
    texts: tuple[str, ...]
    input_type: str | None


@dataclass
class FakeEmbeddings(FakeServer):
    """See the module docstring. ``company``: hold each request until this many are open at once
    (or ``slow_seconds`` pass), to see requests in flight together; ``most_open``: the most seen;
    ``seconds_per_text``: answer after this long per text, as a model on a CPU does."""

    FAILURE_MODES: ClassVar[tuple[str, ...]] = FAILURE_MODES
    NAME: ClassVar[str] = "fake-embeddings"

    dimension: int = 16
    company: int = 1
    requests: list[EmbedRequest] = field(default_factory=list)
    most_open: int = 0
    seconds_per_text: float = 0.0
    _plan: dict[int, str] = field(default_factory=dict)
    _from: tuple[int, str] | None = None
    _open: int = 0
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def schedule(self, mode: str | None, *, request: int | None = None, from_request: int | None = None) -> None:
        """Fail embed request number ``request`` (1-based, counted over the server's life), or every
        one from ``from_request`` on, in ``mode``; ``schedule(None)`` heals the server."""
        assert mode is None or mode in FAILURE_MODES, mode
        with self._lock:
            if mode is None:
                self._plan.clear()
                self._from = None
            elif request is not None:
                self._plan[request] = mode
            else:
                self._from = (from_request or 1, mode)

    @property
    def texts(self) -> list[str]:
        with self._lock:
            return [text for request in self.requests for text in request.texts]

    def handler(self) -> type[BaseHTTPRequestHandler]:
        return _make_handler(self)

    def _take(self, request: EmbedRequest) -> str | None:
        with self._lock:
            self.requests.append(request)
            number = len(self.requests)
            if number in self._plan:
                return self._plan.pop(number)
            if self._from is not None and number >= self._from[0]:
                return self._from[1]
            return None

    def _wait_for_company(self) -> None:
        with self._changed:
            self._open += 1
            self.most_open = max(self.most_open, self._open)
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._open >= self.company, timeout=self.slow_seconds)

    def _leave(self) -> None:
        with self._changed:
            self._open -= 1


def _make_handler(fake: FakeEmbeddings) -> type[BaseHTTPRequestHandler]:
    class Handler(QuietHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw) if raw else {}
            cohere = self.path.rstrip("/") == "/v2/embed"
            if not cohere and self.path.rstrip("/") != "/v1/embeddings":
                self._send(404, {"message": f"no route for {self.path}"})
                return
            texts = body.get("texts" if cohere else "input") or []
            texts = [texts] if isinstance(texts, str) else list(texts)
            mode = fake._take(
                EmbedRequest(self.path, self.headers.get("Authorization"), tuple(texts), body.get("input_type"))
            )
            fake._wait_for_company()
            time.sleep(fake.seconds_per_text * len(texts))
            try:
                self._answer(mode, texts, cohere)
            finally:
                fake._leave()

        def _answer(self, mode: str | None, texts: list[str], cohere: bool) -> None:
            statuses = {"server_error": 500, "rate_limited": 429, "unauthorized": 401}
            if mode in statuses:
                message = f"fake {mode} (got {self.headers.get('Authorization')})"  # a proxy echoing the key
                self._send(statuses[mode], {"message": message} if cohere else {"error": {"message": message}})
                return
            vectors = [hashed_vector(text, fake.dimension) for text in texts]
            if mode == "wrong_dimension":
                vectors[-1] = vectors[-1] + [0.5]
            if mode == "nan":
                vectors[0][1] = float("nan")
            if mode == "truncated":
                vectors = vectors[:-1]
            if cohere:
                answer: dict[str, Any] = {
                    "id": "fake",
                    "embeddings": {"float": vectors},
                    "texts": texts,
                    "response_type": "embeddings_by_type",
                    "meta": {"api_version": {"version": "2"}},
                }
            else:
                data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
                answer = {
                    "object": "list",
                    "data": data,
                    "model": "fake",
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                }
            self._send(200, answer)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            send_json_bytes(self, status, json.dumps(payload).encode("utf-8"))

    return Handler
