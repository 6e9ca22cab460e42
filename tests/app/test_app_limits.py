"""The app shows the library's budgets as one-line messages and keeps the last good result."""

from __future__ import annotations

import pytest

from app_ui import scorers
from tests.support.apptest_support import messages, new_app, open_page, result_of


@pytest.fixture()
def small_embedding_budget(monkeypatch):
    """minilm may embed at most 3 new chunks; cached scorers are dropped before and after."""
    monkeypatch.setenv("RSE_MAX_EMBED_CHUNKS", "3")
    scorers.scorer_for.clear()
    yield
    scorers.scorer_for.clear()


def test_too_many_chunks_for_minilm_is_one_line_suggesting_bm25(small_embedding_budget):
    notes = "".join(f"## Part {i}\n\nNotes on topic {i}: penguins, glaciers and krill.\n\n" for i in range(40))
    at = new_app(q="penguins").run()  # bm25: nothing to embed
    at.sidebar.file_uploader(key="sb_uploads").set_value([("notes.md", notes.encode(), "text/markdown")]).run()
    good = result_of(at)
    assert "notes.md" in [document.name for document in good.corpus.documents]
    at.sidebar.selectbox(key="sb_scorer").set_value("minilm").run()  # the samples' embeddings ship; notes.md's not
    assert not at.exception, [e.value for e in at.exception]
    errors = messages(at, "error")
    assert len(errors) == 1 and "\n" not in errors[0], errors
    assert "would have to be embedded" in errors[0] and "bm25" in errors[0] and "RSE_MAX_EMBED_CHUNKS" in errors[0]
    assert result_of(at) is good  # the last good result stays on screen


def test_a_golden_set_with_a_huge_integer_is_one_line_on_the_evaluate_page():
    at = new_app()
    at.query_params["scorer"] = "bm25"
    at = open_page(at.run(), "evaluate")
    at.radio(key="ev_source").set_value("upload").run()
    huge = '{"schema": "rse-golden/1", "document": "annual_report.pdf", "queries": [' + "9" * 5000 + "]}"
    at.file_uploader(key="ev_upload").upload("huge.golden.json", huge.encode(), "application/json")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = messages(at, "error")
    assert len(errors) == 1 and "\n" not in errors[0], errors
    shown = errors[0]
    assert "huge.golden.json" in shown and "cannot be read" in shown
