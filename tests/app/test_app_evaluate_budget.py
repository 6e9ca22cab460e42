"""Evaluate page, budget part: the recall-vs-characters chart and table, and auto-tune with apply."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from rse_core import RSEParams, get_scorer
from rse_core.evaluation.curves import budget_curves
from rse_core.evaluation.golden import load_golden_set
from rse_core.evaluation.runs import evaluate
from rse_core.evaluation.scored_sets import score_set
from rse_core.evaluation.sets import EvalSet, corpus_missing_message, golden_group, golden_sets
from rse_core.evaluation.tuning import tune
from tests.support.apptest_support import APP, ROOT, chart_specs, open_page

ANNUAL = ROOT / "sample_docs" / "annual_report.golden.json"


@pytest.fixture(scope="module")
def scored():
    golden = load_golden_set(ANNUAL)
    return score_set(EvalSet("annual", (golden_group(golden),)), get_scorer("bm25"), 800)


@pytest.fixture
def at() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.sidebar.selectbox(key="sb_scorer").set_value("bm25")
    at.run()
    open_page(at, "evaluate")
    assert not at.exception, at.exception
    return at


def budget_spec(at: AppTest) -> dict:
    specs = [spec for spec in chart_specs(at) if spec["layout"].get("xaxis", {}).get("title", {}).get("text", "")]
    (spec,) = [s for s in specs if "characters sent" in s["layout"]["xaxis"]["title"]["text"]]
    return spec


def budget_table(at: AppTest):
    (table,) = [frame.value for frame in at.dataframe if "area RSE" in frame.value.columns]
    return table


def test_chart_and_table_show_the_cores_curves(at, scored):
    curves = budget_curves(scored, RSEParams())
    spec = budget_spec(at)
    traces = {trace["name"].split(" (")[0]: trace for trace in spec["data"]}
    rse, top, _ = curves["all"]
    assert traces["RSE, penalty sweep"]["x"] == [p.characters for p in rse.points]
    assert traces["RSE, penalty sweep"]["y"] == [p.recall for p in rse.points]
    assert f"area {rse.area:.3f}" in traces["RSE, penalty sweep"]["name"]
    assert traces["top-k, k = 1-20"]["y"] == [p.recall for p in top.points]
    assert traces["fixed window, k = 1-20"]["y"] == [p.recall for p in curves["all"][2].points]
    # the sidebar's setting sits on the RSE curve, at the evaluation's own numbers
    overall = evaluate(load_golden_set(ANNUAL), RSEParams(), "bm25").summary()
    rse_all = next(row for row in overall if row["kind"] == "all" and row["method"] == "rse")
    assert traces["Sidebar setting"]["x"] == [pytest.approx(rse_all["characters"])]
    assert traces["Sidebar setting"]["y"] == [pytest.approx(rse_all["recall"])]
    table = budget_table(at)
    assert list(table["kind"]) == [*[kind for kind in curves if kind != "all"], "all"]
    last = table.iloc[-1]
    assert last["RSE recall"] == pytest.approx(rse_all["recall"])
    assert last["area RSE"] == pytest.approx(rse.area)


def test_kind_picker_draws_that_kinds_curves(at, scored):
    at.radio(key="ev_budget_kind").set_value("gapped").run()
    assert not at.exception
    gapped_rse = budget_curves(scored, RSEParams())["gapped"][0]
    traces = {trace["name"].split(" (")[0]: trace for trace in budget_spec(at)["data"]}
    assert traces["RSE, penalty sweep"]["y"] == [p.recall for p in gapped_rse.points]


def test_auto_tune_shows_the_winner_and_apply_sets_the_sliders(at, scored):
    at.number_input(key="ev_tune_budget").set_value(6000).run()
    at.button(key="ev_tune_run").click().run()
    assert not at.exception
    expected = tune(scored, 6000, RSEParams())
    assert expected.best is not None
    assert len(at.success) == 1 and "Best within 6,000 characters" in at.success[0].value.replace("\\", "")
    traces = {trace["name"]: trace for trace in budget_spec(at)["data"]}
    assert traces["Auto-tuned"]["x"] == [pytest.approx(expected.best.characters)]
    assert traces["Auto-tuned"]["y"] == [pytest.approx(expected.best.recall)]
    assert expected.best.characters <= 6000

    at.button(key="ev_tune_apply").click().run()
    assert not at.exception
    best = expected.best.params
    assert at.session_state["sb_irrelevant_chunk_penalty"] == best.irrelevant_chunk_penalty
    assert at.session_state["sb_minimum_value"] == best.minimum_value
    assert at.session_state["sb_decay_rate"] == best.decay_rate
    assert at.session_state["sb_max_length"] == best.max_length
    # the page now evaluates at the tuned setting: its numbers are the winner's
    table = budget_table(at)
    assert table.iloc[-1]["RSE recall"] == pytest.approx(expected.best.recall)
    assert table.iloc[-1]["characters"] == pytest.approx(expected.best.characters)
    assert len(at.success) == 1  # the result survives applying it


def test_a_tight_budget_still_finds_a_setting_within_it(at, scored):
    at.number_input(key="ev_tune_budget").set_value(500).run()
    at.button(key="ev_tune_run").click().run()
    assert not at.exception
    expected = tune(scored, 500, RSEParams())
    assert expected.best is not None and expected.best.characters <= 500
    assert f"recall {expected.best.recall:.2f}" in at.success[0].value.replace("\\", "")


@pytest.mark.skipif(corpus_missing_message() is not None, reason=corpus_missing_message() or "")
def test_the_external_set_is_evaluated_on_its_third_party_document(at):
    at.radio(key="ev_source").set_value("external").run()
    at.selectbox(key="ev_external").set_value("levels_of_agi.pdf").run()
    assert not at.exception and not at.error
    golden = next(g for g in golden_sets("external") if g.document_name == "levels_of_agi.pdf")
    expected = evaluate(golden, RSEParams(), "bm25")
    table = at.dataframe(key="ev_table").value
    assert list(table["id"]) == [query.id for query in expected.queries]
    assert list(table["RSE recall"]) == [query.scores["rse"].recall for query in expected.queries]
    overall = next(row for row in expected.summary() if row["kind"] == "all" and row["method"] == "rse")
    assert budget_table(at).iloc[-1]["RSE recall"] == pytest.approx(overall["recall"])
    assert not [button for button in at.button if button.key == "ev_open_explore"]  # not a sidebar document
