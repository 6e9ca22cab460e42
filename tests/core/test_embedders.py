"""The embedder identity (what makes vectors comparable), the reply checks every endpoint's vectors
pass, and a local model folder's identity read without loading the model."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rse_core.embedders import EmbedderIdentity, SentenceTransformerEmbedder, check_same_embedder, embedder_from_name
from rse_core.embedders.batches import checked_vectors, embed_in_batches
from rse_core.embedders.local import folder_fingerprint
from rse_core.errors import EmbedderMismatchError, EmbeddingServiceError, MissingExtraError, ScorerUnavailableError

SOURCE = "the test endpoint"
texts = st.text(max_size=20)
identities = st.builds(
    EmbedderIdentity,
    name=texts,
    provider=st.sampled_from(["sentence-transformers", "openai", "cohere"]),
    model=texts,
    dimension=st.integers(1, 4096),
    revision=texts,
    query_prefix=texts,
    document_prefix=texts,
    normalised=st.booleans(),
    endpoint=texts,
)


@given(identities)
def test_an_identity_survives_the_catalog(identity):
    again = EmbedderIdentity.from_dict(json.loads(json.dumps(identity.to_dict())))
    assert again == identity and again.name == identity.name and again.endpoint == identity.endpoint


@given(identities, texts, texts)
def test_name_and_endpoint_do_not_change_the_vectors_but_everything_else_does(identity, name, endpoint):
    moved = dataclasses.replace(identity, name=name, endpoint=endpoint)
    assert moved.same_vectors_as(identity)
    assert dataclasses.replace(identity, revision="").same_vectors_as(identity)  # unknown matches any
    assert not dataclasses.replace(identity, query_prefix=identity.query_prefix + "query: ").same_vectors_as(identity)
    assert not dataclasses.replace(identity, dimension=identity.dimension + 1).same_vectors_as(identity)


def test_a_mismatch_names_both_embedders_and_what_differs():
    built = EmbedderIdentity("openai:e5", "openai", "e5", 384)
    with pytest.raises(EmbedderMismatchError, match=r"^kb was built with openai:e5 \(dim 384\); you asked for minilm"):
        check_same_embedder(built, EmbedderIdentity("minilm", "sentence-transformers", "all-MiniLM-L6-v2", 384), "kb")
    with pytest.raises(EmbedderMismatchError, match=r"you asked for openai:e5 \(dim 384\) with another query_prefix"):
        check_same_embedder(built, EmbedderIdentity("openai:e5", "openai", "e5", 384, query_prefix="query: "), "kb")


def test_a_record_with_a_bad_dimension_is_refused():
    with pytest.raises(ValueError, match="dimension"):
        EmbedderIdentity.from_dict({"name": "x", "provider": "openai", "model": "x", "dimension": 0})


@given(st.lists(st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3), min_size=1, max_size=20))
def test_good_replies_become_unit_vectors_in_order(rows):
    rows = [row if max(map(abs, row)) > 1e-6 else [1.0, 0.0, 0.0] for row in rows]
    matrix = checked_vectors(rows, 3, SOURCE)
    assert matrix.shape == (len(rows), 3) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    for row, vector in zip(rows, matrix, strict=True):  # each row keeps its direction
        assert np.allclose(vector, np.asarray(row) / np.linalg.norm(row), atol=1e-5)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([[1.0, 2.0], [1.0]], "a vector of 1 dimensions for text 1, not 2"),
        ([[1.0, math.nan]], "NaN or infinity (text 0)"),
        ([[1.0, 1.0], [math.inf, 0.0]], "NaN or infinity (text 1)"),
        ([[0.0, 0.0]], "an all-zero vector (text 0)"),
        ([["a", "b"]], "not a number"),
        (["ab"], "not a list of numbers for text 0"),
        ([None], "not a list of numbers for text 0"),
    ],
)
def test_a_bad_reply_is_refused_naming_the_problem(rows, message):
    with pytest.raises(EmbeddingServiceError, match=re.escape(message)) as raised:
        checked_vectors(rows, None, SOURCE)
    assert str(raised.value).startswith(f"{SOURCE} returned ")


def test_a_reply_of_the_wrong_size_for_the_record_is_refused():
    with pytest.raises(EmbeddingServiceError, match="3 dimensions for text 0, not 384"):
        checked_vectors([[1.0, 2.0, 3.0]], 384, SOURCE)


@given(st.lists(texts, max_size=30), st.integers(1, 7), st.integers(1, 4))
def test_batches_come_back_in_the_texts_order(items, batch_size, in_flight):
    def call(batch):
        return [[float(len(text)), 1.0] for text in batch]

    rows = embed_in_batches(items, call, batch_size, in_flight, SOURCE)
    assert rows == [[float(len(text)), 1.0] for text in items]


def test_a_short_reply_is_refused_before_its_vectors_are_matched():
    with pytest.raises(EmbeddingServiceError, match="returned 1 vectors for 2 texts"):
        embed_in_batches(["a", "b"], lambda batch: [[1.0]], 2, 1, SOURCE)


def _model_folder(root, weights: bytes):
    """A sentence-transformers folder as far as its identity goes: modules, pooling, a Dense layer."""
    root.mkdir(parents=True)
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
    ]
    (root / "modules.json").write_text(json.dumps(modules))
    for folder, config in (("1_Pooling", {"word_embedding_dimension": 768}), ("2_Dense", {"out_features": 256})):
        (root / folder).mkdir()
        (root / folder / "config.json").write_text(json.dumps(config))
    (root / "model.safetensors").write_bytes(weights)
    return root


def test_a_model_folder_is_known_by_its_files_not_its_place(tmp_path):
    first = SentenceTransformerEmbedder(_model_folder(tmp_path / "model", b"weights-1")).identity
    assert first.dimension == 256 and first.model == "model" and first.revision.startswith("sha256:")
    moved = SentenceTransformerEmbedder(_model_folder(tmp_path / "copy" / "model", b"weights-1")).identity
    assert moved.name != first.name and moved.same_vectors_as(first)
    tuned = SentenceTransformerEmbedder(_model_folder(tmp_path / "tuned" / "model", b"weights-2")).identity
    with pytest.raises(EmbedderMismatchError, match="with another revision"):
        check_same_embedder(first, tuned, "kb")


def test_a_model_folders_fingerprint_is_remembered_until_its_files_change(tmp_path, monkeypatch):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "cache"))
    folder = _model_folder(tmp_path / "model", b"weights-1")
    first = folder_fingerprint(folder)
    assert folder_fingerprint(folder) == first
    assert len(list((tmp_path / "cache" / "fingerprints").glob("folder-*.txt"))) == 1
    (folder / "model.safetensors").write_bytes(b"weights-two")  # another size: another memo, another digest
    assert folder_fingerprint(folder) != first


def test_a_folder_that_is_not_a_model_is_refused(tmp_path):
    with pytest.raises(ScorerUnavailableError, match="not a sentence-transformers model folder"):
        SentenceTransformerEmbedder(tmp_path)


def test_importing_the_knowledge_base_loads_no_embedding_client_or_model():
    code = "\n".join(
        [
            "import sys, rse_core.kb, rse_core.embedders",
            "print([m for m in ('openai', 'cohere', 'torch') if m in sys.modules])",
        ]
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "[]"


def test_an_endpoint_embedder_without_its_client_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(
        MissingExtraError,
        match=r"The OpenAI-compatible embedder needs the 'openai' package: pip install 'rse-explorer\[llm\]'",
    ):
        embedder_from_name("openai:e5", "http://127.0.0.1:9/v1")
