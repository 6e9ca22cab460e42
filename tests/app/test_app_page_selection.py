"""Golden spans selected by dragging across a PDF's rendered page, on Evaluate's form and on
Explore's page view (AppTest; the drag is what the component sends, since AppTest cannot drive it)."""

from __future__ import annotations

import pymupdf
import pytest
from streamlit.testing.v1 import AppTest

from app_ui import keys
from app_ui.page_select import drag_points
from app_ui.page_state import evaluate as evaluate_state
from rse_core import load_document
from rse_core.evaluation.metrics import score_result
from tests.support.apptest_support import ROOT, chart_specs, messages, new_app, no_problems, open_page, result_of

HANDBOOK = ROOT / "sample_docs" / "employee_handbook.pdf"
FIRST, LAST = "Every new employee", "of your tenth week."  # page 3: the probation paragraph's first lines


def _drag(page: int, first: str, last: str) -> dict:
    """What the component sends for a drag from the left of ``first`` to the right of ``last``,
    placed by PyMuPDF's own search (fractions of the page image)."""
    with pymupdf.open(HANDBOOK) as pdf:
        pdf_page = pdf[page - 1]
        width, height = pdf_page.rect.width, pdf_page.rect.height
        a, b = pdf_page.search_for(first)[0], pdf_page.search_for(last)[0]
    return {
        "a": {"page": page, "x": (a.x0 + 1) / width, "y": (a.y0 + a.y1) / 2 / height},
        "b": {"page": page, "x": (b.x1 - 1) / width, "y": (b.y0 + b.y1) / 2 / height},
        "at": 1,
    }


def _expected() -> str:
    text = load_document(HANDBOOK).text
    start = text.index(FIRST)
    return text[start : text.index(LAST, start) + len(LAST)]


@pytest.fixture
def at() -> AppTest:
    return new_app(docs="employee_handbook", q="How long is the probation period?").run()


def _selector(at: AppTest):
    return [e for e in at.get("component_instance") if e.proto.component_name.endswith(".page_select")]


def test_a_drag_on_evaluates_page_is_the_gold_span_of_the_form(at):
    open_page(at, "evaluate")
    at.segmented_control(key=evaluate_state.Keys.SPAN_SOURCE).set_value("page").run()
    no_problems(at)
    (selector,) = _selector(at)
    first_page = at.session_state[keys.RUN_STATE].result.segments[0].first_page
    assert f'"page": {first_page}, ' in selector.proto.json_args  # opens on the result's first segment
    doc_id = load_document(HANDBOOK).doc_id
    at.session_state[keys.page_select("ev", doc_id)] = _drag(3, FIRST, LAST)
    at.run()
    no_problems(at)
    expected = _expected()
    assert any(f"characters {_span(expected)}" in e.label for e in at.expander)
    assert expected in [t.value for t in at.text]
    at.text_area(key=evaluate_state.Keys.FORM_QUERIES).set_value("How long is probation?\nWhen are the check-ins?")
    next(button for button in at.button if button.label == "Add to my golden set").click().run()
    no_problems(at)
    assert any("Added q-01, q-02" in m for m in messages(at, "success"))
    text = load_document(HANDBOOK).text
    for query in at.session_state[evaluate_state.Keys.BUILT].queries:
        assert text[query.start_char : query.end_char] == expected  # exactly the dragged characters
    at.text_area(key=evaluate_state.Keys.FORM_QUERIES).set_value("how long is  PROBATION?")
    next(button for button in at.button if button.label == "Add to my golden set").click().run()
    assert any("is already q-01" in m for m in messages(at, "error"))  # the same query is refused
    assert len(at.session_state[evaluate_state.Keys.BUILT].queries) == 2


def _span(expected: str) -> str:
    text = load_document(HANDBOOK).text
    start = text.index(expected)
    return f"{start:,}-{start + len(expected):,}"


def _drag_on_explores_page_view(at: AppTest) -> str:
    at.toggle(key=keys.PAGE_VIEW_SELECT).set_value(True).run()
    no_problems(at)
    assert _selector(at)  # the page view's images can be dragged across
    doc_id = load_document(HANDBOOK).doc_id
    at.session_state[keys.page_select("pv", doc_id)] = _drag(3, FIRST, LAST)
    at.run()
    no_problems(at)
    expected = _expected()
    shown = " ".join(messages(at, "markdown"))
    assert f"**Gold span** (p. 3, characters {_span(expected)}): Every new employee serves a probationary" in shown
    return expected


def test_a_drag_on_explores_page_view_is_the_span_of_evaluates_form(at):
    expected = _drag_on_explores_page_view(at)
    open_page(at, "evaluate")
    at.segmented_control(key=evaluate_state.Keys.SPAN_SOURCE).set_value("page").run()
    no_problems(at)
    assert any(f"characters {_span(expected)}" in e.label for e in at.expander)
    assert expected in [t.value for t in at.text]
    (selector,) = _selector(at)
    assert '"page": 3, ' in selector.proto.json_args  # Evaluate opens on the span's page


