"""Golden sets made by selecting text (character spans, several queries in one form), usable by
Evaluate, the parameter sweep and auto-tune (AppTest)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from app_ui.text_select import span_from_value
from rse_core import load_document
from tests.support.apptest_support import APP, ROOT, messages, no_problems, open_page

HANDBOOK = ROOT / "sample_docs" / "employee_handbook.pdf"
ANSWER = "probation"  # a word of the handbook's probation paragraph


@pytest.fixture
def at() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["scorer"] = "bm25"
    at.query_params["docs"] = "employee_handbook"
    at.query_params["q"] = "How long is the probation period?"
    at.run()
    return open_page(at, "evaluate")


def _selector(at: AppTest):
    return next(e for e in at.get("component_instance") if e.proto.component_name.endswith(".text_select"))


def _select(at: AppTest, start: int, end: int) -> None:
    """What the component sends when the reader selects (AppTest cannot drive a component)."""
    at.session_state["ev_select_text"] = {"start": start, "end": end, "at": 1}
    at.run()


def _answer_span(text: str) -> tuple[int, int]:
    """A span that starts and ends mid-line and mid-chunk, as a mouse selection does."""
    start = text.index(ANSWER) - 4
    return start, start + 157


def test_a_selection_is_a_character_span_of_the_document_text(at):
    text = load_document(HANDBOOK).text
    start, end = _answer_span(text)
    component = _selector(at)
    shown = component.proto.json_args
    assert '"offset": 0' in shown  # the whole document is shown from its first character
    _select(at, start, end)
    no_problems(at)
    assert f"characters {start:,}-{end:,}" in " ".join(e.label for e in at.expander)
    assert text[start:end].strip() in [t.value for t in at.text]


def test_several_queries_in_one_form_share_the_selected_span(at):
    text = load_document(HANDBOOK).text
    start, end = _answer_span(text)
    _select(at, start, end)
    at.text_area(key="ev_form_queries").set_value(
        "How long is the probation period?\nWhen does probation end?\n\nHow long is the probation period?"
    )
    next(button for button in at.button if button.label == "Add to my golden set").click().run()
    no_problems(at)
    assert any("Added q-01, q-02" in m for m in messages(at, "success"))
    built = at.session_state["ev_built_set"]
    assert [q.query for q in built.queries] == ["How long is the probation period?", "When does probation end?"]
    trimmed = text[start:end].strip()
    for query in built.queries:
        assert text[query.start_char : query.end_char] == trimmed  # not widened to chunk boundaries
    assert built.check_offsets(text) == []


def test_my_golden_set_gives_recall_on_the_sweep_and_auto_tune(at):
    text = load_document(HANDBOOK).text
    start, end = _answer_span(text)
    _select(at, start, end)
    at.text_area(key="ev_form_queries").set_value("How long do new hires stay on probation?")
    next(button for button in at.button if button.label == "Add to my golden set").click().run()
    at.button(key="ev_evaluate_built").click().run()
    no_problems(at)
    assert list(at.dataframe(key="ev_table").value["id"]) == ["q-01"]
    at.button(key="ev_tune_run").click().run()
    no_problems(at)
    assert any(button.label == "Apply to the sidebar" for button in at.button)  # auto-tune ran on my set
    at.sidebar.text_area(key="sb_query").set_value("How long do new hires stay on probation?").run()
    open_page(at, "sweep")
    no_problems(at)
    assert at.selectbox(key="sw_gold").value == "q-01"
    assert "recall of the gold span" in at.radio(key="sw_metric").options


@pytest.mark.parametrize(
    "value",
    [
        None,
        {},
        {"start": 5},
        {"start": 5, "end": 5},
        {"start": -1, "end": 3},
        {"start": 0, "end": 10**9},
        {"start": True, "end": 4},
        {"start": "1", "end": "4"},
        [1, 4],
    ],
)
def test_a_bad_value_from_the_browser_is_no_span(value):
    assert span_from_value(value, 1000) is None


def test_a_good_value_is_the_span():
    assert span_from_value({"start": 3, "end": 9, "at": 5}, 10).start == 3


def test_a_deeply_nested_value_from_the_frame_is_dropped_and_a_selection_still_works(at):
    """The value is the browser's to choose: a 900-level nested one made Streamlit's widget
    bookkeeping recurse, and Evaluate could not be drawn while it stayed (as the live chart's)."""
    nested: list = []
    for _ in range(900):
        nested = [nested]
    for _ in range(2):
        at.session_state["ev_select_text"] = {"start": nested, "end": 5, "at": nested}
        at.run()
        no_problems(at)
    text = load_document(HANDBOOK).text
    start, end = _answer_span(text)
    _select(at, start, end)
    no_problems(at)
    assert f"characters {start:,}-{end:,}" in " ".join(e.label for e in at.expander)
