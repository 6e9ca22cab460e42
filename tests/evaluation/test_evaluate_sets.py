"""``python -m rse_core.evaluate`` on named sets: every set side by side, --set, --tune, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rse_core import RSEParams, get_scorer
from rse_core.cli.evaluate import main
from rse_core.evaluation.reports import run_set
from rse_core.evaluation.scored_sets import evaluate_scored, score_set
from rse_core.evaluation.sets import corpus_missing_message, load_eval_set
from tests.support.apptest_support import ROOT

needs_corpus = pytest.mark.skipif(corpus_missing_message() is not None, reason=corpus_missing_message() or "")


def test_samples_set_prints_the_side_by_side_and_per_kind_tables(capsys, tmp_path):
    out = tmp_path / "sets.json"
    assert main(["--set", "samples", "--scorer", "bm25", "--limit", "5", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "RSE recall" in text and "top-k at RSE's chars" in text and "area RSE" in text
    report = run_set("samples", get_scorer("bm25"), RSEParams(), limit=5)
    row = report.row()
    line = next(line for line in text.splitlines() if line.startswith("samples "))
    assert f"{row['rse_recall']:.2f}" in line and f"{row['characters']:,.0f}" in line
    data = json.loads(out.read_text())
    assert data[0]["set"] == "samples" and data[0]["kinds"][-1]["kind"] == "all"


def test_the_set_numbers_equal_evaluate_on_each_golden_file():
    # samples as a set = each sample golden set on its own document, pooled
    from rse_core.evaluation.metrics import summarize
    from rse_core.evaluation.runs import evaluate
    from rse_core.evaluation.sets import golden_sets

    scorer = get_scorer("bm25")
    per_file = [q for golden in golden_sets("samples") for q in evaluate(golden, RSEParams(), scorer).queries]
    pooled = evaluate_scored(score_set(load_eval_set("samples"), scorer, 800), RSEParams())
    assert summarize(per_file) == summarize(pooled.queries)


@needs_corpus
def test_every_set_by_default_and_tune_reports_held_out_sets(capsys):
    assert main(["--scorer", "bm25", "--limit", "3"]) == 0
    text = capsys.readouterr().out
    for name in ("samples", "external", "financebench"):
        assert any(line.startswith(name + " ") for line in text.splitlines()), name
    assert main(["external", "--tune", "--budget", "6000", "--scorer", "bm25", "--limit", "4"]) == 0
    text = capsys.readouterr().out
    assert "Best within 6,000 characters" in text
    assert "tuned on this set (not a test figure)" in text
    assert text.count("held out") == 2


def test_tune_without_a_set_and_files_with_sets_are_errors(capsys):
    assert main(["--tune", "--scorer", "bm25"]) == 2
    assert "--tune needs the set" in capsys.readouterr().err
    assert main([str(ROOT / "sample_docs" / "tech_report.golden.json"), "samples"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["--set", "nope", "--scorer", "bm25"]) == 2
    assert "samples, external, financebench" in capsys.readouterr().err


def test_cli_runs_as_a_module():
    done = subprocess.run(
        [sys.executable, "-m", "rse_core.evaluate", "samples", "--scorer", "bm25", "--limit", "2", "--markdown"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "| set | queries | docs | RSE recall" in done.stdout


def test_without_the_corpus_every_set_means_the_samples_with_a_note(capsys, monkeypatch):
    import rse_core.evaluation.sets as eval_sets

    monkeypatch.setattr(eval_sets, "corpus_missing_message", lambda: "The third-party corpus is not at /nowhere.")
    assert main(["--scorer", "bm25", "--limit", "2"]) == 0
    captured = capsys.readouterr()
    assert "not at /nowhere" in captured.err and "Running the samples only" in captured.err
    lines = captured.out.splitlines()
    assert any(line.startswith("samples ") for line in lines)
    assert not any(line.startswith(("external ", "financebench ")) for line in lines)
