"""rse_core.remote (the retry and key scrubbing the Cohere scorer and the LLM answers share), the
scorers' bounded caches, and the calibration kinds; no network."""

from __future__ import annotations

import numpy as np
import pytest

from rse_core import remote
from rse_core.chunking import chunk_document
from rse_core.documents import Document
from rse_core.errors import ParameterError, ScoringServiceError
from rse_core.remote import REDACTED, RetryPolicy, Transient, call_with_retries, scrub, scrub_stream, server_detail
from rse_core.scoring import Calibration, CalibrationKind, get_scorer
from rse_core.scoring.embedding_cache import EmbeddingCache

KEY = "co-REMOTE-secret-0123456789abcdef"


class Flaky(Exception):
    pass


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits, recorded on a clock that only they advance."""
    recorded: list[float] = []
    monkeypatch.setattr(remote, "_sleep", recorded.append)
    monkeypatch.setattr(remote, "_clock", lambda: sum(recorded))
    return recorded


def failing(times: int, result: str = "ok"):
    calls = {"count": 0}

    def call() -> str:
        calls["count"] += 1
        if calls["count"] <= times:
            raise Flaky(f"failure {calls['count']}")
        return result

    return call, calls


def transient(error: Exception, attempt: int) -> Transient | None:
    if isinstance(error, Flaky):
        return Transient("a flake", ScoringServiceError(f"gave up on {attempt} attempt(s)"))
    return None


def test_transient_failures_are_retried_with_doubling_capped_waits(waits: list[float]) -> None:
    call, calls = failing(4)
    policy = RetryPolicy(max_retries=5, base_delay=1.0, max_delay=3.0)
    assert call_with_retries(call, transient, policy, "test") == "ok"
    assert calls["count"] == 5 and waits == [1.0, 2.0, 3.0, 3.0]


def test_the_callers_error_comes_without_the_sdk_exception_as_context(waits: list[float]) -> None:
    call, calls = failing(10)
    with pytest.raises(ScoringServiceError, match="on 3 attempt") as caught:
        call_with_retries(call, transient, RetryPolicy(max_retries=2), "test")
    assert calls["count"] == 3
    assert caught.value.__context__ is None and caught.value.__cause__ is None


def test_no_wait_starts_past_the_total_time_bound(waits: list[float]) -> None:
    call, _ = failing(10)
    policy = RetryPolicy(max_retries=10, base_delay=4.0, max_delay=100.0, max_total=10.0)
    with pytest.raises(ScoringServiceError, match="on 2 attempt"):
        call_with_retries(call, transient, policy, "test")
    assert waits == [4.0]  # 4 + 8 would pass 10 s


def test_unclassified_exceptions_pass_through_untouched(waits: list[float]) -> None:
    def call() -> str:
        raise KeyError("not ours")

    with pytest.raises(KeyError):
        call_with_retries(call, transient, RetryPolicy(max_retries=3), "test")
    assert waits == []


def test_scrub_removes_the_key_and_any_bearer_token() -> None:
    text = f"denied for {KEY}; header was Authorization: Bearer abc.DEF-123_x/y+z== and bearer {KEY}"
    cleaned = scrub(text, KEY, None, "")
    assert KEY not in cleaned and "abc.DEF" not in cleaned
    assert cleaned.count(REDACTED) == 3 and "Bearer [api key]" in cleaned
    assert scrub("(request came with Bearer [api key])") == "(request came with Bearer [api key])"


def test_a_key_split_across_streamed_pieces_is_still_scrubbed() -> None:
    text = f"before {KEY} after"
    for cut in range(1, len(text)):
        joined = "".join(scrub_stream([text[:cut], text[cut:]], KEY))
        assert joined == f"before {REDACTED} after"
    assert list(scrub_stream(["a", "b"], "")) == ["a", "b"]


def test_server_detail_scrubs_before_it_shortens() -> None:
    message = "x" * 190 + KEY + "\n tail"
    detail = server_detail(message, KEY)
    assert detail.startswith(": ") and len(detail) <= 2 + remote.SERVER_MESSAGE_CHARS
    assert KEY[:8] not in detail and server_detail("  ", KEY) == ""


def test_body_message_reads_cohere_openai_and_plain_bodies() -> None:
    assert remote.body_message({"message": "a"}) == "a"
    assert remote.body_message({"error": {"message": "b"}}) == "b"
    assert remote.body_message("plain") == "plain"
    assert remote.body_message(None) == remote.body_message({"message": 3}) == ""


def test_calibration_kinds_accept_strings_and_refuse_typos() -> None:
    assert Calibration("max_ratio").kind is CalibrationKind.MAX_RATIO == "max_ratio"
    np.testing.assert_allclose(Calibration("max_ratio")(np.array([1.0, 2.0])), [0.5, 1.0])
    with pytest.raises(ParameterError, match="max_ratio"):
        Calibration("maxratio")
    for kind in CalibrationKind:
        assert Calibration(kind, low=0.5, high=1.0 if kind is not CalibrationKind.LINEAR else 2.0).describe()


def test_embedding_memory_cache_keeps_the_most_recent_entries(tmp_path) -> None:
    cache = EmbeddingCache(None, memory_entries=2)
    for key in "abc":
        cache.put(key, np.full((1, 2), ord(key), dtype=np.float32))
    assert cache.get("a", 1) is None and cache.get("b", 1) is not None
    cache.put("d", np.zeros((1, 2), dtype=np.float32))  # "b" was used last, so "c" goes
    assert cache.get("c", 1) is None and cache.get("b", 1) is not None
    disk_only = EmbeddingCache(tmp_path, memory_entries=0)
    disk_only.put("k", np.ones((1, 2), dtype=np.float32))
    assert not disk_only._memory and disk_only.get("k", 1) is not None


def test_bm25_keeps_a_bounded_number_of_indexes() -> None:
    text = "Engines need cooling in summer.\n\nCooling needs water from the tank.\n\nPumps move the water round.\n" * 2
    chunks = chunk_document(Document.from_text(text, name="a.txt"), chunk_size=50)
    for size in (0, 1):
        scorer = get_scorer("bm25", max_indexes=size)
        first = scorer.score("cooling", chunks)
        np.testing.assert_allclose(scorer.score("cooling water", chunks) > 0, True)
        assert len(scorer._indexes) == size and first.max() > 0
