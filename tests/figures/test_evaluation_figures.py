"""The evaluation's figures (Evaluate page): one trace per method and metric, in the methods' colours."""

from __future__ import annotations

import plotly.graph_objects as go

from rse_core import get_scorer, preset
from rse_core.evaluation.curves import budget_curves
from rse_core.evaluation.golden import load_golden_set
from rse_core.evaluation.metrics import METHODS
from rse_core.evaluation.runs import evaluate
from rse_core.evaluation.scored_sets import score_set
from rse_core.evaluation.sets import SetName, load_eval_set
from rse_core.figures.evaluation import METHOD_COLORS, budget_figure, summary_figure

GOLDEN = "sample_docs/tech_report.golden.json"


def test_the_summary_has_every_method_in_its_colour_for_each_metric():
    evaluation = evaluate(load_golden_set(GOLDEN), preset("default"), get_scorer("bm25"))
    figure = go.Figure(summary_figure(evaluation).to_dict())  # validated by Plotly
    bars = [trace for trace in figure.data if trace.type == "bar"]
    assert len(bars) == 3 * len(METHODS)
    for trace in bars:
        method = next(m for m in METHODS if trace.legendgroup == m)
        assert trace.marker.color == METHOD_COLORS[method]
    kinds = {row["kind"] for row in evaluation.summary()}
    assert {label.split(" (")[0] for label in bars[0].x} == kinds


def test_the_budget_figure_draws_one_line_per_curve_with_its_area():
    params = preset("default")
    scored = score_set(
        load_eval_set(SetName.SAMPLES, limit=4), get_scorer("bm25"), params.chunk_size, headers=params.chunk_headers
    )
    curves = budget_curves(scored, params)["all"]
    figure = go.Figure(budget_figure(curves).to_dict())
    lines = [trace for trace in figure.data if trace.mode == "lines+markers"]
    assert len(lines) == len(curves)
    for trace, curve in zip(lines, curves, strict=True):
        assert f"area {curve.area:.3f}" in trace.name
        assert list(trace.x) == [point.characters for point in curve.points]
