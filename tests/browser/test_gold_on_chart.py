"""Tuning against the gold on Explore's chart, in a real browser at a laptop's 1280x720.

The tuner's loop: a golden query's answer is drawn on the value chart (a purple band and strip),
"Gold recall" and "Gold precision" sit in the metrics row, and both follow the sliders without a
trip to Evaluate. The expected numbers come from the library on the same document, query and
parameters, so the page is checked against an independent computation, not against itself.
Screenshot: tests/artifacts/explore_gold_1280x720.png.
"""

from __future__ import annotations

import json
from dataclasses import replace
from urllib.parse import quote_plus

import pytest

from rse_core import RSEParams, extract, load_document
from rse_core.evaluation.metrics import score_result

from .conftest import LIVE_CHART_FRAME, ROOT, press_slider_up_to, screenshot, wait_for_app, wait_for_value_chart
from .test_explore_flow import SIDEBAR, assert_clean, metric_value, settle

pytestmark = pytest.mark.browser

TIMEOUT = 120_000
QUERY_ID = "ar-12"  # a gapped query whose recall and precision both change between penalty 0.20 and 0.24
PENALTIES = (0.20, 0.24)

GOLD_STRIPS_JS = """el => (el.layout.shapes || []).filter(s => s.name === 'gold-strip').map(s => [s.x0, s.x1])"""


def golden_query() -> dict:
    golden = json.loads((ROOT / "sample_docs" / "annual_report.golden.json").read_text(encoding="utf-8"))
    return next(query for query in golden["queries"] if query["id"] == QUERY_ID)


def expected(query: dict, penalty: float) -> tuple[str, str, tuple[float, float]]:
    """Recall and precision as the metrics show them, and the gold's chunk range as the chart's x
    axis draws it (bars centred on whole numbers), from the library alone."""
    document = load_document(ROOT / "sample_docs" / "annual_report.pdf")
    params = replace(RSEParams(), irrelevant_chunk_penalty=penalty)
    result = extract(document, query["query"], params, scorer="bm25")
    span = (query["start_char"], query["end_char"])
    scores = score_result(result, span, result.corpus.documents[0].doc_id)["rse"]
    touched = [i for i, chunk in enumerate(result.corpus.chunks) if chunk.start < span[1] and chunk.end > span[0]]
    return f"{scores.recall:.2f}", f"{scores.precision:.2f}", (touched[0] - 0.5, touched[-1] + 0.5)


def test_the_gold_is_on_the_chart_and_its_metrics_follow_the_slider(page, app_url):
    query = golden_query()
    before, after = (expected(query, penalty) for penalty in PENALTIES)
    assert before[:2] != after[:2], "the case no longer moves: choose another query or penalty"

    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/?docs=annual_report&scorer=bm25&penalty={PENALTIES[0]}&q={quote_plus(query['query'])}")
    wait_for_app(page, TIMEOUT)
    wait_for_value_chart(page, TIMEOUT)
    settle(page)
    assert_clean(page)

    plot = page.frame_locator(LIVE_CHART_FRAME).first.locator(".js-plotly-plot").first
    strips = plot.evaluate(GOLD_STRIPS_JS)
    assert len(strips) == 1
    assert strips[0] == pytest.approx(before[2])
    assert (metric_value(page, "Gold recall"), metric_value(page, "Gold precision")) == before[:2]

    # The chart, with its gold, lies in the first screen: no scrolling to tune against it.
    frame = page.locator(LIVE_CHART_FRAME).first.bounding_box()
    assert frame is not None and frame["y"] >= 0 and frame["y"] + frame["height"] <= 720
    screenshot(page, "explore_gold_1280x720")

    slider = page.locator(f"{SIDEBAR} [data-testid='stSlider']").filter(has_text="Irrelevant chunk penalty")
    press_slider_up_to(slider.get_by_role("slider"), PENALTIES[1])
    settle(page)
    page.wait_for_function(
        """([label, value]) => [...document.querySelectorAll("[data-testid='stMetric']")]
              .some(m => m.innerText.includes(label) && m.querySelector("[data-testid='stMetricValue']")
                                                        .innerText.trim() === value)""",
        arg=["Gold recall", after[0]],
        timeout=TIMEOUT,
    )
    assert (metric_value(page, "Gold recall"), metric_value(page, "Gold precision")) == after[:2]
    assert plot.evaluate(GOLD_STRIPS_JS)[0] == pytest.approx(after[2])  # the gold stays where the answer is
    assert_clean(page)
