"""MiniLM through ONNX Runtime: the same vectors as the torch model, a graph exported once and
shared safely, and a query path that never imports torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rse_core import chunk_document, load_document
from rse_core.chunking import scoring_text
from rse_core.embedders import MiniLMEmbedder
from rse_core.errors import MissingExtraError
from rse_core.scoring import minilm_onnx
from rse_core.scoring.minilm_onnx import OnnxMiniLM, graph_path, model_folder, query_batch_encoder, weights_fingerprint

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    """One export for the module (it takes torch tens of seconds)."""
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def sample_texts() -> list[str]:
    texts = []
    for pdf in sorted((ROOT / "sample_docs").glob("*.pdf")):
        texts += [scoring_text(chunk) for chunk in chunk_document(load_document(pdf))]
    return texts


def _weights_folder(tmp_path: Path, content: bytes) -> Path:
    folder = tmp_path / "model"
    folder.mkdir(exist_ok=True)
    (folder / "model.safetensors").write_bytes(content)
    return folder


def test_the_fingerprint_follows_the_weights_content_and_is_remembered(tmp_path):
    folder = _weights_folder(tmp_path, b"weights one")
    first = weights_fingerprint(folder, tmp_path / "cache")
    assert first == weights_fingerprint(folder, tmp_path / "cache")
    assert len(list((tmp_path / "cache" / "onnx").glob("weights-*.txt"))) == 1
    (folder / "model.safetensors").write_bytes(b"weights two, longer")
    assert weights_fingerprint(folder, tmp_path / "cache") != first


def test_a_failed_export_leaves_neither_a_graph_nor_a_temporary_file(tmp_path, monkeypatch):
    folder = _weights_folder(tmp_path, b"weights")

    def broken_export(source: Path, destination: Path) -> None:
        destination.write_bytes(b"half a graph")
        raise RuntimeError("export interrupted")

    monkeypatch.setattr(minilm_onnx, "_export", broken_export)
    with pytest.raises(RuntimeError, match="interrupted"):
        graph_path(folder, cache_dir=tmp_path / "cache")
    assert [path.name for path in (tmp_path / "cache" / "onnx").iterdir() if path.suffix == ".onnx"] == []


def test_an_exported_graph_is_reused_not_exported_again(tmp_path, monkeypatch):
    folder = _weights_folder(tmp_path, b"weights")
    exports = []
    monkeypatch.setattr(
        minilm_onnx, "_export", lambda source, destination: exports.append(destination.write_bytes(b"g"))
    )
    first = graph_path(folder, cache_dir=tmp_path / "cache")
    assert graph_path(folder, cache_dir=tmp_path / "cache") == first and first.read_bytes() == b"g"
    assert len(exports) == 1


def test_rse_onnx_0_sends_queries_to_the_torch_model(monkeypatch):
    monkeypatch.setenv("RSE_ONNX", "0")
    assert query_batch_encoder() is None
    embedder = MiniLMEmbedder()
    assert embedder._query_scorer() is embedder._scorer  # one torch model, not a second


def test_queries_stay_on_torch_until_the_graph_is_cached_or_an_export_is_asked_for(monkeypatch, tmp_path):
    monkeypatch.delenv("RSE_ONNX", raising=False)
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path))  # no graph exported here
    assert query_batch_encoder() is None  # an app or a test never waits for an export it did not ask for
    assert query_batch_encoder(export=True) is minilm_onnx.encode_texts_onnx  # the query command asks
    (tmp_path / "onnx" / f"minilm-{weights_fingerprint(model_folder())}-fp32.onnx").write_bytes(b"graph")
    assert query_batch_encoder() is minilm_onnx.encode_texts_onnx


def test_without_onnxruntime_queries_fall_back_to_torch(monkeypatch):
    monkeypatch.delenv("RSE_ONNX", raising=False)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as when it is not installed
    assert query_batch_encoder(export=True) is None


def test_the_onnx_encoder_without_onnxruntime_names_the_minilm_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(MissingExtraError, match=r"rse-explorer\[minilm\]"):
        OnnxMiniLM(tmp_path, tmp_path / "graph.onnx")


@pytest.mark.slow
def test_fp32_onnx_embeddings_agree_with_torch_on_the_sample_chunks(cache_dir, sample_texts):
    from rse_core.scoring.minilm import load_encoder

    texts = [*sample_texts, "word " * 400]  # one past the 256-token limit: truncated alike
    onnx = OnnxMiniLM.load(cache_dir=cache_dir)
    assert onnx.max_tokens == 256
    ours = np.concatenate([onnx.encode(texts[first : first + 32]) for first in range(0, len(texts), 32)])
    theirs = load_encoder().encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert ours.shape == theirs.shape
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert (ours * theirs).sum(axis=1).min() >= 0.9999


@pytest.mark.slow
def test_a_query_embedded_through_onnx_imports_no_torch(cache_dir):
    graph_path(model_folder(), cache_dir=cache_dir)  # exported by this process, reused by the child
    probe = (
        "import json, sys\n"
        "from rse_core.embedders import MiniLMEmbedder\n"
        "vector = MiniLMEmbedder().embed_query('How many days of annual leave?')\n"
        "print(json.dumps({'loaded': sorted({'torch', 'sentence_transformers', 'transformers'} & set(sys.modules)),"
        " 'vector': vector.tolist()}))\n"
    )
    environment = {**os.environ, "RSE_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    environment.pop("RSE_ONNX", None)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=environment, cwd=ROOT, check=True
    )
    answer = json.loads(done.stdout)
    assert answer["loaded"] == []
    from rse_core.scoring.minilm import load_encoder

    expected = load_encoder().encode(["How many days of annual leave?"], normalize_embeddings=True)[0]
    assert float(np.dot(answer["vector"], expected)) >= 0.9999
