"""A golden set's documents as one knowledge base: gold pages, the cases, and the command line
(``python -m rse_core.evaluate samples-kb``) building the base once and reusing it."""

from __future__ import annotations

import pytest

from rse_core.cli.evaluate import main
from rse_core.documents import Document, load_document
from rse_core.errors import RSEError
from rse_core.evaluation import golden_kb
from rse_core.evaluation.kb_eval import GoldItem
from rse_core.evaluation.sets import SAMPLE_DIR, SetName, golden_sets
from rse_core.kb import KnowledgeBase, build
from tests.kb.support import HashingEmbedder


def test_a_span_across_a_page_break_has_both_pages_and_a_text_files_span_is_its_own_page():
    document = load_document(SAMPLE_DIR / "annual_report.pdf")
    starts = document.page_starts
    start, end = starts[1] - 10, starts[1] + 10  # the last characters of page 1, the first of page 2
    item = golden_kb.gold_item(document, start, end)
    assert (item.page_start, item.page_end) == (starts[0], starts[2])
    assert (item.start, item.end) == (start, end)
    inside = golden_kb.gold_item(document, starts[2] + 5, starts[2] + 50)
    assert (inside.page_start, inside.page_end) == (starts[2], starts[3])
    text = Document(doc_id="t", name="notes.txt", title="Notes", text="alpha beta gamma " * 20)
    assert golden_kb.gold_item(text, 6, 10) == GoldItem("t", 6, 10, 6, 10)


def test_every_golden_query_becomes_a_case_of_the_base_and_a_missing_document_is_named(tmp_path):
    sets = golden_sets(SetName.SAMPLES)
    handbook = next(golden for golden in sets if golden.document_name == "employee_handbook.pdf")
    build(tmp_path / "kb", [handbook.document_path], embedder=HashingEmbedder())
    kb = KnowledgeBase.open(tmp_path / "kb", HashingEmbedder())
    try:
        items = golden_kb.case_items(kb, [handbook])
        assert [item[0] for item in items] == [f"employee_handbook/{q.id}" for q in handbook.queries]
        _, query, kind, doc_id, (gold,) = items[0]
        assert (query, kind, doc_id) == (handbook.queries[0].query, handbook.queries[0].kind, next(iter(kb.documents)))
        assert (gold.start, gold.end) == handbook.queries[0].span
        with pytest.raises(RSEError, match=r"annual_report\.pdf .* is not in the base"):
            golden_kb.case_items(kb, sets)
    finally:
        kb.close()


def test_the_command_line_builds_the_samples_base_once_and_prints_the_tables(tmp_path, capsys):
    args = ["samples-kb", "--kb", str(tmp_path / "kb"), "--limit", "2", "--markdown"]
    assert main(args) == 0
    first = capsys.readouterr()
    assert "[building" in first.err
    assert "samples-kb: 6 questions over 3 documents" in first.out
    assert "| all | 6 |" in first.out
    assert "RSE evidence-page hit >= 0.60" in first.out
    assert main(args) == 0
    second = capsys.readouterr()
    assert "[building" not in second.err, "a second run finds every document in the base"
    assert second.out == first.out
