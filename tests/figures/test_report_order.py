"""The HTML report lists answers and sizes in the app's order: RSE, then top-k, then the window."""

from __future__ import annotations

from functools import cache

from app_ui.samples import SAMPLE_DIR
from rse_core import RSEParams, extract, load_document
from rse_core.figures.html_report import ReportAnswer, build_report, ordered_answers


@cache
def _result():
    document = load_document(SAMPLE_DIR / "employee_handbook.pdf")
    return extract(document, "How long is the probation period?", RSEParams(), scorer="bm25")


def test_answers_come_rse_first_whatever_order_they_finished_in():
    answers = {
        "window": ReportAnswer("Fixed window", "window answer", None),
        "top_k": ReportAnswer("Top-k (k=5)", "top-k answer", None),
        "rse": ReportAnswer("RSE", "rse answer", None),
    }
    assert list(ordered_answers(answers)) == ["rse", "top_k", "window"]
    report = build_report(_result(), answers=answers, model="fake")
    assert report.index("rse answer") < report.index("top-k answer") < report.index("window answer")


def test_the_size_summary_has_the_window_after_top_k():
    result = _result()
    report = build_report(result)
    w = result.params.window
    window_row = report.index(f"<td>Window (±{w})</td>")
    assert report.index("<td>RSE</td>") < report.index("<td>Top-k (k=") < window_row
    assert f"<td>{result.window_characters():,}</td>" in report[window_row : window_row + 200]
