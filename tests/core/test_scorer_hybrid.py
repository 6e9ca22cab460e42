"""The hybrid scorer: fusion math on synthetic scores, per-document calibration, determinism."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import Document, ScorerError, build_corpus, get_scorer
from rse_core.cli.extract import main as cli_main
from rse_core.scoring import ScorerName
from rse_core.scoring.bm25 import BM25_CALIBRATION
from rse_core.scoring.hybrid import RRF_K, Fusion, HybridScorer, fuse, fuse_per_document
from rse_core.scoring.minilm import MINILM_CALIBRATION
from tests.support.apptest_support import ROOT

SAMPLES = ROOT / "sample_docs"
unit = st.floats(0, 1)


def test_max_and_mean_on_known_scores():
    dense, lexical = np.array([0.0, 0.2, 0.9, 1.0]), np.array([0.5, 0.0, 0.3, 1.0])
    np.testing.assert_allclose(fuse(dense, lexical, "max"), [0.5, 0.2, 0.9, 1.0])
    np.testing.assert_allclose(fuse(dense, lexical, "mean", 0.5), [0.25, 0.1, 0.6, 1.0])
    np.testing.assert_allclose(fuse(dense, lexical, "mean", 0.7), 0.7 * dense + 0.3 * lexical)


def test_rrf_ranks_ties_together_and_maps_its_range_to_0_1():
    dense = np.array([0.9, 0.1, 0.5, 0.0, 0.2, 0.3, 0.05, 0.15])
    lexical = np.array([0.0, 0.0, 1.0, 0.0, 0.4, 0.0, 0.0, 0.0])  # six zeros tie for rank 2
    dense_rank, lexical_rank = np.array([0, 5, 1, 7, 3, 2, 6, 4]), np.array([2, 2, 0, 2, 1, 2, 2, 2])
    raw = 1 / (RRF_K + 1 + dense_rank) + 1 / (RRF_K + 1 + lexical_rank)
    fused = fuse(dense, lexical, "rrf")
    assert fused.argmax() == 2 and fused.max() == 1.0  # first and second: the best sum
    np.testing.assert_allclose(
        fused, np.clip((raw - np.quantile(raw, 0.75)) / (raw.max() - np.quantile(raw, 0.75)), 0, 1)
    )
    assert (fused == 0).sum() >= 5  # below the 75th percentile


@settings(max_examples=80, deadline=None)
@given(
    pairs=st.lists(st.tuples(unit, unit), min_size=1, max_size=40),
    fusion=st.sampled_from(list(Fusion)),
    weight=unit,
)
def test_every_fusion_stays_in_0_1_and_is_monotone_in_both_scores(pairs, fusion, weight):
    dense, lexical = np.array(pairs).T
    fused = fuse(dense, lexical, fusion, weight)
    assert fused.shape == dense.shape and np.isfinite(fused).all()
    assert (fused >= 0).all() and (fused <= 1 + 1e-12).all()
    # A chunk at least as good on both scores never fuses lower.
    better = (dense[:, None] >= dense[None, :]) & (lexical[:, None] >= lexical[None, :])
    assert (fused[:, None] >= fused[None, :] - 1e-12)[better].all()


def test_fusion_is_per_document():
    document_a = Document.from_text("alpha beta. " * 40, name="a.txt")
    document_b = Document.from_text("gamma delta. " * 60, name="b.txt")
    corpus = build_corpus([document_a, document_b], 100)
    rng = np.random.default_rng(4)
    dense, lexical = rng.uniform(0, 0.8, len(corpus.chunks)), rng.uniform(0, 9, len(corpus.chunks))
    split = corpus.document_splits[0]
    fused = fuse_per_document(dense, lexical, corpus.chunks, "max")
    expected_b = np.maximum(MINILM_CALIBRATION(dense[split:]), BM25_CALIBRATION(lexical[split:]))
    np.testing.assert_array_equal(fused[split:], expected_b)


def test_bad_options_are_refused_with_the_choices():
    with pytest.raises(ScorerError, match="max, mean, rrf"):
        HybridScorer(fusion="median")
    with pytest.raises(ScorerError, match="between 0 and 1"):
        get_scorer("hybrid", weight=1.5)


def test_hybrid_is_registered_and_deterministic():
    assert ScorerName.parse("hybrid") is ScorerName.HYBRID
    scorer = get_scorer("hybrid", disk_cache=False, bundled_embeddings=(SAMPLES / "embeddings",))
    assert scorer.name == "hybrid" and "bm25s" in scorer.model and scorer.calibration.kind == "identity"
    from rse_core import load_document

    corpus = build_corpus(load_document(SAMPLES / "tech_report.pdf"), 800)
    first = scorer.score("coolant pump flow rate", corpus.chunks)
    again = get_scorer("hybrid", disk_cache=False, bundled_embeddings=(SAMPLES / "embeddings",)).score(
        "coolant pump flow rate", corpus.chunks
    )
    np.testing.assert_array_equal(first, again)
    assert 0.0 <= first.min() < first.max() <= 1.0
    dense, lexical = scorer.components("coolant pump flow rate", corpus.chunks)
    np.testing.assert_array_equal(first, fuse_per_document(dense, lexical, corpus.chunks, scorer.fusion, scorer.weight))


def test_cli_accepts_the_hybrid_scorer(tmp_path, capsys):
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\n" + "The coolant is a glycol mix pumped at four litres a minute. " * 20, "utf-8")
    assert cli_main([str(path), "-q", "coolant", "--scorer", "hybrid", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scorer"] == "hybrid" and data["segments"]
