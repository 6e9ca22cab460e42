"""The Evaluate page in AppTest: it renders, its numbers are evaluate()'s, uploads fail politely.

bm25 keeps it fast (no model). ``AppTest.switch_page`` only opens file-based pages; our pages are
callables registered by ``st.navigation``, so :func:`open_page` picks the page's script hash from
the pages the last run registered (AppTest's own registry, the one ``switch_page`` reads).
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from rse_core import RSEParams, get_scorer, preset
from rse_core.evaluation.golden import load_golden_set
from rse_core.evaluation.metrics import METHOD_LABELS, METHODS
from rse_core.evaluation.runs import evaluate
from tests.support.apptest_support import APP, ROOT, no_problems, open_page

ANNUAL = ROOT / "sample_docs" / "annual_report.golden.json"


@pytest.fixture
def at() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.sidebar.selectbox(key="sb_scorer").set_value("bm25")
    at.run()
    open_page(at, "evaluate")
    assert not at.exception, at.exception
    return at


def assert_table_equals(at: AppTest, evaluation) -> None:
    table = at.dataframe(key="ev_table").value
    assert list(table["id"]) == [query.id for query in evaluation.queries]
    assert list(table["kind"]) == [query.kind for query in evaluation.queries]
    for row, query in zip(table.to_dict("records"), evaluation.queries, strict=True):
        for method in METHODS:
            label, score = METHOD_LABELS[method], query.scores[method]
            assert row[f"{label} recall"] == score.recall, (query.id, method)
            assert row[f"{label} precision"] == score.precision, (query.id, method)
            assert row[f"{label} covered"] == score.covered, (query.id, method)
            assert row[f"{label} chars"] == score.characters, (query.id, method)


def test_page_renders_the_default_sample_and_matches_evaluate(at):
    assert [title.value for title in at.title] == ["Evaluate"]
    assert not at.error
    assert at.radio(key="ev_source").value == "sample"
    assert at.selectbox(key="ev_sample").value == "annual_report"  # the first selected sample
    assert preset("default") == RSEParams()
    expected = evaluate(load_golden_set(ANNUAL), preset("default"), get_scorer("bm25"))
    assert_table_equals(at, expected)
    assert len(at.get("plotly_chart")) == 2  # per kind; recall vs characters
    assert {button.label for button in at.get("download_button")} >= {
        "Download results (CSV)",
        "Download results (JSON)",
    }


def test_numbers_follow_the_sidebar_parameters(at):
    at.sidebar.slider(key="sb_top_k").set_value(3)
    at.sidebar.slider(key="sb_irrelevant_chunk_penalty").set_value(0.3)
    at.run()
    assert not at.exception
    params = RSEParams().with_changes(top_k=3, irrelevant_chunk_penalty=0.3)
    expected = evaluate(load_golden_set(ANNUAL), params, get_scorer("bm25"))
    assert_table_equals(at, expected)
    assert {query.scores["top_k"].pieces for query in expected.queries} == {3}


def test_malformed_upload_shows_the_golden_set_error(at):
    at.radio(key="ev_source").set_value("upload").run()
    bad = {"document": "annual_report.pdf", "queries": [{"id": "x1", "query": "Who?", "kind": "trivia"}]}
    at.file_uploader(key="ev_upload").upload("bad.golden.json", json.dumps(bad).encode(), "application/json")
    at.run()
    assert not at.exception
    messages = [error.value for error in at.error]
    assert len(messages) == 1
    assert "bad" in messages[0] and "golden" in messages[0] and "problems" in messages[0]
    assert "x1" in messages[0] and "trivia" in messages[0]
    assert not at.dataframe  # nothing evaluated


def test_not_json_and_inactive_document_uploads(at):
    at.radio(key="ev_source").set_value("upload").run()
    at.file_uploader(key="ev_upload").upload("oops.json", b"{not json", "application/json")
    at.run()
    assert not at.exception
    assert any("not valid JSON" in error.value for error in at.error)

    other = json.loads((ROOT / "sample_docs" / "tech_report.golden.json").read_text())
    at.file_uploader(key="ev_upload").set_value(("tech.golden.json", json.dumps(other).encode(), "application/json"))
    at.run()
    assert not at.exception
    assert any("tech" in error.value and "not an active document" in error.value for error in at.error)


def test_valid_upload_for_the_active_document_is_evaluated(at):
    at.radio(key="ev_source").set_value("upload").run()
    data = json.loads(ANNUAL.read_text())
    data["queries"] = data["queries"][:3]
    at.file_uploader(key="ev_upload").upload("mine.json", json.dumps(data).encode(), "application/json")
    at.run()
    assert not at.exception and not at.error
    golden = load_golden_set(ANNUAL)
    expected = evaluate(type(golden)(golden.document, golden.queries[:3], golden.path), RSEParams(), "bm25")
    assert_table_equals(at, expected)


def test_open_in_explore_sets_the_query_and_switches_page(at):
    golden = load_golden_set(ANNUAL)
    at.selectbox(key="ev_open_query").set_value("ar-07").run()
    at.button(key="ev_open_explore").click().run()
    assert not at.exception
    assert at.session_state["sb_query"] == next(q.query for q in golden.queries if q.id == "ar-07")
    assert at.session_state["sb_samples"] == ["annual_report"]
    assert "Evaluate" not in [title.value for title in at.title]  # now on Explore


def test_a_page_switch_keeps_the_sidebars_settings(at):
    """``st.switch_page`` used to bring the sidebar back at its widgets' minimums (chunk size 200,
    top-k 1, penalty 0), so Explore showed another result than the row it was opened from."""
    at.sidebar.slider(key="sb_irrelevant_chunk_penalty").set_value(0.3).run()
    before = {key: at.session_state[key] for key in ("sb_chunk_size", "sb_top_k", "sb_irrelevant_chunk_penalty")}
    at.selectbox(key="ev_open_query").set_value("ar-07").run()
    at.button(key="ev_open_explore").click().run()
    no_problems(at)
    assert [title.value for title in at.title] == ["Explore"]  # switched: the settings below came across
    assert {key: at.session_state[key] for key in before} == before
    assert at.query_params["penalty"] in ("0.3", ["0.3"])


def submit_span(at: AppTest) -> None:
    next(button for button in at.button if button.label == "Add to my golden set").click().run()


def test_marking_chunks_builds_a_downloadable_golden_set(at):
    at.sidebar.text_area(key="sb_query").set_value("How many people work for the company?").run()
    at.session_state["explore_selected_chunk"] = 41  # as if chunk 41 had been clicked on Explore
    at.run()
    at.segmented_control(key="ev_span_source").set_value("chunks").run()
    at.button(key="ev_add_clicked").click().run()
    assert at.multiselect(key="ev_mark_chunks").value == [41]
    at.multiselect(key="ev_mark_chunks").set_value([40, 41]).run()
    at.selectbox(key="ev_mark_kind").set_value("factoid")
    submit_span(at)
    assert not at.exception
    # messages are Markdown-escaped ("q\\-01"); drop the backslashes to read them
    assert any("Added q-01" in message.value.replace("\\", "") for message in at.success)
    built = at.session_state["ev_built_set"]
    assert built.document == "annual_report.pdf"
    (query,) = built.queries
    assert (query.id, query.kind, query.query) == ("q-01", "factoid", "How many people work for the company?")
    assert query.first_phrase and query.last_phrase
    from rse_core import load_document

    text = load_document(ROOT / "sample_docs" / "annual_report.pdf").text
    assert built.check_offsets(text) == []
    assert any(button.label == "Download golden set (JSON)" for button in at.get("download_button"))

    at.button(key="ev_evaluate_built").click().run()
    assert not at.exception
    assert at.radio(key="ev_source").value == "built"
    assert list(at.dataframe(key="ev_table").value["id"]) == ["q-01"]
