"""Evaluate page, knowledge-base part: the samples' golden queries asked of the bundled base, on
request, with the core's numbers, searched once per process, tuned and applied to the Knowledge
base page.

The bundled base is built once for this module into a temporary ``RSE_CACHE_DIR``.
"""

from __future__ import annotations

import pytest

from app_ui import kb_evaluation
from app_ui import knowledge_bases as kbs
from app_ui.page_state import evaluate_kb as evaluate_kb_state
from app_ui.page_state import knowledge_base as knowledge_base_state
from rse_core import RSEParams
from rse_core.evaluation import financebench_kb as fb
from rse_core.evaluation import golden_kb, kb_eval
from rse_core.evaluation.sets import SetName, golden_sets
from rse_core.kb import KBQueryParams, KnowledgeBase
from tests.support.apptest_support import chart_specs, new_app, no_problems, open_page, own_cache

K = evaluate_kb_state.Keys


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    """A cache of this module's own (the bundled base is built there once); no FinanceBench base."""
    folder = tmp_path_factory.mktemp("rse_cache")
    with own_cache(folder, **{fb.KB_ENV: str(folder / "no_financebench_base")}) as cache:
        yield cache


@pytest.fixture
def searches(monkeypatch):
    """Every first-stage search the evaluation runs, by question."""
    calls: list[str] = []
    original = kb_eval.search_first_stage
    monkeypatch.setattr(
        kb_eval, "search_first_stage", lambda kb, q, p, **kw: calls.append(q) or original(kb, q, p, **kw)
    )
    return calls


def _evaluate_page():
    at = open_page(new_app().run(), "evaluate")
    no_problems(at)
    return at


def _run(at):
    at.button(key=K.RUN).click().run()
    no_problems(at)
    return at


def _expected(params: RSEParams, kb_params: KBQueryParams) -> kb_eval.KBEvaluation:
    kb = KnowledgeBase.open(kbs.bundled_dir())
    try:
        params = params.with_changes(chunk_size=kb.catalog.chunk_size, chunk_headers=kb.catalog.headers)
        items = golden_kb.case_items(kb, golden_sets(SetName.SAMPLES))
        cases = kb_eval.prepare_cases(kb, items, kb_params)
        return kb_eval.evaluate_kb(kb, cases, params, kb_params)
    finally:
        kb.close()


def kb_charts(at) -> list[dict]:
    """The knowledge-base evaluation's recall-vs-characters chart(s) (the golden set's has its own key)."""
    return [s for s in chart_specs(at) if s["data"] and s["data"][-1].get("name") == "Knowledge base page's setting"]


def test_the_samples_run_over_the_bundled_base_with_the_cores_numbers(searches):
    at = _evaluate_page()
    assert at.selectbox(key=K.SET).value == kb_evaluation.SAMPLES
    assert at.selectbox(key=K.SET).options == [kb_evaluation.LABELS[kb_evaluation.SAMPLES]]
    assert not searches, "nothing is searched before Run is pressed"
    _run(at)
    assert len(searches) == 36
    expected = _expected(RSEParams(), KBQueryParams())
    (table,) = [frame.value for frame in at.dataframe if "RSE page hit" in frame.value.columns]
    assert list(table["type"]) == ["factoid", "broad", "gapped", "all"]
    for (_, shown), row in zip(table.iterrows(), expected.rows(), strict=True):
        assert shown["RSE recall"] == pytest.approx(row["rse_recall"])
        assert shown["top-k page hit at RSE's chars"] == pytest.approx(row["top_k_page_hit"])
        assert shown["characters"] == round(row["rse_characters"])
    (spec,) = kb_charts(at)
    traces = {trace["name"].split(" (")[0]: trace for trace in spec["data"]}
    rse_curve = next(curve for curve in expected.curves["all"] if curve.method == "rse")
    assert traces["RSE, penalty sweep"]["y"] == [point.recall for point in rse_curve.points]
    assert traces["Knowledge base page's setting"]["x"] == [pytest.approx(expected.summary()["rse_characters"])]
    # The methods at equal characters, as the command line prints them.
    (equal,) = [frame.value for frame in at.dataframe if "page hit / recall ≤ 8,000 chars" in frame.value.columns]
    assert list(equal["method"]) == ["RSE (any penalty)", "top-k (any k)", "window (any k)"]
    for (_, shown), row in zip(equal.iterrows(), expected.at_budgets(), strict=True):
        assert shown["page hit / recall ≤ 8,000 chars"] == f"{row['page_hit_8000']:.2f} / {row['recall_8000']:.2f}"


