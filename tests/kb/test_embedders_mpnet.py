"""The ``mpnet`` embedder: installing a model shipped as a split zip (checked, safely extracted),
its name and identity, the one-line errors, and (slow, with the real model installed) ONNX
against torch and a knowledge base built and queried with it."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from rse_core.cli.kb import main as kb_main
from rse_core.cli.models import main as models_main
from rse_core.embedders import embedder_from_name, packaged
from rse_core.embedders.local import PackagedEmbedder
from rse_core.embedders.packaged import (
    MPNET,
    ModelInstallError,
    PackagedModel,
    assemble,
    extract_folder,
    install_model,
    installed_folder,
    is_installed,
)
from rse_core.errors import EmbedderMismatchError, ScorerUnavailableError
from tests.kb.support import as_default_embedder, filler

FOLDER = "tiny-model"


def _model_zip(extra: dict[str, bytes] | None = None, dimension: int = 768) -> bytes:
    """A zip holding a sentence-transformers-shaped folder (no weights worth loading)."""
    files = {
        f"{FOLDER}/modules.json": json.dumps(
            [
                {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            ]
        ).encode(),
        f"{FOLDER}/1_Pooling/config.json": json.dumps({"word_embedding_dimension": dimension}).encode(),
        f"{FOLDER}/model.safetensors": os.urandom(3000),
        f"{FOLDER}/sentence_bert_config.json": b'{"max_seq_length": 384}',
        **(extra or {}),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{FOLDER}/", b"")
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _split_into_wheels(data: bytes, folder: Path, parts: int = 3, sha256: str | None = None) -> PackagedModel:
    """``data`` cut into ``parts`` byte pieces, each in a wheel laid out as the real parts are."""
    model = PackagedModel(
        name="tiny",
        folder=FOLDER,
        part_template="tiny-part-{number}",
        member_template="tiny-part_{number}/input/tiny.zip.{number}",
        parts=parts,
        version="0.0.1",
        zip_size=len(data),
        zip_sha256=sha256 or hashlib.sha256(data).hexdigest(),
        max_unpacked=1 << 20,
    )
    folder.mkdir(parents=True, exist_ok=True)
    cut = len(data) // parts + 1
    for number in range(1, parts + 1):
        with zipfile.ZipFile(folder / f"tiny_part_{number:03d}-0.0.1-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"tiny-part_{number:03d}/__init__.py", b"")
            wheel.writestr(model.member(number), data[(number - 1) * cut : number * cut])
    return model


def test_the_pieces_join_into_the_model_folder_which_becomes_an_embedder(tmp_path, monkeypatch):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "cache"))
    data = _model_zip()
    model = _split_into_wheels(data, tmp_path / "wheels")
    folder = install_model(model, wheels=tmp_path / "wheels")
    assert folder == installed_folder(model) == tmp_path / "cache" / "models" / FOLDER and is_installed(model)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name in archive.namelist():
            if not name.endswith("/"):
                assert (folder.parent / name).read_bytes() == archive.read(name)
    assert not list((tmp_path / "cache" / "models").glob(".*"))  # no scratch or staging left
    identity = PackagedEmbedder(model).identity
    assert (identity.name, identity.model, identity.dimension) == ("tiny", FOLDER, 768)
    assert identity.normalised and not identity.query_prefix and not identity.document_prefix
    assert identity.revision.startswith("sha256:")
    int8 = PackagedEmbedder(model, int8=True).identity
    assert int8.name == "tiny-int8" and not int8.same_vectors_as(identity)


def test_the_dimension_is_the_folders_not_a_constant(tmp_path, monkeypatch):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "cache"))
    model = _split_into_wheels(_model_zip(dimension=512), tmp_path / "wheels")
    install_model(model, wheels=tmp_path / "wheels")
    assert PackagedEmbedder(model).identity.dimension == 512


def test_a_zip_of_another_hash_is_refused_and_an_earlier_install_stays(tmp_path, monkeypatch):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "cache"))
    good = _split_into_wheels(_model_zip(), tmp_path / "good")
    folder = install_model(good, wheels=tmp_path / "good")
    before = sorted(path.name for path in folder.rglob("*"))
    bad = _split_into_wheels(_model_zip(), tmp_path / "bad", sha256=good.zip_sha256)
    bad = dataclasses.replace(bad, zip_size=len(_model_zip()))  # same size claimed; other bytes
    with pytest.raises(ModelInstallError, match=r"SHA-256|bytes"):
        install_model(bad, wheels=tmp_path / "bad")
    assert sorted(path.name for path in folder.rglob("*")) == before
    assert not list((tmp_path / "cache" / "models").glob(".*"))


@pytest.mark.parametrize("surplus", [-1, 1])
def test_pieces_of_the_wrong_size_are_refused_and_removed(tmp_path, surplus):
    data = b"x" * 100
    pieces = [lambda: io.BytesIO(data[:50]), lambda: io.BytesIO(data[50:])]
    with pytest.raises(ModelInstallError, match="bytes"):
        assemble(pieces, tmp_path / "joined.zip", len(data) + surplus, hashlib.sha256(data).hexdigest())
    assert not (tmp_path / "joined.zip").exists()


@pytest.mark.parametrize(
    "name",
    [
        "../evil.txt",
        f"{FOLDER}/../../evil.txt",
        "/tmp/evil.txt",
        f"{FOLDER}\\..\\evil.txt",
        "C:/evil.txt",
        "other-folder/evil.txt",
        "evil.txt",
    ],
)
def test_a_hostile_member_name_is_refused_before_anything_is_written(tmp_path, name):
    archive_path = tmp_path / "model.zip"
    archive_path.write_bytes(_model_zip({name: b"owned"}))
    root = tmp_path / "models"
    root.mkdir()
    with pytest.raises(ModelInstallError, match="Refusing the zip member"):
        extract_folder(archive_path, FOLDER, root, 1 << 20)
    assert list(root.iterdir()) == []
    assert not list(tmp_path.rglob("evil.txt"))


def test_a_symbolic_link_member_is_refused(tmp_path):
    buffer = io.BytesIO(_model_zip())
    with zipfile.ZipFile(buffer, "a") as archive:
        link = zipfile.ZipInfo(f"{FOLDER}/link")
        link.external_attr = (0o120777 << 16) & 0xFFFF0000
        archive.writestr(link, "/etc/passwd")
    (tmp_path / "model.zip").write_bytes(buffer.getvalue())
    (tmp_path / "models").mkdir()
    with pytest.raises(ModelInstallError, match="symbolic link"):
        extract_folder(tmp_path / "model.zip", FOLDER, tmp_path / "models", 1 << 20)
    assert list((tmp_path / "models").iterdir()) == []


def test_a_zip_that_unpacks_past_the_bound_is_refused(tmp_path):
    (tmp_path / "model.zip").write_bytes(_model_zip({f"{FOLDER}/big.bin": bytes(200_000)}))
    (tmp_path / "models").mkdir()
    with pytest.raises(ModelInstallError, match="more than 100,000 bytes"):
        extract_folder(tmp_path / "model.zip", FOLDER, tmp_path / "models", 100_000)
    assert list((tmp_path / "models").iterdir()) == []


def test_a_corrupt_zip_is_one_clear_error(tmp_path):
    data = bytearray(_model_zip())
    data[len(data) // 2 : len(data) // 2 + 200] = bytes(200)  # inside the members: the CRC check fails
    (tmp_path / "model.zip").write_bytes(bytes(data))
    (tmp_path / "models").mkdir()
    with pytest.raises(ModelInstallError, match="damaged"):
        extract_folder(tmp_path / "model.zip", FOLDER, tmp_path / "models", 1 << 20)


def test_the_install_command_installs_from_wheels_and_lists_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "cache"))
    model = _split_into_wheels(_model_zip(), tmp_path / "wheels")
    monkeypatch.setitem(packaged.PACKAGED_MODELS, "tiny", model)
    assert models_main(["install", "tiny", "--wheels", str(tmp_path / "wheels")]) == 0
    assert "use it with --embedder tiny" in capsys.readouterr().out
    assert models_main(["list"]) == 0
    assert f"tiny: {FOLDER}, installed at" in capsys.readouterr().out


def test_mpnet_not_installed_is_one_line_naming_the_install_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "empty"))
    with pytest.raises(ScorerUnavailableError, match=re.escape("python -m rse_core.embedders install mpnet")):
        embedder_from_name("mpnet")
    (tmp_path / "doc.txt").write_text(filler("pump", 2))
    assert kb_main(["build", str(tmp_path / "kb"), str(tmp_path / "doc.txt"), "--embedder", "mpnet"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "run 'python -m rse_core.embedders install mpnet' once" in error
    assert not (tmp_path / "kb").exists()


def test_a_base_built_with_minilm_refuses_mpnet_in_one_line(tmp_path, monkeypatch, capsys):
    """The fake mpnet folder's 768 against the base's 384: refused before any text is embedded."""
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "cache"))
    fake = dataclasses.replace(_split_into_wheels(_model_zip(), tmp_path / "wheels"), name="mpnet")
    install_model(fake, wheels=tmp_path / "wheels")
    monkeypatch.setitem(packaged.PACKAGED_MODELS, "mpnet", fake)
    as_default_embedder(monkeypatch)
    (tmp_path / "doc.txt").write_text(filler("pump", 3))
    assert kb_main(["build", str(tmp_path / "kb"), str(tmp_path / "doc.txt"), "--quiet"]) == 0
    capsys.readouterr()
    assert kb_main(["query", str(tmp_path / "kb"), "-q", "pump", "--embedder", "mpnet"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "was built with minilm (dim 384); you asked for mpnet (dim 768)" in error
    with pytest.raises(EmbedderMismatchError):
        from rse_core.kb import KnowledgeBase

        KnowledgeBase.open(tmp_path / "kb", embedder_from_name("mpnet"))


# --- the real model (slow; skipped unless `python -m rse_core.embedders install mpnet` has run) ---

_real = pytest.mark.skipif(
    not is_installed(MPNET), reason="mpnet is not installed (python -m rse_core.embedders install mpnet)"
)
TEXTS = [
    "The coolant pump moves 180 litres of glycol a minute.",
    "Every new employee serves a probation period of six months.",
    "Net sales rose 5% to $32.8 billion, driven by organic growth in every segment.",
    "",
]


@pytest.mark.slow
@_real
def test_the_real_mpnet_identity_comes_from_its_folder():
    identity = embedder_from_name("mpnet").identity
    config = json.loads((installed_folder(MPNET) / "config.json").read_text())
    assert identity.dimension == config["hidden_size"]
    assert (identity.name, identity.model, identity.provider) == ("mpnet", "all-mpnet-base-v2", "sentence-transformers")
    assert identity.normalised and identity.revision.startswith("sha256:")


@pytest.mark.slow
@_real
def test_onnx_fp32_agrees_with_torch_and_int8_stays_close():
    from rse_core.scoring.minilm import load_encoder
    from rse_core.scoring.minilm_onnx import OnnxSentenceEncoder, OnnxVariant, graph_path

    folder = installed_folder(MPNET)
    torch_vectors = load_encoder(folder).encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    fp32 = OnnxSentenceEncoder(folder, graph_path(folder, OnnxVariant.FP32)).encode(TEXTS)
    assert fp32.shape == torch_vectors.shape
    assert np.min(np.sum(fp32 * torch_vectors, axis=1)) > 0.9999
    int8 = OnnxSentenceEncoder(folder, graph_path(folder, OnnxVariant.INT8)).encode(TEXTS)
    assert np.min(np.sum(int8 * torch_vectors, axis=1)) > 0.5  # close, not the same: its own identity


@pytest.mark.slow
@_real
def test_a_base_built_with_mpnet_answers_with_mpnet(tmp_path, capsys):
    pump = "The coolant pump is a multistage centrifugal pump moving glycol to the battery racks.\n\n"
    (tmp_path / "pumps.md").write_text("# Plant\n\n" + filler("valve", 2) + "\n" + pump + filler("valve", 2, seed=2))
    (tmp_path / "leave.txt").write_text(filler("roster", 3, seed=3))
    kb_dir = tmp_path / "kb"
    assert kb_main(["build", str(kb_dir), str(tmp_path), "--embedder", "mpnet", "--quiet"]) == 0
    capsys.readouterr()
    assert kb_main(["info", str(kb_dir), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["embedder"]["name"] == "mpnet" and info["embedder"]["dimension"] == 768
    assert kb_main(["query", str(kb_dir), "-q", "which pump moves the coolant?", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["segments"][0]["document"] == "pumps.md" and "coolant pump" in result["segments"][0]["text"]


def _installed_parts() -> bool:
    return all(packaged._installed_piece(MPNET, number) for number in range(1, MPNET.parts + 1))


@pytest.mark.slow
@pytest.mark.skipif(not _installed_parts(), reason="the mpnet parts are not pip-installed here")
def test_the_real_parts_join_to_the_pinned_zip_and_model(tmp_path):
    folder = install_model(MPNET, root=tmp_path)
    assert (folder / "model.safetensors").stat().st_size > 400_000_000 and is_installed(MPNET, tmp_path)


def test_the_kb_evaluation_takes_an_embedder_and_keeps_its_base_apart(tmp_path, monkeypatch, capsys):
    from rse_core.cli.evaluate import main as evaluate_main
    from rse_core.evaluation.golden_kb import for_embedder

    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "empty"))
    assert evaluate_main(["samples-kb", "--embedder", "mpnet"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "install mpnet" in error
    assert not (tmp_path / "empty" / "kb").exists()
    default = tmp_path / "kb" / "golden-samples"
    assert for_embedder(default, None) == for_embedder(default, "minilm") == default
    names = {for_embedder(default, name) for name in ("mpnet", "mpnet-int8", "openai:mpnet", "/models/mpnet")}
    assert len(names) == 4 and all(path.parent == default.parent and path != default for path in names)
