"""A base whose titles start with file names: every header carries the name, the base records it,
and it never mixes titles of both kinds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rse_core import chunk_document, load_document
from rse_core.cli.kb import main
from rse_core.evaluation.golden_kb import variant_dir
from rse_core.kb import KnowledgeBase, KnowledgeBaseError, build
from rse_core.kb.build import ensure_built
from rse_core.kb.catalog import Catalog
from tests.kb.support import SAMPLES, HashingEmbedder, as_default_embedder, filler

REPORT = next(path for path in SAMPLES if path.name == "annual_report.pdf")


def test_a_title_gains_the_file_name_only_where_it_says_something_else(tmp_path):
    document = load_document(REPORT)
    named = document.with_name_in_title()
    assert named.title == f"annual_report | {document.title}" and document.title != "annual_report"
    assert (named.doc_id, named.text, named.name) == (document.doc_id, document.text, document.name)
    plain = tmp_path / "pump notes.txt"
    plain.write_text(filler("pump", 2))
    untitled = load_document(plain)  # a text file is titled by its name already
    assert untitled.title == "pump notes" and untitled.with_name_in_title() is untitled


def test_every_header_of_a_base_built_with_names_starts_with_the_name_and_the_base_records_it(tmp_path):
    kb_dir = tmp_path / "kb"
    build(kb_dir, [REPORT], embedder=HashingEmbedder(), name_in_title=True)
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    document = load_document(REPORT)
    expected = chunk_document(document.with_name_in_title())
    stored = kb.store.read(document.doc_id, 0, len(expected) - 1)
    assert [chunk.header for chunk in stored] == [chunk.header for chunk in expected]
    assert all(chunk.header.startswith("annual_report | ") for chunk in stored)
    assert "".join(chunk.text for chunk in stored) == document.text  # segments keep the exact text
    assert kb.catalog.name_in_title and kb.documents[document.doc_id].title.startswith("annual_report | ")
    assert json.loads((kb_dir / "kb.json").read_text())["name_in_title"] is True
    kb.close()

    plain_dir = tmp_path / "plain"
    build(plain_dir, [REPORT], embedder=HashingEmbedder())
    plain = KnowledgeBase.open(plain_dir, HashingEmbedder())
    assert not plain.catalog.name_in_title
    assert not plain.store.read(document.doc_id, 0, 0)[0].header.startswith("annual_report")
    plain.close()


def test_adding_to_a_base_the_other_way_is_refused_and_the_base_kept(tmp_path):
    kb_dir = tmp_path / "kb"
    build(kb_dir, [REPORT], embedder=HashingEmbedder(), name_in_title=True)
    other = SAMPLES[0] if SAMPLES[0] != REPORT else SAMPLES[1]
    with pytest.raises(KnowledgeBaseError, match="built with file names in its titles"):
        build(kb_dir, [other], embedder=HashingEmbedder(), name_in_title=False)
    with pytest.raises(KnowledgeBaseError, match="built with file names in its titles"):
        ensure_built(kb_dir, [REPORT], embedder=HashingEmbedder(), name_in_title=False)
    assert len(KnowledgeBase.open(kb_dir, HashingEmbedder()).documents) == 1
    report = build(kb_dir, [other], embedder=HashingEmbedder())  # unsaid: as the base has it
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    entry = kb.documents[report.added[0].doc_id]
    assert entry.title.startswith(f"{Path(other.name).stem} | ") and len(kb.documents) == 2
    kb.close()


def test_a_catalog_from_before_the_option_reads_as_titles_without_names(tmp_path):
    build(tmp_path / "kb", [REPORT], embedder=HashingEmbedder())
    data = json.loads((tmp_path / "kb" / "kb.json").read_text())
    data.pop("name_in_title")
    assert Catalog.from_dict(data, tmp_path / "kb.json").name_in_title is False


def test_the_cli_builds_with_names_in_titles_and_info_says_so(tmp_path, monkeypatch, capsys):
    as_default_embedder(monkeypatch)
    kb_dir = tmp_path / "kb"
    assert main(["build", str(kb_dir), str(REPORT), "--name-in-title", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["info", str(kb_dir), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name_in_title"] is True
    assert main(["info", str(kb_dir)]) == 0
    assert "titles start with file names" in capsys.readouterr().out


def test_each_evaluation_variant_has_a_folder_of_its_own():
    default = Path("/cache/kb/financebench")
    assert variant_dir(default, None) == variant_dir(default, "minilm", False) == default
    assert variant_dir(default, None, True) == default.with_name("financebench-names")
    assert variant_dir(default, "mpnet", True) == variant_dir(default, "mpnet").with_name(
        f"{variant_dir(default, 'mpnet').name}-names"
    )
