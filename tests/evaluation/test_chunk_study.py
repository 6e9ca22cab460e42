"""The chunk-size study: every method at every size, pooled over golden sets, from the real evaluation."""

from __future__ import annotations

from pathlib import Path

import pytest

from rse_core.evaluation.chunk_study import chunk_size_study, format_study
from rse_core.evaluation.golden import load_golden_set
from rse_core.evaluation.metrics import METHODS
from rse_core.evaluation.runs import evaluate
from rse_core.params import RSEParams

HANDBOOK = Path(__file__).resolve().parents[2] / "sample_docs" / "employee_handbook.golden.json"


def test_study_rows_equal_the_evaluation_at_each_size():
    golden = load_golden_set(HANDBOOK)
    rows = chunk_size_study([golden], RSEParams(), "bm25", chunk_sizes=(400, 1200))
    assert {(row.chunk_size, row.method) for row in rows if row.kind == "all"} == {
        (size, method) for size in (400, 1200) for method in METHODS
    }
    at_400 = evaluate(golden, RSEParams(chunk_size=400), "bm25").summary()
    expected = {(row["kind"], row["method"]): row["recall"] for row in at_400}
    for row in rows:
        if row.chunk_size == 400:
            assert row.recall == pytest.approx(expected[(row.kind, row.method)])
    # bigger chunks: the fixed number of top-k chunks sends more characters
    top_k = {row.chunk_size: row.characters for row in rows if row.kind == "all" and row.method == "top_k"}
    assert top_k[1200] > top_k[400]
    table = format_study(rows)
    assert table.splitlines()[2].startswith("| 400 |") and table.count("\n") == 3
