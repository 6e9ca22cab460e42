"""A dense calibration fitted per embedder: stored with the base, used when the embedder matches,
set aside on request or for another embedder, and a fit that finds a spread planted by construction."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rse_core.cli.kb import main
from rse_core.embedders import EmbedderIdentity
from rse_core.evaluation.fit_calibration import fit_dense_calibration, golden_for_base
from rse_core.kb import KnowledgeBase, build, query_kb, search_first_stage
from rse_core.kb.calibration import (
    BUILTIN_SOURCE,
    CalibrationFit,
    DenseCalibration,
    choose_calibration,
    read_fit,
    write_fit,
)
from rse_core.kb.catalog import CALIBRATION_FILE, KnowledgeBaseError
from tests.kb.support import filler

BEST = 0.9
GAP = 0.25
"""Cosine between the relevant chunks and the irrelevant ones, below them."""


class PlantedEmbedder:
    """Cosines by construction: the query's best chunk (``anchorword``) at 0.9, the relevant ones
    (``relevantword``) ``below`` under it, every other chunk ``GAP`` further down."""

    dimension = 8

    def __init__(self, below: float) -> None:
        self.below = below
        self.identity = EmbedderIdentity(name="planted", provider="test", model="planted", dimension=self.dimension)

    def _vector(self, cosine: float) -> np.ndarray:
        vector = np.zeros(self.dimension, dtype=np.float32)
        vector[0], vector[1] = cosine, np.sqrt(1 - cosine**2)
        return vector

    def embed_documents(self, texts):
        def cosine(text: str) -> float:
            if "anchorword" in text:
                return BEST
            return BEST - self.below if "relevantword" in text else BEST - self.below - GAP

        return np.stack([self._vector(cosine(text)) for text in texts])

    def embed_query(self, query):
        vector = np.zeros(self.dimension, dtype=np.float32)
        vector[0] = 1.0
        return vector


def _paragraph(word: str) -> str:
    return " ".join([word] * 110) + "."  # about 800 characters: a chunk of its own


def planted_base(tmp_path, below: float) -> tuple[KnowledgeBase, str]:
    """A base of one text whose relevant region lies ``below`` the best hit, and its golden file."""
    parts = [filler("alpha", 8, seed=1), _paragraph("anchorword")]
    parts += [_paragraph("relevantword") for _ in range(3)]
    parts += [filler("omega", 8, seed=2)]
    text = "\n\n".join(parts)
    document = tmp_path / "planted.txt"
    document.write_text(text)
    start = text.index("relevantword")
    end = text.rindex("relevantword") + len("relevantword.")
    golden = tmp_path / "planted.golden.json"
    query = {
        "id": "p-01",
        "query": "what is planted?",
        "kind": "factoid",
        "first_phrase": "relevantword relevantword",
        "last_phrase": "relevantword relevantword.",
        "start_char": start,
        "end_char": end,
    }
    golden.write_text(json.dumps({"schema": "rse-golden/1", "document": "planted.txt", "queries": [query]}))
    kb_dir = tmp_path / "kb"
    build(kb_dir, [document], embedder=PlantedEmbedder(below))
    return KnowledgeBase.open(kb_dir, PlantedEmbedder(below)), str(golden)


def _fit(embedder: EmbedderIdentity, spread: float = 0.3) -> CalibrationFit:
    return CalibrationFit(
        spread, 0.4, embedder, ("samples-kb",), 36, "recall - cost", 0.76, 0.7, "2026-12-03T16:00:00+00:00"
    )


def test_the_record_round_trips_through_the_base_folder(tmp_path):
    fit = _fit(EmbedderIdentity(name="minilm", provider="st", model="all-MiniLM-L6-v2", dimension=384))
    assert read_fit(tmp_path) is None
    write_fit(tmp_path, fit)
    assert read_fit(tmp_path) == fit
    assert [p.name for p in tmp_path.iterdir()] == [CALIBRATION_FILE]  # no temporary file left
    assert fit.describe() == "calibrated for minilm on 36 queries of samples-kb"
    (tmp_path / CALIBRATION_FILE).write_text('{"format": "rse-kb-calibration/1", "spread": "wide"}')
    with pytest.raises(KnowledgeBaseError, match="calibrate"):
        read_fit(tmp_path)


def test_a_fit_for_other_vectors_or_builtin_asked_for_gives_the_builtin_constants():
    ours = EmbedderIdentity(name="minilm", provider="st", model="all-MiniLM-L6-v2", dimension=384)
    other = EmbedderIdentity(name="openai:e3", provider="openai", model="text-embedding-3-small", dimension=1536)
    fit = _fit(ours)
    assert choose_calibration(ours, fit).dense == DenseCalibration(0.3, 0.4)
    assert choose_calibration(ours, None).source == BUILTIN_SOURCE
    mismatch = choose_calibration(other, fit)
    assert mismatch.dense == DenseCalibration() and "not openai:e3" in mismatch.source
    assert choose_calibration(ours, fit, "builtin").dense == DenseCalibration()


def test_query_uses_the_base_fit_for_its_embedder_and_says_so(tmp_path):
    kb, _ = planted_base(tmp_path, below=0.3)
    builtin = query_kb(kb, "what is planted?")
    assert builtin.calibration == BUILTIN_SOURCE
    write_fit(kb.path, _fit(kb.catalog.embedder, spread=0.4))
    fitted = query_kb(kb, "what is planted?")
    assert fitted.calibration.startswith("calibrated for planted on 36 queries")
    assert fitted.to_dict()["calibration"] == fitted.calibration
    first = search_first_stage(kb, "what is planted?")
    relevant = [hit for hit in first.valued[0] if abs(hit.order - 0.6) < 1e-3]
    assert relevant and all(hit.score == pytest.approx(1 - 0.3 / 0.4) for hit in relevant)  # 0.3 below, spread 0.4
    assert query_kb(kb, "what is planted?", calibration="builtin").calibration.startswith(BUILTIN_SOURCE + "; ")
    other = replace(kb.catalog.embedder, model="another-model")
    write_fit(kb.path, _fit(other, spread=0.4))
    ignored = query_kb(kb, "what is planted?")
    assert ignored.calibration.startswith(BUILTIN_SOURCE) and "not planted" in ignored.calibration
    assert [s.to_dict() for s in ignored.segments] == [s.to_dict() for s in builtin.segments]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(below=st.sampled_from([0.1, 0.3]) | st.floats(0.06, 0.3))
def test_the_fit_finds_the_spread_planted_by_construction(tmp_path_factory, below):
    kb, golden = planted_base(tmp_path_factory.mktemp("planted"), below)
    items, used, _ = golden_for_base(kb, [golden])
    report = fit_dense_calibration(kb, items, used)
    fit = report.fit
    # Narrower than the relevant chunks' distance leaves them out; wider than the irrelevant ones' sends those.
    assert below < fit.spread <= below + GAP
    best = report.rows[0]
    assert best.recall == pytest.approx(1.0)
    assert fit.value >= fit.builtin_value
    assert fit.golden == ("planted.golden.json",) and fit.queries == 1
    if below >= 0.25:  # the built-in 0.2 misses the relevant chunks
        assert report.builtin.recall < 0.5 < fit.value


def _reopened_as_planted(monkeypatch, below: float) -> None:
    """The CLI reopens a base by its record's name: make ``planted`` give the planted embedder."""
    from rse_core.kb import base

    monkeypatch.setattr(base, "embedder_for", lambda identity, *args, **kwargs: PlantedEmbedder(below))


