"""The embeddings shipped for the sample documents are there and still right."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from rse_core import chunk_document, get_scorer, load_document
from rse_core.scoring.embedding_cache import EmbeddingCache
from tests.apptest_support import ROOT

sys.path.insert(0, str(ROOT / "sample_docs"))
import embed


def test_every_sample_has_bundled_embeddings_for_its_current_chunks():
    missing = [path.name for path in embed.expected_files() if not path.exists()]
    assert missing == [], "run python sample_docs/embed.py"
    assert {path.name for path in embed.EMBEDDINGS.glob("*.npy")} == {p.name for p in embed.expected_files()}


def test_bundled_folder_is_read_only_and_used_after_the_cache(tmp_path):
    path, chunks = next(iter(embed.expected_files().items()))
    cache = EmbeddingCache(tmp_path, read_only=(embed.EMBEDDINGS,))
    array = cache.get(path.stem, len(chunks))
    assert array is not None and array.shape == (len(chunks), 384)
    assert EmbeddingCache(tmp_path, read_only=(embed.EMBEDDINGS,)).get(path.stem, len(chunks) + 1) is None
    assert path.exists()  # a wrong-shaped request never deletes a bundled file
    assert not list(tmp_path.rglob("*.npy"))  # nothing copied into the user's cache


@pytest.mark.slow
def test_bundled_embeddings_equal_a_fresh_computation(tmp_path):
    document = load_document(ROOT / "sample_docs" / "employee_handbook.pdf")
    chunks = chunk_document(document)
    fresh = get_scorer("minilm", disk_cache=False).embed_chunks(chunks)
    bundled = get_scorer("minilm", disk_cache=False, bundled_embeddings=(embed.EMBEDDINGS,))
    bundled._load = lambda: pytest.fail("the bundled embeddings should make the model unnecessary")
    assert np.allclose(bundled.embed_chunks(chunks), fresh, atol=1e-4)
