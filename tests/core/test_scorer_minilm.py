"""The default offline scorer: real MiniLM embeddings, cached in memory and on disk."""

from __future__ import annotations

import numpy as np
import pytest

from rse_core import Document, chunk_document, get_scorer
from rse_core.scoring.embedding_cache import EmbeddingCache

pytestmark = pytest.mark.slow

TEXT = (
    "The heat pump moves warmth from outside air into the house. "
    "Our cafeteria serves soup on Tuesdays and fish on Fridays. "
    "Coolant circulates through the radiator to carry heat away from the engine. "
) * 4


@pytest.fixture(scope="module")
def chunks():
    return chunk_document(Document.from_text(TEXT, name="mixed.txt"), 60)


def test_scores_follow_meaning(tmp_path, chunks):
    scorer = get_scorer("minilm", cache_dir=tmp_path)
    scores = scorer.score("What food is served for lunch?", chunks)
    assert scores.shape == (len(chunks),)
    best = chunks[int(np.argmax(scores))].text
    assert "cafeteria" in best
    calibrated = scorer.calibration(scores)
    assert ((calibrated >= 0) & (calibrated <= 1)).all()


def test_embeddings_are_computed_once_and_reused_from_disk(tmp_path, chunks, monkeypatch):
    first = get_scorer("minilm", cache_dir=tmp_path)
    first.score("engine cooling", chunks)
    assert list((tmp_path / "embeddings").glob("*.npy"))

    second = get_scorer("minilm", cache_dir=tmp_path)  # a new process would start like this
    second._encoder = first._encoder  # share the loaded model; only the encode step is watched
    calls = []
    original = second._encode
    monkeypatch.setattr(second, "_encode", lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs))
    progress = []
    second.score("a different query", chunks, progress=lambda fraction, label: progress.append(fraction))
    assert calls == [] and progress[-1] == 1.0


def test_corrupt_cache_file_is_rebuilt_not_trusted(tmp_path, chunks):
    scorer = get_scorer("minilm", cache_dir=tmp_path)
    expected = scorer.score("engine cooling", chunks)
    for path in (tmp_path / "embeddings").glob("*.npy"):
        path.write_bytes(b"\x93NUMPY garbage")
    fresh = get_scorer("minilm", cache_dir=tmp_path)
    fresh._encoder = scorer._encoder
    assert np.allclose(fresh.score("engine cooling", chunks), expected, atol=1e-5)


def test_cache_write_is_atomic(tmp_path):
    cache = EmbeddingCache(tmp_path)
    cache.put("k", np.ones((3, 4), dtype=np.float32))
    leftovers = [path.name for path in (tmp_path / "embeddings").iterdir() if path.name.startswith(".tmp")]
    assert leftovers == []
    assert EmbeddingCache(tmp_path).get("k", 3).shape == (3, 4)
    assert EmbeddingCache(tmp_path).get("k", 5) is None  # wrong shape: stale, rebuilt


def test_a_scorer_with_its_own_cache_shares_the_model_but_not_the_embeddings(tmp_path, monkeypatch, chunks):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "default"))
    shared = get_scorer("minilm", cache_dir=tmp_path / "shared")
    own = shared.with_own_cache()  # what the app gives a session for its uploads
    scores = own.score("engine cooling", chunks)
    assert own.cache.directory is None and not list(tmp_path.rglob("*.npy"))  # the session's: memory only
    assert not shared.cache._memory  # and not in the shared scorer's cache
    assert np.allclose(scores, shared.score("engine cooling", chunks), atol=1e-6)
    assert own._load() is shared._load()  # one model in memory
    assert len(own.cache._memory) == 1


def test_a_scorer_with_its_own_disk_cache_writes_where_the_operator_says(tmp_path, monkeypatch, chunks):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path))
    own = get_scorer("minilm", disk_cache=False).with_own_cache(disk_cache=True)
    own.score("engine cooling", chunks)
    assert list((tmp_path / "embeddings").glob("*.npy"))


def test_progress_counts_only_the_chunks_it_embeds_and_says_what_happens(tmp_path, chunks):
    get_scorer("minilm", cache_dir=tmp_path).embed_chunks(chunks)  # this document is cached now
    other = chunk_document(Document.from_text("Pumps move water through pipes. " * 12, name="other.txt"), 60)
    scorer = get_scorer("minilm", cache_dir=tmp_path)  # a fresh process: model not loaded yet
    updates = []
    scorer.score("pumps", [*chunks, *other], progress=lambda fraction, label: updates.append((fraction, label)))
    labels = [label for _, label in updates]
    assert labels[0] == "Loading the embedding model (first time only)..."
    assert labels[1] == f"Embedding chunks 1-{len(other)} of {len(other)}"  # not of len(chunks) + len(other)
    assert labels[-1] == f"Scoring {len(chunks) + len(other)} chunks"
    assert not any("ready" in label.lower() for label in labels)
    fractions = [fraction for fraction, _ in updates]
    assert fractions == sorted(fractions) and fractions.count(1.0) == 1
