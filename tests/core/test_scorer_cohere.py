"""CohereScorer against a local fake of Cohere's /v2/rerank, through the real ``cohere`` SDK."""

from __future__ import annotations

import logging
import socket
import time
import traceback
from collections.abc import Iterator

import numpy as np
import pytest

from rse_core import remote
from rse_core.chunking import Chunk, chunk_document, scoring_text
from rse_core.documents import Document
from rse_core.errors import (
    AuthenticationError,
    InvalidScoresError,
    ParameterError,
    QueryError,
    RateLimitError,
    RSEError,
    ScorerError,
    ScoringServiceError,
)
from rse_core.scoring import Scorer, get_scorer
from rse_core.scoring.cohere_rerank import CohereScorer
from tests.support.fake_cohere import FakeCohere, overlap_score

KEY = "co-TEST-7f3a9c-DISTINCTIVE-SECRET-do-not-leak-41d2"
QUERY = "How many vacation days do new employees get per year?"

PARAGRAPHS = [
    "Welcome to the company. This handbook explains our policies.",
    "New employees get fifteen vacation days per year, rising with seniority.",
    "The office opens at eight and closes at six on weekdays.",
    "Vacation requests go to your manager two weeks in advance.",
    "Expense reports are due at the end of each month.",
    "Employees may carry over five unused days into the next year.",
    "Parking is free in the north garage for all staff.",
    "How many sick days? Ten per year, separate from vacation days.",
    "The cafeteria serves lunch from noon until two.",
    "Questions about this handbook go to human resources.",
]


@pytest.fixture
def chunks() -> list[Chunk]:
    text = "\n\n".join(PARAGRAPHS) + "\n"
    result = chunk_document(Document.from_text(text, name="handbook.txt"), chunk_size=80)
    assert len(result) == 10, "the fixture text should give exactly one chunk per paragraph"
    return result


