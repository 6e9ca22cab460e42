"""FinanceBench as a collection of evidence pages: reading the CSV, duplicates, gold spans, scoring."""

from __future__ import annotations

import csv
import io

import pytest

from rse_core import RSEParams, get_scorer
from rse_core.evaluation.curves import prepare, rse_outcome, top_k_outcome
from rse_core.evaluation.financebench import FILE_NAME, FinanceBenchError, page_collection, read_financebench
from rse_core.evaluation.scored_sets import evaluate_scored, score_set
from rse_core.evaluation.sets import corpus_dir, corpus_missing_message, financebench_set

COLUMNS = ["financebench_id", "doc_name", "doc_link", "doc_period", "question_type", "question", "answer",
           "evidence_text", "page_number"]  # fmt: skip
PAGE_A = "ACME Corp\nConsolidated Statement of Cash Flows\nPurchases of property, plant and equipment (1,577)\n"
PAGE_B = "Risk factors\nOur business depends on\nsteady demand for widgets in Europe.\n"


def csv_bytes(rows: list[dict[str, str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS)
    writer.writeheader()
    for row in rows:
        writer.writerow({column: row.get(column, "") for column in COLUMNS})
    return buffer.getvalue().encode()


ROWS = [
    {"financebench_id": "fb-1", "doc_name": "ACME_2022_10K", "question_type": "metrics-generated",
     "question": "What were ACME's capital expenditures?", "evidence_text": PAGE_A, "page_number": "60"},
    {"financebench_id": "fb-2", "doc_name": "ACME_2022_10K", "question_type": "domain-relevant",
     "question": "Where does ACME depend on demand?", "evidence_text": PAGE_B, "page_number": "12"},
    {"financebench_id": "fb-3", "doc_name": "ACME_2022_10K", "question_type": "novel-generated",
     "question": "How much did ACME spend on equipment?", "evidence_text": PAGE_A, "page_number": "60"},
]  # fmt: skip


def test_rows_with_multi_line_fields_are_read():
    rows = read_financebench(csv_bytes(ROWS))
    assert [row.id for row in rows] == ["fb-1", "fb-2", "fb-3"]
    assert rows[0].evidence_text == PAGE_A  # the field spans lines
    assert rows[0].page_name == "ACME_2022_10K_p60.txt"
    assert [row.id for row in read_financebench(csv_bytes(ROWS), limit=2)] == ["fb-1", "fb-2"]


def test_rows_quoting_the_same_page_share_one_document():
    documents, doc_ids = page_collection(read_financebench(csv_bytes(ROWS)))
    assert len(documents) == 2
    assert doc_ids[0] == doc_ids[2] != doc_ids[1]
    assert [document.name for document in documents] == ["ACME_2022_10K_p60.txt", "ACME_2022_10K_p12.txt"]


def test_a_missing_column_or_empty_evidence_is_a_clear_error():
    with pytest.raises(FinanceBenchError, match="lacks the column"):
        read_financebench(b"financebench_id,question\nx,y\n")
    with pytest.raises(FinanceBenchError, match=r"Row 1 .* no evidence"):
        read_financebench(csv_bytes([{**ROWS[0], "evidence_text": "  "}]))


def test_set_gold_is_the_whole_page_and_scoring_hits_the_right_page(tmp_path):
    path = tmp_path / FILE_NAME
    path.write_bytes(csv_bytes(ROWS))
    eval_set = financebench_set(path=path)
    assert eval_set.document_count == 2 and len(eval_set.cases) == 3
    (group,) = eval_set.groups
    by_id = {document.doc_id: document for document in group.documents}
    for case in eval_set.cases:
        assert case.span == (0, len(by_id[case.doc_id].text))
    assert [case.kind for case in eval_set.cases] == ["metrics-generated", "domain-relevant", "novel-generated"]
    params = RSEParams(chunk_size=200, minimum_value=0.1)
    evaluation = evaluate_scored(score_set(eval_set, get_scorer("bm25"), params.chunk_size), params)
    # BM25 is calibrated within each document (so a page's values do not depend on the others
    # loaded), which gives every page's best chunk 1: the first segment need not be the gold page.
    assert all(query.scores["rse"].recall == 1.0 for query in evaluation.queries)
    summary = {(row["kind"], row["method"]): row for row in evaluation.summary()}
    assert summary["all", "rse"]["first_hit"] == sum(evaluation.first_hit) / 3
    assert summary["all", "top_k"]["first_hit"] is None


@pytest.mark.skipif(corpus_missing_message() is not None, reason=corpus_missing_message() or "")
def test_the_real_sample_reads_150_questions_over_fewer_distinct_pages():
    rows = read_financebench(corpus_dir() / FILE_NAME)
    assert len(rows) == 150
    documents, doc_ids = page_collection(rows)
    assert len(documents) == len(set(doc_ids)) < 150  # some questions share a page
    small = financebench_set(limit=4)
    assert len(small.cases) == 4
    assert {case.kind for case in small.cases} <= {"metrics-generated", "domain-relevant", "novel-generated"}


def test_fast_budget_outcomes_equal_evaluate_scored_across_many_documents(tmp_path):
    # every page's offsets start at 0: characters must add up across documents, not merge
    rows = [
        {**ROWS[i % 2], "financebench_id": f"fb-{i}", "evidence_text": f"Page {i}. " + ROWS[i % 2]["evidence_text"] * 3}
        for i in range(6)
    ]
    path = tmp_path / FILE_NAME
    path.write_bytes(csv_bytes(rows))
    params = RSEParams(chunk_size=100, minimum_value=0.0, irrelevant_chunk_penalty=0.05, top_k=4)
    scored = score_set(financebench_set(path=path), get_scorer("bm25"), params.chunk_size)
    evaluation = evaluate_scored(scored, params)
    for query, case in zip(evaluation.queries, prepare(scored, params), strict=True):
        for method, outcome in (("rse", rse_outcome(case, params)), ("top_k", top_k_outcome(case, params.top_k))):
            assert outcome.characters == query.scores[method].characters, (query.id, method)
            assert outcome.recall == pytest.approx(query.scores[method].recall), (query.id, method)
