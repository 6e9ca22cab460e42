"""A first stage run once serves any RSE parameters: same answer as a fresh query, no new search."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rse_core import RSEParams
from rse_core.errors import ParameterError
from rse_core.kb import (
    KBQueryParams,
    KnowledgeBase,
    build,
    document_hits,
    query_kb,
    rse_from_first_stage,
    search_first_stage,
)
from tests.kb.support import SAMPLES, HashingEmbedder

QUERY = "What was the revenue growth and the operating margin?"


@pytest.fixture(scope="module")
def sample_kb(tmp_path_factory):
    kb_dir = tmp_path_factory.mktemp("kbreuse") / "samples"
    build(kb_dir, SAMPLES, embedder=HashingEmbedder())
    return KnowledgeBase.open(kb_dir, HashingEmbedder())


@pytest.mark.parametrize(
    "params",
    [RSEParams(), RSEParams(irrelevant_chunk_penalty=0.05, max_length=5), RSEParams(minimum_value=1.5)],
)
def test_rse_from_a_cached_first_stage_equals_a_fresh_query(sample_kb, params):
    kb_params = KBQueryParams(first_stage="bm25", documents_selected=3)
    first = search_first_stage(sample_kb, QUERY, kb_params)
    cached = rse_from_first_stage(sample_kb, first, params)
    fresh = query_kb(sample_kb, QUERY, params, kb_params)
    assert cached.segments == fresh.segments
    assert cached.top_k == fresh.top_k
    assert cached.selected_documents == fresh.selected_documents
    for doc_id, values in fresh.values.items():
        for mine, theirs in zip(cached.values[doc_id], values, strict=True):
            np.testing.assert_array_equal(mine, theirs)


def test_moving_rse_parameters_does_not_search_the_store_again(sample_kb, monkeypatch):
    first = search_first_stage(sample_kb, QUERY, KBQueryParams(first_stage="bm25"))
    calls = []
    original = sample_kb.store.search
    monkeypatch.setattr(sample_kb.store, "search", lambda *a, **k: calls.append(1) or original(*a, **k))
    for penalty in (0.1, 0.2, 0.3):
        rse_from_first_stage(sample_kb, first, RSEParams(irrelevant_chunk_penalty=penalty))
    assert calls == []


def test_document_hits_say_which_documents_were_selected_and_why(sample_kb):
    first = search_first_stage(sample_kb, QUERY, KBQueryParams(first_stage="bm25", documents_selected=1))
    summary = document_hits(first)
    assert [entry.doc_id for entry in summary if entry.selected] == list(first.selected)
    assert len(first.selected) == 1 and summary[0].best_rank == 1
    assert sum(entry.hits for entry in summary) == sum(len(hits) for hits in first.hits)
    for entry in summary:
        scores = [hit.score for hits in first.hits for hit in hits if hit.doc_id == entry.doc_id]
        assert entry.best_score == max(scores)
    assert all(not entry.selected for entry in summary[1:])
    assert dataclasses.is_dataclass(summary[0])


def test_a_search_is_reused_only_by_settings_that_search_alike(sample_kb):
    first = search_first_stage(sample_kb, QUERY, KBQueryParams(first_stage="bm25"))
    within = KBQueryParams(first_stage="bm25", rank_across_documents=False)
    assert within.search_key == first.kb_params.search_key
    reused = first.reused_with(within)
    fresh = query_kb(sample_kb, QUERY, kb_params=within)
    assert rse_from_first_stage(sample_kb, reused).segments == fresh.segments
    with pytest.raises(ParameterError, match="need a new first-stage search"):
        first.reused_with(KBQueryParams(first_stage="bm25", top_n=50))
