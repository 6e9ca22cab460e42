"""The LLM judge: items per (query, method), cost estimate, cache, grades per kind, with a fake LLM."""

from __future__ import annotations

import dataclasses

import pytest

from app_ui.samples import SAMPLE_DIR, list_samples
from rse_core import RSEParams, build_corpus, get_scorer, load_document
from rse_core.evaluation.metrics import METHODS
from rse_core.evaluation.runs import evaluate
from rse_core.llm.answers import ChatClient, LLMSettings
from rse_core.llm.judge import estimate, grade_summary, judge_items, parse_grade, run_judge
from tests.support.fake_llm import FakeLLM


@pytest.fixture(scope="module")
def evaluation():
    sample = list_samples()["employee_handbook"]
    golden = dataclasses.replace(sample.golden, queries=sample.golden.queries[:4])
    document = load_document(sample.path)
    scorer = get_scorer("minilm", bundled_embeddings=(SAMPLE_DIR / "embeddings",))
    return evaluate(golden, RSEParams(), scorer, corpus=build_corpus(document, RSEParams().chunk_size))


def test_grades_are_parsed():
    assert parse_grade("Grade: 7\nbecause") == 7
    assert parse_grade("grade 10 - perfect") == 10
    assert parse_grade("no number here") is None


def test_judge_runs_once_per_query_context_and_model(evaluation):
    items = judge_items(evaluation)
    assert len(items) == len(evaluation.queries) * len(METHODS)
    first = evaluation.queries[0]
    assert items[0].gold_text == evaluation.document.text[first.gold[0] : first.gold[1]]
    with FakeLLM() as fake:
        client = ChatClient(LLMSettings(model="fake-judge", base_url=f"{fake.url}/v1", timeout=10), None)
        cache: dict = {}
        calls, tokens = estimate(items, cache.keys(), "fake-judge")
        distinct = len({item.cache_key("fake-judge") for item in items})
        assert calls == 2 * len(items) and tokens > 0
        results = run_judge(items, client, cache)
        assert fake.request_count == 2 * distinct  # identical contexts are graded once
        assert all(r.grade is not None and 0 <= r.grade <= 10 for r in results)
        assert estimate(items, cache.keys(), "fake-judge") == (0, 0)
        run_judge(items, client, cache)
        assert fake.request_count == 2 * distinct  # all cached
    rows = grade_summary(results)
    assert {row["method"] for row in rows} == set(METHODS)
    assert any(row["kind"] == "all" and row["graded"] == len(evaluation.queries) for row in rows)


def test_failures_are_kept_per_item(evaluation):
    items = judge_items(evaluation)[:2]
    with FakeLLM(api_key="right") as fake:
        client = ChatClient(LLMSettings(model="m", base_url=f"{fake.url}/v1", timeout=5), "wrong")
        results = run_judge(items, client, {})
    assert all(r.error and "rejected the API key" in r.error and r.grade is None for r in results)
