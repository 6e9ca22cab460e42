"""A damaged base is found by ``check`` (one line per problem), refused by ``query`` in one line,
and made whole by ``build`` from its files."""

from __future__ import annotations

import json
import shutil

import pytest

from rse_core.cli.kb import main
from rse_core.kb import KnowledgeBase
from rse_core.kb.catalog import read_catalog, write_catalog
from rse_core.kb.check import ProblemKind, check_base
from tests.kb.support import HashingEmbedder, as_default_embedder, filler

QUERY = "Which Grundfos pump moves the coolant?"
PUMP = "The coolant pump is a Grundfos CR 15 multistage centrifugal pump moving 180 litres a minute.\n\n"


@pytest.fixture
def built(tmp_path, monkeypatch, capsys):
    """A base of three documents built by the CLI (model-free embedder); returns (kb_dir, docs)."""
    as_default_embedder(monkeypatch)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pumps.md").write_text("# Cooling plant\n\n" + filler("valve", 3) + "\n" + PUMP + filler("valve", 2, 2))
    (docs / "leave.txt").write_text(filler("roster", 4, seed=3))
    (docs / "fleet.md").write_text("# Fleet\n\n" + filler("truck", 4, seed=5))
    kb_dir = tmp_path / "kb"
    assert main(["build", str(kb_dir), str(docs), "--quiet"]) == 0
    capsys.readouterr()
    return kb_dir, docs


def _doc_id(kb_dir, name: str) -> str:
    return next(entry.doc_id for entry in read_catalog(kb_dir).documents.values() if entry.name == name)


def _delete_store(kb_dir, docs) -> None:
    shutil.rmtree(kb_dir / "lance")


def _truncate_data(kb_dir, docs) -> None:
    (data,) = (kb_dir / "lance" / "chunks.lance" / "data").glob("*.lance")
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])


def _delete_bounds(kb_dir, docs) -> None:
    (kb_dir / "bounds" / f"{_doc_id(kb_dir, 'pumps.md')}.npy").unlink()


def _drop_from_store(kb_dir, docs) -> None:
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    kb.store.remove(_doc_id(kb_dir, "pumps.md"))


def _drop_from_catalog(kb_dir, docs) -> None:
    catalog = read_catalog(kb_dir)
    del catalog.documents[_doc_id(kb_dir, "fleet.md")]
    write_catalog(kb_dir, catalog)


DAMAGE = {
    ProblemKind.STORE_MISSING: _delete_store,
    ProblemKind.STORE_UNREADABLE: _truncate_data,
    ProblemKind.BOUNDS_MISSING: _delete_bounds,
    ProblemKind.NOT_STORED: _drop_from_store,
    ProblemKind.NOT_LISTED: _drop_from_catalog,
}


def _query(kb_dir, capsys) -> tuple[int, str, str]:
    args = ["query", str(kb_dir), "-q", QUERY, "--json", "--first-stage", "bm25", "--minimum-value", "0.05"]
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("kind", list(DAMAGE), ids=[kind.value for kind in DAMAGE])
def test_check_reports_the_damage_and_build_repairs_it(built, kind, capsys):
    kb_dir, docs = built
    DAMAGE[kind](kb_dir, docs)

    assert main(["check", str(kb_dir)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith(f"{kind.value}: ") for line in lines)
    assert [problem.kind for problem in check_base(kb_dir).problems] == [kind] * len(lines)

    if kind is not ProblemKind.NOT_LISTED:  # chunks no document lists are ignored by a query
        code, out, err = _query(kb_dir, capsys)
        assert (code, out) == (2, "") and err.count("\n") == 1 and err.startswith("error: ")
        assert "rustc" not in err and ".lance" not in err and "bounds/" not in err

    repair = ["--repair"] if kind is ProblemKind.STORE_UNREADABLE else []
    assert main(["build", str(kb_dir), str(docs), "--quiet", *repair]) == 0
    out = capsys.readouterr().out
    assert "Repaired:" in out or kind is ProblemKind.NOT_LISTED
    assert main(["check", str(kb_dir)]) == 0
    capsys.readouterr()
    code, out, err = _query(kb_dir, capsys)
    assert (code, err) == (0, "")
    assert json.loads(out)["segments"][0]["document"] == "pumps.md"
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    assert sorted(entry.name for entry in kb.documents.values()) == ["fleet.md", "leave.txt", "pumps.md"]


def test_an_unreadable_store_is_rebuilt_only_when_asked(built, capsys):
    kb_dir, docs = built
    _truncate_data(kb_dir, docs)
    assert main(["build", str(kb_dir), str(docs), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "could not be read (LanceError(IO))" in err and "--repair" in err
    assert main(["check", str(kb_dir), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and [p["kind"] for p in report["problems"]] == ["store-unreadable"]


def test_a_damaged_document_whose_file_is_not_given_is_dropped_and_named(built, capsys):
    kb_dir, docs = built
    _delete_bounds(kb_dir, docs)
    assert main(["build", str(kb_dir), str(docs / "leave.txt"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [entry["name"] for entry in summary["repaired"]] == ["pumps.md"] and summary["added"] == []
    assert check_base(kb_dir).ok
    assert sorted(entry.name for entry in read_catalog(kb_dir).documents.values()) == ["fleet.md", "leave.txt"]


def test_check_names_a_damaged_calibration_or_one_fitted_for_other_vectors(built, capsys):
    from dataclasses import replace

    from rse_core.kb.calibration import CalibrationFit, write_fit

    kb_dir, _docs = built
    (kb_dir / "calibration.json").write_text("{not json")
    assert main(["check", str(kb_dir)]) == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith("calibration: ") and "damaged" in line and "calibrate" in line

    theirs = replace(read_catalog(kb_dir).embedder, model="another-model", dimension=768)
    fit = CalibrationFit(0.2, 0.45, theirs, ("samples-kb",), 36, "recall", 0.7, 0.69, "2026-12-03T00:00:00Z")
    write_fit(kb_dir, fit)
    assert main(["check", str(kb_dir)]) == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith("calibration: ") and "(dim 768)" in line and "set it aside" in line

    write_fit(kb_dir, replace(fit, embedder=read_catalog(kb_dir).embedder))
    assert main(["check", str(kb_dir)]) == 0