@pytest.fixture
def server() -> Iterator[FakeCohere]:
    with FakeCohere(api_key=KEY, slow_seconds=3.0) as fake:
        yield fake


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own Cohere settings must not leak into (or rescue) a test."""
    monkeypatch.delenv("CO_API_KEY", raising=False)
    monkeypatch.delenv("CO_API_URL", raising=False)


def make_scorer(server: FakeCohere, **options: object) -> CohereScorer:
    settings: dict[str, object] = {"api_key": KEY, "base_url": server.url, "retry_base_delay": 0, "timeout": 5}
    settings.update(options)
    return CohereScorer(**settings)  # type: ignore[arg-type]


def expected_scores(chunks: list[Chunk]) -> np.ndarray:
    return np.array([overlap_score(QUERY, scoring_text(chunk)) for chunk in chunks])


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# -- happy path ---------------------------------------------------------------------------------


def test_scores_come_back_in_document_order(server: FakeCohere, chunks: list[Chunk]) -> None:
    expected = expected_scores(chunks)
    # The service answers best-first; if that were document order the test could not fail.
    assert not np.array_equal(expected, np.sort(expected)[::-1])

    scores = make_scorer(server).score(QUERY, chunks)

    np.testing.assert_allclose(scores, expected)
    assert server.request_count == 1
    sent = server.requests[0]
    assert sent.path == "/v2/rerank"
    assert sent.documents == [scoring_text(chunk) for chunk in chunks]  # header and text, as chunked
    assert sent.body is not None and sent.body["model"] == "rerank-v3.5"
    assert sent.body["query"] == QUERY
    assert sent.authorization == f"Bearer {KEY}"


def test_long_documents_are_batched_and_reassembled(server: FakeCohere, chunks: list[Chunk]) -> None:
    calls: list[tuple[float, str]] = []
    scores = make_scorer(server, batch_size=3).score(QUERY, chunks, progress=lambda f, label: calls.append((f, label)))

    np.testing.assert_allclose(scores, expected_scores(chunks))
    assert [len(request.documents) for request in server.requests] == [3, 3, 3, 1]
    assert [doc for request in server.requests for doc in request.documents] == [scoring_text(c) for c in chunks]
    assert [fraction for fraction, _ in calls] == [0.25, 0.5, 0.75, 1.0]
    assert calls[0][1] == "Cohere rerank: batch 1 of 4"


def test_get_scorer_builds_a_working_cohere_scorer(server: FakeCohere, chunks: list[Chunk]) -> None:
    scorer = get_scorer("cohere", api_key=KEY, base_url=server.url, retry_base_delay=0)

    assert isinstance(scorer, CohereScorer)
    assert isinstance(scorer, Scorer)
    assert (scorer.name, scorer.model) == ("cohere", "rerank-v3.5")
    assert scorer.calibration.kind == "identity"
    np.testing.assert_allclose(scorer.score(QUERY, chunks), expected_scores(chunks))


def test_model_option_is_sent(server: FakeCohere, chunks: list[Chunk]) -> None:
    make_scorer(server, model="rerank-english-v3.0").score(QUERY, chunks[:2])
    assert server.requests[0].body is not None
    assert server.requests[0].body["model"] == "rerank-english-v3.0"


def test_key_and_url_default_to_environment(
    server: FakeCohere, chunks: list[Chunk], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CO_API_KEY", KEY)
    monkeypatch.setenv("CO_API_URL", server.url)

    scorer = CohereScorer(retry_base_delay=0)

    assert scorer.base_url == server.url
    np.testing.assert_allclose(scorer.score(QUERY, chunks), expected_scores(chunks))
    assert server.requests[0].authorization == f"Bearer {KEY}"


def test_empty_chunk_list_needs_no_request(server: FakeCohere) -> None:
    assert make_scorer(server).score(QUERY, []).shape == (0,)
    assert server.request_count == 0


def test_empty_query_is_refused_before_any_request(server: FakeCohere, chunks: list[Chunk]) -> None:
    with pytest.raises(QueryError):
        make_scorer(server).score("   ", chunks)
    assert server.request_count == 0


# -- configuration errors -----------------------------------------------------------------------


def test_missing_key_says_how_to_provide_one() -> None:
    with pytest.raises(AuthenticationError, match="CO_API_KEY"):
        CohereScorer()
    with pytest.raises(AuthenticationError):
        CohereScorer(api_key="   ")


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"batch_size": 0}, ParameterError),
        ({"batch_size": 1001}, ParameterError),
        ({"timeout": 0}, ParameterError),
        ({"max_retries": -1}, ParameterError),
        ({"retry_base_delay": -1}, ParameterError),
        ({"base_url": "127.0.0.1:8080"}, ScorerError),
        ({"model": " "}, ScorerError),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        CohereScorer(api_key=KEY, **options)  # type: ignore[arg-type]


def test_unknown_option_through_registry_is_a_scorer_error() -> None:
    with pytest.raises(ScorerError, match="Bad option"):
        get_scorer("cohere", api_key=KEY, colour="blue")


# -- service failures ---------------------------------------------------------------------------


def test_rejected_key_is_an_authentication_error_without_retry(server: FakeCohere, chunks: list[Chunk]) -> None:
    scorer = CohereScorer(api_key="co-some-other-key", base_url=server.url, retry_base_delay=0)
    with pytest.raises(AuthenticationError, match="Cohere rejected the API key"):
        scorer.score(QUERY, chunks)
    assert server.request_count == 1


def test_forbidden_is_an_authentication_error(server: FakeCohere, chunks: list[Chunk]) -> None:
    server.fail("forbidden")
    with pytest.raises(AuthenticationError, match="HTTP 403"):
        make_scorer(server).score(QUERY, chunks)


def test_rate_limit_twice_then_success(server: FakeCohere, chunks: list[Chunk]) -> None:
    server.fail("rate_limited", times=2)
    scores = make_scorer(server).score(QUERY, chunks)
    np.testing.assert_allclose(scores, expected_scores(chunks))
    assert server.request_count == 3


@pytest.mark.parametrize("max_retries", [0, 3])
def test_rate_limit_forever_gives_up_after_max_retries(
    server: FakeCohere, chunks: list[Chunk], max_retries: int
) -> None:
    server.fail("rate_limited")
    with pytest.raises(RateLimitError, match="429"):
        make_scorer(server, max_retries=max_retries).score(QUERY, chunks)
    assert server.request_count == max_retries + 1


def test_backoff_doubles_from_the_base_delay(
    server: FakeCohere, chunks: list[Chunk], monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []
    monkeypatch.setattr(remote, "_sleep", waits.append)
    server.fail("rate_limited")
    with pytest.raises(RateLimitError):
        make_scorer(server, retry_base_delay=0.5, max_retries=3).score(QUERY, chunks)
    assert waits == [0.5, 1.0, 2.0]


def test_server_error_is_retried_then_reported(server: FakeCohere, chunks: list[Chunk]) -> None:
    server.fail("server_error")
    with pytest.raises(ScoringServiceError, match="HTTP 500"):
        make_scorer(server, max_retries=2).score(QUERY, chunks)
    assert server.request_count == 3


def test_one_unavailable_answer_is_retried(server: FakeCohere, chunks: list[Chunk]) -> None:
    server.fail("unavailable", times=1)
    np.testing.assert_allclose(make_scorer(server).score(QUERY, chunks), expected_scores(chunks))
    assert server.request_count == 2


def test_dropped_connection_is_retried_then_reported(server: FakeCohere, chunks: list[Chunk]) -> None:
    server.fail("drop")
    with pytest.raises(ScoringServiceError, match="closed the connection"):
        make_scorer(server, max_retries=1).score(QUERY, chunks)
    assert server.request_count == 2


def test_one_dropped_connection_is_survived(server: FakeCohere, chunks: list[Chunk]) -> None:
    server.fail("drop", times=1)
    np.testing.assert_allclose(make_scorer(server).score(QUERY, chunks), expected_scores(chunks))
    assert server.request_count == 2


def test_timeout_is_a_service_error_and_not_retried(server: FakeCohere, chunks: list[Chunk]) -> None:
    server.fail("slow")
    started = time.monotonic()
    with pytest.raises(ScoringServiceError, match=r"within 0\.2 s"):
        make_scorer(server, timeout=0.2).score(QUERY, chunks)
    assert time.monotonic() - started < 2
    assert server.request_count == 1


def test_connection_refused_is_a_service_error() -> None:
    scorer = CohereScorer(api_key=KEY, base_url=f"http://127.0.0.1:{closed_port()}", retry_base_delay=0)
    with pytest.raises(ScoringServiceError, match="Could not connect"):
        scorer.score(QUERY, [Chunk("d", 0, 0, 5, "hello")])


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        ("malformed_json", ScoringServiceError),
        ("missing_results", ScoringServiceError),
        ("wrong_index", ScoringServiceError),
        ("bad_score", InvalidScoresError),
    ],
)
def test_malformed_answers_are_clear_errors_and_not_retried(
    server: FakeCohere, chunks: list[Chunk], mode: str, error: type[RSEError]
) -> None:
    server.fail(mode)
    with pytest.raises(error) as caught:
        make_scorer(server).score(QUERY, chunks)
    assert isinstance(caught.value, RSEError)
    assert "Cohere" in str(caught.value)
    assert server.request_count == 1


# -- the key never leaks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mode", [None, "forbidden", "rate_limited", "server_error", "drop", "slow", "malformed_json", "wrong_index"]
)
def test_api_key_never_appears_in_errors_reprs_or_logs(
    chunks: list[Chunk], caplog: pytest.LogCaptureFixture, mode: str | None
) -> None:
    # The server echoes the Authorization header in its error bodies, as a careless proxy might,
    # and accepts only another key when mode is None, so every request fails somehow.
    with FakeCohere(api_key=None if mode else "co-the-right-key", echo_authorization=True, slow_seconds=1) as fake:
        if mode:
            fake.fail(mode)
        scorer = make_scorer(fake, timeout=0.2, max_retries=1)
        caplog.set_level(logging.DEBUG)
        with pytest.raises(RSEError) as caught:
            scorer.score(QUERY, chunks)

    error = caught.value
    shown = [
        str(error),
        repr(error),
        "".join(traceback.format_exception(error)),
        repr(scorer),
        str(scorer),
        caplog.text,
    ]
    assert fake.requests and fake.requests[0].authorization == f"Bearer {KEY}"  # the key was used
    for text in shown:
        assert KEY not in text
        assert KEY[8:30] not in text  # not even a recognisable part of it
