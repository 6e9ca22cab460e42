"""The named sets read the package's own data, and a set that finds nothing is an error, never 0."""

from __future__ import annotations

import pytest

import rse_core.evaluation.sets as eval_sets
from rse_core.cli.evaluate import main
from rse_core.data import EXTERNAL, SAMPLES, bundled_folder
from rse_core.errors import EmptySetError
from tests.support.apptest_support import ROOT


def test_in_a_checkout_the_bundled_folders_are_the_ones_the_project_writes():
    assert bundled_folder(SAMPLES) == ROOT / "sample_docs"
    assert bundled_folder(EXTERNAL) == ROOT / "eval_sets" / "external"


def test_the_samples_set_has_its_36_queries_over_3_documents():
    samples = eval_sets.load_eval_set("samples")
    assert (len(samples.cases), samples.document_count) == (36, 3)


@pytest.mark.parametrize("name", ["samples", "external"])
def test_a_set_whose_folder_holds_no_golden_set_is_an_error(name, tmp_path, monkeypatch):
    monkeypatch.setattr(eval_sets, "SAMPLE_DIR", tmp_path)
    monkeypatch.setattr(eval_sets, "EXTERNAL_DIR", tmp_path)
    with pytest.raises(EmptySetError, match=f"The {name} set has no golden sets in {tmp_path}"):
        eval_sets.golden_sets(name, tmp_path)


def test_a_set_cut_to_no_query_is_an_error():
    with pytest.raises(EmptySetError, match="no query"):
        eval_sets.load_eval_set("samples", limit=0)


def test_the_evaluate_command_fails_in_one_line_on_an_empty_set(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(eval_sets, "SAMPLE_DIR", tmp_path)
    assert main(["samples", "--scorer", "bm25"]) == 2
    *progress, error = capsys.readouterr().err.splitlines()
    assert progress == ["scoring samples with bm25..."]
    assert error.startswith("error: The samples set has no golden sets") and "reinstall rse-explorer" in error
