"""The chunk-size study: one pooled row per method and size, equal to evaluate() at that size."""

from __future__ import annotations

from pathlib import Path

import pytest

from rse_core import RSEParams, get_scorer
from rse_core.chunk_size_study import chunk_size_study, methods_in, run_study
from rse_core.errors import ParameterError
from rse_core.evaluate import METHODS, evaluate, summarize
from rse_core.golden import load_golden_set

ROOT = Path(__file__).resolve().parents[1]
HANDBOOK = load_golden_set(ROOT / "sample_docs" / "employee_handbook.golden.json")


@pytest.fixture(scope="module")
def rows():
    return chunk_size_study([HANDBOOK], RSEParams(), get_scorer("bm25"), sizes=(1600, 400))


def test_one_row_per_method_and_size_in_ascending_size(rows):
    assert [row.chunk_size for row in rows] == [400] * len(METHODS) + [1600] * len(METHODS)
    assert methods_in(rows) == list(METHODS)
    assert {row.queries for row in rows} == {len(HANDBOOK.queries)}


def test_rows_equal_evaluate_at_each_size(rows):
    for size in (400, 1600):
        expected = {
            row["method"]: row
            for row in summarize(evaluate(HANDBOOK, RSEParams(chunk_size=size), "bm25").queries)
            if row["kind"] == "all"
        }
        for row in (r for r in rows if r.chunk_size == size):
            assert row.recall == pytest.approx(expected[row.method]["recall"])
            assert row.covered == pytest.approx(expected[row.method]["covered"])
            assert row.characters == pytest.approx(expected[row.method]["characters"])


def test_top_k_sends_at_most_k_chunks_of_the_chunk_size(rows):
    top_k = {row.chunk_size: row.characters for row in rows if row.method == "top_k"}
    k = RSEParams().top_k
    assert all(characters <= k * size for size, characters in top_k.items())
    assert top_k[1600] > top_k[400]  # bigger chunks: top-k sends more text


@pytest.mark.parametrize(
    ("sizes", "kind", "message"),
    [((), "all", "at least one"), ((0,), "all", "whole numbers"), ((True,), "all", "whole numbers")],
)
def test_bad_sizes_are_refused(sizes, kind, message):
    with pytest.raises(ParameterError, match=message):
        run_study(lambda size: [], sizes, kind=kind)


def test_unknown_kind_is_refused():
    evaluation = evaluate(HANDBOOK, RSEParams(), "bm25")
    with pytest.raises(ParameterError, match="No 'nonsense' queries"):
        run_study(lambda size: evaluation.queries, (800,), kind="nonsense")
