"""The scorer over any embedder: MiniLM's scores through the MiniLM embedder, calibrated the same
way, and each document embedded once per embedder."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from rse_core import Document, chunk_document, get_scorer
from rse_core.embedders import EmbedderIdentity
from rse_core.errors import ScorerError
from rse_core.scoring.embedder_scorer import EmbedderScorer
from rse_core.scoring.minilm import MINILM_CALIBRATION

TEXT = (
    "The heat pump moves warmth from outside air into the house. "
    "Our cafeteria serves soup on Tuesdays and fish on Fridays. "
    "Coolant circulates through the radiator to carry heat away from the engine. "
) * 4
WORDS = ("heat", "soup", "engine", "lunch", "food", "cooling")


class WordCounter:
    """A fake embedder: one dimension per word, so the best chunk is known without a model."""

    def __init__(self, identity: EmbedderIdentity | None = None) -> None:
        self.identity = identity or EmbedderIdentity("words", "test", "words", len(WORDS), normalised=False)
        self.documents: list[int] = []

    def embed_documents(self, texts):
        self.documents.append(len(texts))
        return np.array([[text.lower().count(word) for word in WORDS] for text in texts], dtype=np.float32)

    def embed_query(self, text):
        return self.embed_documents([text])[0]


@pytest.fixture(scope="module")
def chunks():
    return chunk_document(Document.from_text(TEXT, name="mixed.txt"), 60)


def test_cosine_of_any_embedder_calibrated_as_minilm(chunks):
    scorer = get_scorer("embedder", embedder=WordCounter())
    scores = scorer.score("soup", chunks)
    assert "soup" in chunks[int(np.argmax(scores))].text
    assert scores.max() == pytest.approx(1.0) and scores.min() == 0.0  # cosine of unnormalised vectors
    assert scorer.calibration is MINILM_CALIBRATION
    assert scorer.model == "words"


def test_document_vectors_cached_by_identity_and_texts(chunks):
    embedder = WordCounter()
    scorer = EmbedderScorer(embedder)
    scorer.score("soup", chunks)
    scorer.score("engine", chunks)  # a new query embeds only the query
    assert embedder.documents == [len(chunks), 1, 1]
    other = WordCounter(replace(embedder.identity, revision="v2"))
    other_scorer = EmbedderScorer(other)
    other_scorer.cache = scorer.cache  # one cache, another model's vectors: not reused
    other_scorer.score("soup", chunks)
    assert other.documents == [len(chunks), 1]


def test_own_cache_shares_the_embedder_not_the_vectors(chunks):
    embedder = WordCounter()
    shared = EmbedderScorer(embedder)
    shared.score("soup", chunks)
    own = shared.with_own_cache()
    assert own.embedder is embedder and own.cache is not shared.cache
    own.score("soup", chunks)
    assert embedder.documents.count(len(chunks)) == 2
    shared.model = "words (2)"  # the app's label for a second entry of one model
    assert shared.with_own_cache().model == "words (2)"  # an upload's results keep it


def test_no_embedder_is_one_clear_error():
    with pytest.raises(ScorerError, match="needs an embedder"):
        get_scorer("embedder")


@pytest.mark.slow
def test_minilm_embedder_gives_minilm_scores(tmp_path, chunks):
    from rse_core.embedders import SentenceTransformerEmbedder

    expected = get_scorer("minilm", cache_dir=tmp_path, disk_cache=False).score("What food is served?", chunks)
    through = get_scorer("embedder", embedder=SentenceTransformerEmbedder()).score("What food is served?", chunks)
    assert np.allclose(through, expected, atol=1e-5)
    assert np.allclose(MINILM_CALIBRATION.per_document(through), MINILM_CALIBRATION.per_document(expected), atol=1e-5)


@pytest.mark.slow
def test_mpnet_scores(chunks):
    from rse_core.embedders import embedder_from_name
    from rse_core.embedders.packaged import MPNET, is_installed

    if not is_installed(MPNET):
        pytest.skip("mpnet is not installed (python -m rse_core.embedders install mpnet)")
    scorer = get_scorer("embedder", embedder=embedder_from_name("mpnet"))
    scores = scorer.score("What food is served for lunch?", chunks)
    assert scores.shape == (len(chunks),) and scorer.model == "mpnet"
    assert "cafeteria" in chunks[int(np.argmax(scores))].text
