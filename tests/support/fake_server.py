"""What the local fake services share: a threaded HTTP server on 127.0.0.1 that records requests
and can be told to fail the next requests in a named way.

A service (``fake_cohere.FakeCohere``, ``fake_llm.FakeLLM``) subclasses :class:`FakeServer`, names
its ``FAILURE_MODES`` and builds its request handler in :meth:`FakeServer.handler`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Self


@dataclass
class FakeServer:
    """Use as a context manager (or ``start``/``stop``).

    ``api_key``: the only key accepted (others get 401). ``echo_authorization``: copy the
    Authorization header into error bodies, like a badly behaved proxy, to prove a client never
    repeats it. ``fail(mode, times)`` makes the next ``times`` requests fail in ``mode`` (``None``
    times: all of them; ``None`` mode: stop failing). ``slow_seconds``: how long a "slow" answer
    waits (``stop`` releases it at once).
    """

    FAILURE_MODES: ClassVar[tuple[str, ...]] = ()
    NAME: ClassVar[str] = "fake"

    api_key: str | None = None
    echo_authorization: bool = False
    slow_seconds: float = 2.0
    requests: list[Any] = field(default_factory=list)
    _mode: str | None = None
    _remaining: int | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _release: threading.Event = field(default_factory=threading.Event)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class, bound to this fake."""
        raise NotImplementedError

    def fail(self, mode: str | None, times: int | None = None) -> None:
        if mode is not None and mode not in self.FAILURE_MODES:
            raise ValueError(f"unknown failure mode {mode!r}; choose from {self.FAILURE_MODES}")
        with self._lock:
            self._mode, self._remaining = mode, times

    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def start(self, port: int = 0) -> Self:
        server = ThreadingHTTPServer(("127.0.0.1", port), self.handler())
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name=self.NAME, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()  # let slow handlers finish at once
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def dropped_or_delayed(self, handler: BaseHTTPRequestHandler, mode: str | None) -> bool:
        """Act out the transport failures: ``drop`` closes the socket unanswered (True: stop
        handling), ``slow`` waits ``slow_seconds`` (or until ``stop``) before the answer."""
        if mode == "drop":
            handler.close_connection = True
            with contextlib.suppress(OSError):
                handler.connection.shutdown(socket.SHUT_RDWR)
            return True
        if mode == "slow":
            self._release.wait(self.slow_seconds)
        return False

    def _next_failure(self) -> str | None:
        """The failure mode for the request being handled, counting down ``times``."""
        with self._lock:
            if self._mode is None:
                return None
            mode = self._mode
            if self._remaining is not None:
                self._remaining -= 1
                if self._remaining <= 0:
                    self._mode, self._remaining = None, None
            return mode


class QuietHandler(BaseHTTPRequestHandler):
    """A keep-alive handler that answers without Nagle's 40 ms stall and logs nothing."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean


def send_json_bytes(handler: BaseHTTPRequestHandler, status: int, data: bytes) -> None:
    """Answer with a JSON body; a client that gave up (a timeout test) gets nothing, quietly."""
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    except OSError:
        pass
