"""Rerank as a second stage over a knowledge base: the real ``cohere`` client against the local fake
of Cohere's /v2/rerank on 127.0.0.1, the values taken from its relevance, and ``rse-kb query --rerank``."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rse_core import RSEParams, remote
from rse_core.chunking import Chunk
from rse_core.cli.kb import main
from rse_core.errors import AuthenticationError, ParameterError, RateLimitError, ScoringServiceError
from rse_core.kb import KBQueryParams, KnowledgeBase, build, query_kb, search_first_stage
from rse_core.kb.rerank import RERANK_FORMS, reranker_from_name
from rse_core.values import chunk_values
from tests.kb.support import HashingEmbedder, as_default_embedder, filler
from tests.support.fake_cohere import FakeCohere, overlap_score

KEY = "co-TEST-RERANK-3b9e1-DISTINCTIVE-SECRET-do-not-leak"
QUERY = "alpha beta gamma"
# Dense (bag-of-words cosine) prefers a chunk saying "alpha" over and over; the reranker (the fake
# scores the share of the query's words a chunk holds) prefers the one chunk holding all three.
ECHO = ("alpha " * 40 + "\n\n") * 3
ANSWER = "The answer names alpha, beta and gamma together in one paragraph about the release.\n\n"


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rerank_docs")
    (folder / "echo.txt").write_text(filler("delta", 2) + "\n" + ECHO + filler("delta", 2, seed=1))
    (folder / "answer.txt").write_text(filler("omega", 3, seed=2) + "\n" + ANSWER + filler("omega", 3, seed=3))
    (folder / "other.txt").write_text(filler("zeta", 6, seed=4))
    kb_dir = tmp_path_factory.mktemp("rerank_kb") / "kb"
    build(kb_dir, sorted(folder.iterdir()), embedder=HashingEmbedder())
    return kb_dir


@pytest.fixture
def kb(kb_dir) -> Iterator[KnowledgeBase]:
    base = KnowledgeBase.open(kb_dir, HashingEmbedder())
    yield base
    base.close()


@pytest.fixture
def fake(monkeypatch) -> Iterator[FakeCohere]:
    monkeypatch.setattr(remote, "_sleep", lambda seconds: None)  # retries without waiting
    monkeypatch.setenv("CO_API_KEY", KEY)
    with FakeCohere(api_key=KEY, echo_authorization=True) as server:
        monkeypatch.setenv("CO_API_URL", server.url)
        yield server


def test_scattered_candidates_are_read_without_the_chunks_between(tmp_path, monkeypatch):
    """A reranker's candidates lie anywhere in a document: reading from the first to the last read
    everything between; each run of near ranges is one read instead."""
    from rse_core.kb.base import READ_GAP

    (tmp_path / "long.txt").write_text(filler("kappa", 80))
    build(tmp_path / "kb", [tmp_path / "long.txt"], embedder=HashingEmbedder())
    kb = KnowledgeBase.open(tmp_path / "kb", HashingEmbedder())
    [(doc_id, entry)] = kb.documents.items()
    last = entry.chunks - 1
    assert last > 2 * READ_GAP + 2, "the test document is too short to hold a gap"
    reads = []
    real_read = kb.store.read
    monkeypatch.setattr(kb.store, "read", lambda *args: reads.append(args[1:]) or real_read(*args))
    chunks = kb.read_chunks([(doc_id, 0, 0), (doc_id, 1, 1), (doc_id, last, last)])
    kb.close()
    assert sorted(chunks[doc_id]) == [0, 1, last]
    assert reads == [(0, 1), (last, last)]


def _best_document(result) -> str:
    return max(result.segments, key=lambda segment: segment.score).document


def test_the_rerank_order_changes_the_segments(kb, fake):
    dense = query_kb(kb, QUERY)
    assert _best_document(dense) == "echo.txt"
    assert dense.values_from == "dense first stage"
    assert fake.request_count == 0

    reranked = query_kb(kb, QUERY, reranker=reranker_from_name("cohere:rerank-v3.5"))
    assert _best_document(reranked) == "answer.txt"
    best = max(reranked.segments, key=lambda segment: segment.score)
    assert "alpha, beta and gamma" in best.text
    assert reranked.top_k == dense.top_k  # the listed baseline stays the first stage's
    sent = sum(len(request.documents) for request in fake.requests)
    assert reranked.values_from == f"rerank cohere:rerank-v3.5 over {sent} first-stage candidates"
    assert all(request.authorization == f"Bearer {KEY}" for request in fake.requests)
    assert all(request.body["model"] == "rerank-v3.5" for request in fake.requests)
    assert reranked.to_dict()["values_from"] == reranked.values_from
    assert "rerank" in reranked.timings
    # The reranker reads each candidate as the embedder did: its contextual header, then its text.
    sent_texts = [document for request in fake.requests for document in request.documents]
    stored = kb.read_chunks([(hit.doc_id, hit.chunk_index, hit.chunk_index) for hit in dense.top_k[:3]])
    for chunks in stored.values():
        for chunk in chunks.values():
            assert chunk.header, "the base was built with headers"
            assert f"{chunk.header}\n\n{chunk.text}" in sent_texts


def test_documents_are_selected_from_the_reranked_order_as_dsrag_does(kb, fake):
    """With one document selected, the first stage would pick the echo and never rerank the answer;
    dsRAG reranks the base-wide candidates first and selects from the reranked order."""
    one = KBQueryParams(documents_selected=1)
    assert query_kb(kb, QUERY, kb_params=one).selected_names == ("echo.txt",)
    reranked = query_kb(kb, QUERY, kb_params=one, reranker=reranker_from_name("cohere:rerank-v3.5"))
    assert reranked.selected_names == ("answer.txt",)
    assert "alpha, beta and gamma" in max(reranked.segments, key=lambda segment: segment.score).text
    # Every first-stage hit of the base was a candidate (fewer than rerank_candidates here).
    sent = sum(len(request.documents) for request in fake.requests)
    assert sent == len(search_first_stage(kb, QUERY, one).hits[0])


def test_values_start_from_cohere_relevance_through_the_beta_cdf(kb, fake):
    """dsRAG's transform: beta.cdf(relevance, 0.4, 0.4) * exp(-rank / decay) - penalty, ranked by
    relevance across the selected documents; a chunk not reranked is worth minus the penalty."""
    params = RSEParams()
    kb_params = KBQueryParams(rerank_candidates=7)
    first = search_first_stage(kb, QUERY, kb_params, reranker_from_name("cohere:rerank-v3.5"))
    result = query_kb(kb, QUERY, params, kb_params, reranker_from_name("cohere:rerank-v3.5"))
    reranked = first.valued[0]
    stored = kb.read_chunks((hit.doc_id, hit.chunk_index, hit.chunk_index) for hit in reranked)
    relevance = {
        (hit.doc_id, hit.chunk_index): overlap_score(QUERY, stored[hit.doc_id][hit.chunk_index].text)
        for hit in reranked
    }
    assert len(relevance) == 7 == first.reranked

    raw, order, lengths = [], [], []
    for doc_id in result.selected_documents:
        ends = kb.chunk_ends(doc_id)
        lengths += list(np.diff(ends, prepend=0))
        for index in range(len(ends)):
            raw.append(relevance.get((doc_id, index), 0.0))
            order.append(relevance.get((doc_id, index), -1.0))  # not reranked: after every candidate
    expected = chunk_values(np.array(raw), params, chunk_lengths=np.array(lengths), raw=np.array(order)).value
    got = np.concatenate([result.values[doc_id][0] for doc_id in result.selected_documents])
    np.testing.assert_allclose(got, expected, atol=1e-12)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limit=st.integers(1, 40), penalty=st.floats(0.05, 0.5))
def test_only_the_reranked_candidates_escape_the_penalty(kb, fake, limit, penalty):
    params = RSEParams(irrelevant_chunk_penalty=penalty)
    result = query_kb(kb, QUERY, params, KBQueryParams(rerank_candidates=limit), reranker_from_name("cohere:m"))
    values = np.concatenate([result.values[doc_id][0] for doc_id in result.selected_documents])
    assert np.count_nonzero(values != -penalty) <= limit
    assert int(result.values_from.split(" over ")[1].split()[0]) <= limit
    assert len(fake.requests[-1].documents) <= limit


@pytest.mark.parametrize(
    ("mode", "error", "words"),
    [("server_error", ScoringServiceError, "HTTP 500"), ("rate_limited", RateLimitError, "HTTP 429")],
)
def test_a_failing_reranker_is_a_clear_error_without_the_key(kb, fake, mode, error, words):
    fake.fail(mode)
    with pytest.raises(error) as raised:
        query_kb(kb, QUERY, reranker=reranker_from_name("cohere:rerank-v3.5", max_retries=2))
    assert words in str(raised.value)
    assert KEY not in str(raised.value)
    assert fake.request_count == 3  # the first try and two retries


def test_the_operator_key_goes_only_where_the_operator_said(fake, monkeypatch):
    typed = "http://127.0.0.1:9/elsewhere"
    with pytest.raises(AuthenticationError, match="not the configured one"):
        reranker_from_name("cohere:rerank-v3.5", typed, url_from_operator=False)
    assert reranker_from_name("cohere:rerank-v3.5", fake.url, url_from_operator=False).name == "cohere:rerank-v3.5"
    assert reranker_from_name("cohere:m", typed, api_key="users-own-key", url_from_operator=False)
    assert reranker_from_name("cohere:m", typed)  # the operator typed it (the CLI's --rerank-base-url)


@pytest.mark.parametrize("name", ["", "cohere", "cohere:", "minilm", "/no/such/folder", "bm25"])
def test_an_unknown_reranker_lists_the_forms(name):
    with pytest.raises(ParameterError) as raised:
        reranker_from_name(name)
    assert RERANK_FORMS in str(raised.value)


def test_a_base_url_is_for_cohere_only(tmp_path):
    with pytest.raises(ParameterError, match="for cohere:MODEL"):
        reranker_from_name(str(tmp_path), "http://127.0.0.1:9")


@pytest.fixture
def cli_kb(kb_dir, monkeypatch, tmp_path):
    """The module's base opened by the CLI, its recorded embedder made model-free."""
    as_default_embedder(monkeypatch)
    monkeypatch.setattr("rse_core.embedders.names.embedder_from_name", lambda *a, **k: HashingEmbedder())
    monkeypatch.setattr("rse_core.cli.kb.embedder_for", lambda *a, **k: HashingEmbedder())
    return kb_dir