def test_cli_calibrate_prints_the_grid_and_stores_the_fit(tmp_path, capsys, monkeypatch):
    kb, golden = planted_base(tmp_path, below=0.3)
    _reopened_as_planted(monkeypatch, 0.3)
    assert main(["calibrate", str(kb.path), "--golden", golden, "--dry-run"]) == 0
    assert read_fit(kb.path) is None
    assert main(["calibrate", str(kb.path), "--golden", golden, "--rows", "3"]) == 0
    out = capsys.readouterr().out
    assert "spread  ceiling  recall" in out and "(built-in)" in out
    assert "calibrated for planted on 1 queries of planted.golden.json" in out
    assert f"Stored in {kb.path / CALIBRATION_FILE}" in out
    fit = read_fit(kb.path)
    assert fit is not None and 0.3 < fit.spread <= 0.3 + GAP
    assert main(["calibrate", str(kb.path), "--golden", golden, "--json", "--dry-run"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["fit"]["spread"] == fit.spread and data["stored"] is False
    query = ["query", str(kb.path), "-q", "what is planted?", "--minimum-value", "0"]
    assert main(query) == 0
    assert "Calibration: calibrated for planted on 1 queries of planted.golden.json" in capsys.readouterr().out
    assert main([*query, "--calibration", "builtin"]) == 0
    assert f"Calibration: {BUILTIN_SOURCE}; the base's fit (calibrated for planted" in capsys.readouterr().out


def test_cli_calibrate_refuses_a_golden_set_whose_document_is_not_in_the_base(tmp_path, capsys, monkeypatch):
    kb, _ = planted_base(tmp_path, below=0.3)
    _reopened_as_planted(monkeypatch, 0.3)
    other = tmp_path / "other"
    other.mkdir()
    (other / "planted.txt").write_text("some other text about nothing\n")
    moved = json.loads((tmp_path / "planted.golden.json").read_text())
    moved["queries"][0].update(start_char=0, end_char=4, first_phrase="some", last_phrase="some")
    (other / "g.golden.json").write_text(json.dumps(moved))
    assert main(["calibrate", str(kb.path), "--golden", str(other / "g.golden.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: No golden query's document is in the base") and err.count("\n") == 1
    assert main(["calibrate", str(kb.path), "--golden", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.startswith("error: Could not read golden set missing.json")
