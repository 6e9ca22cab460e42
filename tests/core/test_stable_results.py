"""A document's chunk values and segments do not depend on which other documents are loaded."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import RSEParams, build_corpus, get_scorer, load_document, run_rse
from rse_core.scoring.base import Calibration
from rse_core.scoring.minilm import MINILM_CALIBRATION
from rse_core.values import chunk_values
from tests.support.apptest_support import ROOT

SAMPLES = ROOT / "sample_docs"
# Room for every segment of both documents, so the shared chunk budget cannot bind.
PARAMS = RSEParams(overall_max_length=300)


@pytest.fixture(scope="module")
def documents():
    return [load_document(SAMPLES / name) for name in ("annual_report.pdf", "tech_report.pdf")]


def _scorer(name: str):
    if name == "minilm":
        return get_scorer("minilm", disk_cache=False, bundled_embeddings=(SAMPLES / "embeddings",))
    return get_scorer(name)


def _run(documents, query, scorer):
    corpus = build_corpus(documents, PARAMS.chunk_size)
    raw = scorer.score(query, corpus.chunks)
    return run_rse(corpus, [query], [raw], PARAMS, scorer.calibration, scorer=scorer.name)


def _part(result, doc_id):
    """The values and segments of one document of a result, in document coordinates."""
    indices = [i for i, chunk in enumerate(result.corpus.chunks) if chunk.doc_id == doc_id]
    values = result.values[0]
    segments = [(s.first_chunk, s.last_chunk, round(s.score, 12)) for s in result.segments if s.doc_id == doc_id]
    return values.calibrated[indices], values.rank[indices], values.value[indices], segments


@pytest.mark.parametrize("scorer_name", ["minilm", "bm25", "hybrid"])
def test_values_and_segments_are_the_same_alone_and_beside_another_document(documents, scorer_name):
    scorer = _scorer(scorer_name) if scorer_name != "hybrid" else _hybrid()
    annual, tech = documents
    query = "How is the cooling system designed and what coolant does it use?"
    alone = _part(_run([tech], query, scorer), tech.doc_id)
    together = _part(_run([annual, tech], query, scorer), tech.doc_id)
    for left, right in zip(alone[:3], together[:3], strict=True):
        np.testing.assert_array_equal(left, right)
    assert alone[3] == together[3] and alone[3], "the tech report should have segments for a cooling query"


def _hybrid():
    return get_scorer("hybrid", disk_cache=False, bundled_embeddings=(SAMPLES / "embeddings",))


def test_top_k_still_ranks_across_documents(documents):
    result = _run(documents, "consolidated financial statements revenue", get_scorer("bm25"))
    # Every document has a chunk of per-document rank 0, but the corpus-wide top-k has no ties.
    assert (result.values[0].rank == 0).sum() == 2
    assert len(set(result.top_k)) == len(result.top_k) == PARAMS.top_k


@settings(max_examples=60, deadline=None)
@given(
    first=st.lists(st.floats(-1, 1), min_size=1, max_size=30),
    second=st.lists(st.floats(-1, 1), min_size=1, max_size=30),
    kind=st.sampled_from(["quantile", "max_ratio", "identity"]),
)
def test_per_document_calibration_and_ranks_ignore_the_other_document(first, second, kind):
    calibration = MINILM_CALIBRATION if kind == "quantile" else Calibration(kind)
    raw = np.array(first + second)
    splits = (len(first),)
    calibrated = calibration.per_document(raw, splits)
    np.testing.assert_array_equal(calibrated[: len(first)], calibration(np.array(first)))
    np.testing.assert_array_equal(calibrated[len(first) :], calibration(np.array(second)))
    together = chunk_values(calibrated, RSEParams(), raw=raw, document_splits=splits)
    alone = chunk_values(calibration(np.array(second)), RSEParams(), raw=np.array(second))
    np.testing.assert_array_equal(together.value[len(first) :], alone.value)
    np.testing.assert_array_equal(together.rank[len(first) :], alone.rank)


def test_calibrating_over_the_collection_is_a_choice_and_matches_one_pooled_calibration(documents):
    """``per_document_calibration=False`` calibrates and ranks over every loaded chunk, as one document would be."""
    scorer = get_scorer("bm25")
    annual, tech = documents
    query = "How is the cooling system designed and what coolant does it use?"
    pooled = RSEParams(overall_max_length=300, per_document_calibration=False)
    corpus = build_corpus([annual, tech], pooled.chunk_size)
    raw = scorer.score(query, corpus.chunks)
    result = run_rse(corpus, [query], [raw], pooled, scorer.calibration, scorer=scorer.name)
    expected = chunk_values(scorer.calibration(raw), pooled, chunk_lengths=corpus.lengths, raw=raw)
    np.testing.assert_array_equal(result.values[0].value, expected.value)
    assert sorted(result.values[0].rank.tolist()) == list(range(len(corpus.chunks)))  # one ranking over both
    # and the tech report's values then move when the annual report is loaded beside it
    alone = run_rse(
        build_corpus([tech], pooled.chunk_size),
        [query],
        [scorer.score(query, build_corpus([tech], pooled.chunk_size).chunks)],
        pooled,
        scorer.calibration,
    )
    tech_part = _part(result, tech.doc_id)
    assert not np.array_equal(_part(alone, tech.doc_id)[1], tech_part[1])


def test_many_small_documents_get_a_note_that_names_the_switch():
    """Where per-document calibration is weakest (FinanceBench's pages), the result says so once."""
    from rse_core import Document

    pages = [Document.from_text(f"Page {n}: revenue grew in region {n}. " * 3, name=f"p{n}.txt") for n in range(12)]
    corpus = build_corpus(pages, PARAMS.chunk_size)
    raw = get_scorer("bm25").score("revenue growth", corpus.chunks)
    calibration = get_scorer("bm25").calibration
    stable = run_rse(corpus, ["revenue growth"], [raw], PARAMS, calibration)
    pooled = run_rse(
        corpus, ["revenue growth"], [raw], PARAMS.with_changes(per_document_calibration=False), calibration
    )
    note = [n for n in stable.notes if "most have 3 chunks or fewer" in n]
    assert len(note) == 1 and note[0].startswith("12 documents") and "--calibrate-over-collection" in note[0]
    assert not any("most have 3 chunks or fewer" in n for n in pooled.notes)
    # Few documents, or long ones: no note.
    assert not any(
        "3 chunks or fewer" in n
        for n in run_rse(build_corpus(pages[:9], PARAMS.chunk_size), ["revenue"], [raw[:9]], PARAMS, calibration).notes
    )