def test_the_page_views_button_opens_evaluates_form_with_the_span(at):
    expected = _drag_on_explores_page_view(at)
    chunk_size = at.session_state[keys.PARAM_KEYS["chunk_size"]]
    next(b for b in at.button if b.key == keys.PAGE_VIEW_TO_GOLDEN).click().run()
    no_problems(at)  # the sidebar keeps its document and settings across the switch
    assert "Evaluate" in [title.value for title in at.title]
    assert at.session_state[keys.SAMPLES] == ["employee_handbook"]
    assert at.session_state[keys.PARAM_KEYS["chunk_size"]] == chunk_size
    assert at.session_state[evaluate_state.Keys.SPAN_SOURCE] == "page"
    assert any(f"characters {_span(expected)}" in e.label for e in at.expander)  # in Evaluate's form
    assert expected in [t.value for t in at.text]


def _gold_metrics(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric if metric.label.startswith("Gold")}


def _gold_labels(at: AppTest) -> list[str]:
    shapes = chart_specs(at)[0]["layout"].get("annotations", [])
    return [annotation.get("text", "") for annotation in shapes]


def test_the_span_selected_on_the_page_is_drawn_on_the_chart_and_judged_as_sliders_move(at):
    assert not _gold_metrics(at)  # a query no golden set has: nothing to judge against
    expected = _drag_on_explores_page_view(at)
    assert any("selected span" in label for label in _gold_labels(at))
    result = result_of(at)
    text = load_document(HANDBOOK).text
    start = text.index(expected)
    judged = score_result(result, (start, start + len(expected)))["rse"]
    assert _gold_metrics(at) == {"Gold recall": f"{judged.recall:.2f}", "Gold precision": f"{judged.precision:.2f}"}
    at.sidebar.slider(key=keys.PARAM_KEYS["irrelevant_chunk_penalty"]).set_value(0.6).run()
    narrower = score_result(result_of(at), (start, start + len(expected)))["rse"]
    assert narrower.precision != judged.precision  # the numbers follow the slider
    assert _gold_metrics(at)["Gold precision"] == f"{narrower.precision:.2f}"


def test_a_query_of_my_golden_set_is_drawn_on_explores_chart(at):
    open_page(at, "evaluate")
    at.segmented_control(key=evaluate_state.Keys.SPAN_SOURCE).set_value("page").run()
    doc_id = load_document(HANDBOOK).doc_id
    at.session_state[keys.page_select("ev", doc_id)] = _drag(3, FIRST, LAST)
    at.run()
    at.text_area(key=evaluate_state.Keys.FORM_QUERIES).set_value("How long is the probation period?")
    next(button for button in at.button if button.label == "Add to my golden set").click().run()
    at.session_state[keys.PAGE_GOLD_SPAN] = None  # only the golden set's span this time
    open_page(at, "explore")
    no_problems(at)
    assert any("gold q-01" in label for label in _gold_labels(at))
    assert "Gold recall" in _gold_metrics(at)
    assert any("the gold answer of q-01" in caption.value for caption in at.caption)


@pytest.mark.parametrize(
    "value",
    [
        None,
        {},
        {"a": {"page": 3, "x": 0.1, "y": 0.1}},
        {"a": {"page": 3, "x": 0.1, "y": 0.1}, "b": {"page": 0, "x": 0.2, "y": 0.2}},
        {"a": {"page": 3, "x": 0.1, "y": 0.1}, "b": {"page": 99, "x": 0.2, "y": 0.2}},
        {"a": {"page": 3, "x": -0.1, "y": 0.1}, "b": {"page": 3, "x": 0.2, "y": 0.2}},
        {"a": {"page": 3, "x": 0.1, "y": float("nan")}, "b": {"page": 3, "x": 0.2, "y": 0.2}},
        {"a": {"page": True, "x": 0.1, "y": 0.1}, "b": {"page": 3, "x": 0.2, "y": 0.2}},
        {"a": {"page": "3", "x": 0.1, "y": 0.1}, "b": {"page": 3, "x": 0.2, "y": 0.2}},
        {"a": [3, 0.1, 0.1], "b": {"page": 3, "x": 0.2, "y": 0.2}},
    ],
)
def test_a_bad_value_from_the_browser_is_no_drag(value):
    assert drag_points(value, 10) is None


def test_a_good_value_is_the_drag():
    assert drag_points({"a": {"page": 1, "x": 0, "y": 1}, "b": {"page": 2, "x": 0.5, "y": 0.25}}, 2) == (
        (1, 0.0, 1.0),
        (2, 0.5, 0.25),
    )


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_deeply_nested_value_from_the_frame_is_dropped_and_a_drag_still_works(at):
    """The value is the browser's to choose: a 900-level nested one made Streamlit's widget
    bookkeeping recurse until the page view broke (as it did the live chart's)."""
    at.toggle(key=keys.PAGE_VIEW_SELECT).set_value(True).run()
    key = keys.page_select("pv", load_document(HANDBOOK).doc_id)
    for value in (
        {"a": _nested(900), "b": {"page": 3}, "at": _nested(900)},
        {**_drag(3, FIRST, LAST), "at": _nested(900)},
    ):
        at.session_state[key] = value
        at.run()
        no_problems(at)
        assert not any(m.startswith("**Gold span**") for m in messages(at, "markdown"))
    at.session_state[key] = _drag(3, FIRST, LAST)
    at.run()
    no_problems(at)
    assert any(m.startswith(f"**Gold span** (p. 3, characters {_span(_expected())})") for m in messages(at, "markdown"))