def test_cli_query_rerank_text_and_json(cli_kb, fake, capsys):
    args = ["query", str(cli_kb), "-q", QUERY, "--rerank", "cohere:rerank-v3.5", "--rerank-candidates", "30"]
    assert main(args) == 0
    text = capsys.readouterr().out
    sent = sum(len(request.documents) for request in fake.requests)
    assert f"Values from: rerank cohere:rerank-v3.5 over {sent} first-stage candidates" in text
    assert 0 < sent <= 30
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["values_from"] == f"rerank cohere:rerank-v3.5 over {sent} first-stage candidates"
    assert max(data["segments"], key=lambda segment: segment["score"])["document"] == "answer.txt"

    assert main(["query", str(cli_kb), "-q", QUERY, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values_from"] == "dense first stage"


def test_cli_rerank_base_url_reaches_the_named_endpoint(cli_kb, fake, monkeypatch, capsys):
    monkeypatch.delenv("CO_API_URL")
    args = ["query", str(cli_kb), "-q", QUERY, "--rerank", "cohere:m", "--rerank-base-url", fake.url, "--json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["values_from"].startswith("rerank cohere:m over ")
    assert fake.request_count >= 1


def test_cli_errors_are_one_line_without_the_key(cli_kb, fake, capsys):
    assert main(["query", str(cli_kb), "-q", QUERY, "--rerank", "nonsense"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and RERANK_FORMS in err

    fake.fail("server_error")
    assert main(["query", str(cli_kb), "-q", QUERY, "--rerank", "cohere:rerank-v3.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "HTTP 500" in err and KEY not in err

    assert main(["query", str(cli_kb), "-q", QUERY, "--rerank-base-url", fake.url]) == 2
    assert "needs --rerank" in capsys.readouterr().err


@pytest.fixture(scope="module")
def cross_encoder_tests():
    """The scorer's own tests' helpers: a tiny random cross-encoder saved like a downloaded one."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return pytest.importorskip("tests.core.test_scorer_cross_encoder")


@pytest.fixture(scope="module")
def folder(cross_encoder_tests, tmp_path_factory):
    return cross_encoder_tests.save_tiny_cross_encoder(tmp_path_factory.mktemp("ce") / "tiny-reranker")


@pytest.mark.slow  # imports torch and loads a model from disk
def test_a_cross_encoder_folder_reranks_with_its_own_calibration(kb, folder, cross_encoder_tests, monkeypatch):
    monkeypatch.setattr(cross_encoder_tests, "QUERY", QUERY)  # the reference logits read the module's query
    reranker = reranker_from_name(str(folder))
    first = search_first_stage(kb, QUERY, KBQueryParams(rerank_candidates=5), reranker)
    hits = first.valued[0]
    assert len(hits) == first.reranked == 5
    stored = kb.read_chunks((hit.doc_id, hit.chunk_index, hit.chunk_index) for hit in hits)
    chunks = [  # what the reranker reads: each chunk's header, then its text
        Chunk(hit.doc_id, hit.chunk_index, 0, 1, found.text, header=found.header)
        for hit in hits
        for found in [stored[hit.doc_id][hit.chunk_index]]
    ]
    assert all(chunk.header for chunk in chunks)
    logits = cross_encoder_tests.reference_logits(folder, chunks)
    np.testing.assert_allclose([hit.order for hit in hits], logits, atol=1e-4)
    np.testing.assert_allclose([hit.score for hit in hits], 1 / (1 + np.exp(-logits)), atol=1e-4)

    result = query_kb(kb, QUERY, kb_params=KBQueryParams(rerank_candidates=5), reranker=reranker)
    assert result.values_from == f"rerank {folder} over 5 first-stage candidates"


@pytest.mark.slow
def test_cli_query_rerank_with_a_folder(cli_kb, folder, capsys):
    assert main(["query", str(cli_kb), "-q", QUERY, "--rerank", str(folder), "--rerank-candidates", "4"]) == 0
    assert f"Values from: rerank {folder} over 4 first-stage candidates" in capsys.readouterr().out
    assert main(["query", str(cli_kb), "-q", QUERY, "--rerank", str(folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values_from"].startswith(f"rerank {folder} over ")