def test_other_settings_reuse_the_search_and_a_kind_redraws_the_chart(searches):
    at = _run(_evaluate_page())
    assert not searches, "the first test's searches are this process's (the base is this module's own)"
    open_page(at, "knowledge-base")  # the user moves the penalty there, and comes back
    at.slider(key=knowledge_base_state.Keys.param("irrelevant_chunk_penalty")).set_value(0.35).run()
    open_page(at, "evaluate")
    no_problems(at)
    assert any("settings changed" in caption.value for caption in at.caption)
    _run(at)
    assert not searches, "an RSE setting reuses the process's first stages"
    assert at.metric[0].label == "RSE recall"
    expected = _expected(RSEParams(irrelevant_chunk_penalty=0.35), KBQueryParams())
    assert at.metric[2].value == f"{expected.summary()['rse_characters']:,.0f}"
    at.radio(key=K.KIND).set_value("broad").run()
    no_problems(at)
    (spec,) = kb_charts(at)
    broad = next(curve for curve in expected.curves["broad"] if curve.method == "top_k")
    traces = {trace["name"].split(" (")[0]: trace for trace in spec["data"]}
    assert traces["top-k, k = 1-20"]["y"] == [point.recall for point in broad.points]


def test_auto_tune_applies_on_the_knowledge_base_page():
    at = _run(_evaluate_page())
    at.number_input(key=K.BUDGET).set_value(4000).run()
    at.button(key=K.TUNE).click().run()
    no_problems(at)
    tuned = at.session_state[K.TUNED][2]
    assert tuned.best is not None and tuned.best.characters <= 4000
    at.button(key=K.APPLY).click().run()
    no_problems(at)
    page = knowledge_base_state.Keys
    assert at.slider(key=page.param("irrelevant_chunk_penalty")).value == pytest.approx(
        tuned.best.params.irrelevant_chunk_penalty
    )
    assert at.slider(key=page.param("max_length")).value == tuned.best.params.max_length
    assert at.slider(key=page.param("documents_selected")).value == tuned.best.documents_selected


def test_sets_not_built_on_the_server_are_not_offered(monkeypatch, tmp_path):
    monkeypatch.setattr(golden_kb, "default_kb_dir", lambda name: tmp_path / "nothing_here")
    assert kb_evaluation.EXTERNAL not in kb_evaluation.offered()
    assert kb_evaluation.FINANCEBENCH not in kb_evaluation.offered()
    with pytest.raises(KeyError):
        kb_evaluation.open_set(kb_evaluation.FINANCEBENCH)


def test_sessions_pressing_run_together_search_once(searches):
    """Two sessions' Run at once, same settings: one set of searches, the other reads it."""
    import threading

    chosen = kb_evaluation.open_set(kb_evaluation.SAMPLES)
    kb_params = KBQueryParams(top_n=150)  # settings no other test searched with
    found: list[list] = []
    threads = [threading.Thread(target=lambda: found.append(kb_evaluation.cases(chosen, kb_params))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(searches) == len(chosen.items) == 36
    assert [case.id for case in found[0]] == [case.id for case in found[1]]


def test_the_settings_line_says_when_only_named_documents_are_searched():
    at = _evaluate_page()
    assert any("10 documents selected, ranks across" in caption.value for caption in at.caption)
    open_page(at, "knowledge-base")  # the user turns the First stage's switch on there, and comes back
    at.toggle(key=knowledge_base_state.Keys.NAMED).set_value(True).run()
    open_page(at, "evaluate")
    no_problems(at)
    assert any("10 documents selected among those the question names, ranks" in c.value for c in at.caption)
