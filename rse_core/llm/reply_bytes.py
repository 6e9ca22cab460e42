"""Every byte of an LLM's reply is counted against the answer's budget as it arrives, before any
parsing: the bound :mod:`rse_core.llm.bounds` sets on what a reply may carry.

Why here and not on the parsed pieces: the OpenAI client reads a whole server-sent event, or a
whole non-streaming reply, before anything sees its text, so a 50 MB reply was loaded in full.
:class:`ReplyMeter` is a response hook of its HTTP client: it swaps each response's body for one
that is decompressed first (so a compressed reply is counted at its real size) and counted, and
that raises :class:`~rse_core.errors.LLMAnswerLimitError` when the budget is spent. (Cohere's
client refuses a reply that is not an event stream, and any line over 1 MiB, itself.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx2

from rse_core.llm.bounds import AnswerBudget

_BODY_HEADERS = ("content-encoding", "content-length")  # they describe the body as sent, not as counted


class _CountedBody(httpx2.SyncByteStream):
    """A response's body, decompressed, each piece counted before it is handed on."""

    def __init__(self, decoded: httpx2.Response, count: Callable[[int], None]) -> None:
        self._decoded = decoded
        self._count = count

    def __iter__(self) -> Iterator[bytes]:
        for piece in self._decoded.iter_bytes():
            self._count(len(piece))
            yield piece

    def close(self) -> None:
        self._decoded.close()


@dataclass
class ReplyMeter:
    """A response hook that counts each reply's bytes against ``budget`` (the answer under way;
    ``None``: nothing is counted)."""

    budget: AnswerBudget | None = None

    def __call__(self, response: httpx2.Response) -> None:
        budget = self.budget
        if budget is None:
            return
        decoded = httpx2.Response(
            response.status_code, headers=response.headers, stream=response.stream, request=response.request
        )
        for name in _BODY_HEADERS:
            if name in response.headers:
                del response.headers[name]
        response.stream = _CountedBody(decoded, budget.count_bytes)

    @property
    def hooks(self) -> dict[str, list[Callable[[httpx2.Response], None]]]:
        """The HTTP client's ``event_hooks`` argument."""
        return {"response": [self]}
