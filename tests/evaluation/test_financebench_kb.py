"""FinanceBench over a knowledge base of its filings: gold located on the evidence page, every
method judged alike, and the command line end to end on four short filings (the whole base is
too slow to build in a test; it is measured with ``python -m rse_core.evaluate financebench-kb``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rse_core.cli.evaluate_kb import format_kb_budgets
from rse_core.evaluation import financebench_kb as fb
from rse_core.evaluation.kb_eval import GoldItem, KBCase, judge, rse_pieces, top_k_pieces, window_pieces
from rse_core.kb import KBQueryParams, query_kb

FOLDER = fb.default_folder()
SMALL_FILINGS = (
    "FOOTLOCKER_2022_8K_dated-2022-05-20",
    "PEPSICO_2023_8K_dated-2023-05-05",
    "AMCOR_2022_8K_dated-2022-07-01",
    "ULTABEAUTY_2023Q4_EARNINGS",
)
needs_financebench = pytest.mark.skipif(
    fb.missing_message(FOLDER) is not None, reason=f"FinanceBench tests skipped: {fb.missing_message(FOLDER)}"
)


def test_an_excerpt_is_found_with_its_words_split_differently():
    page = "Table of Contents\nConsolidated Statement of Cash Flows\nYears ended December 31\n(Millions) 2018"
    excerpt = "Consolidated Statement of Cash Flow s\n Years ended\nDecember 31"
    start, end = fb.locate_excerpt(page, excerpt)
    assert page[start:end] == "Consolidated Statement of Cash Flows\nYears ended December 31"


def test_an_excerpt_with_a_few_characters_changed_is_aligned_and_a_stranger_is_not():
    page = "Revenue grew 12% to $4,200 million, driven by beauty sales in stores and online. " * 2
    changed = "Revenue grew 12% to $4,2OO million, driven by beauty sales in stores and on-line."
    start, end = fb.locate_excerpt(page, changed)
    assert start == 0 and 70 <= end <= 90
    assert fb.locate_excerpt(page, "A completely different sentence about pension obligations.") is None


def _case(gold, doc_id="a"):
    return KBCase("q", "question", "kind", doc_id, tuple(gold), first=None)


def test_pages_and_characters_are_judged_per_document():
    gold = [GoldItem("a", 1000, 2000, 1200, 1400), GoldItem("b", 0, 500, 100, 300)]
    case = _case(gold)
    score = judge(case, [("a", 1300, 1500), ("c", 1200, 1400), ("a", 1350, 1450)])
    assert score.page_hit == 0.5  # a's page touched, b's not; c's offsets never count for a
    assert score.recall == pytest.approx(100 / 400)
    assert score.characters == 200 + 200  # overlapping pieces of a count once
    assert score.first_in_document
    assert not judge(case, [("b", 0, 10)]).first_in_document
    assert judge(case, []).characters == 0


@pytest.fixture(scope="module")
def small_folder(tmp_path_factory):
    """A FinanceBench folder with four short filings only (links to the real files)."""
    if fb.missing_message(FOLDER):
        pytest.skip(f"FinanceBench tests skipped: {fb.missing_message(FOLDER)}")
    folder = tmp_path_factory.mktemp("financebench")
    (folder / "pdfs").mkdir()
    for name in SMALL_FILINGS:
        (folder / "pdfs" / f"{name}.pdf").symlink_to(FOLDER / "pdfs" / f"{name}.pdf")
    (folder / fb.QUESTIONS_FILE).symlink_to(FOLDER / fb.QUESTIONS_FILE)
    return folder


@pytest.fixture(scope="module")
def small_kb(small_folder, tmp_path_factory):
    kb = fb.ensure_kb(small_folder, tmp_path_factory.mktemp("kb") / "financebench")
    yield kb
    kb.close()


@needs_financebench
def test_questions_are_those_whose_filing_is_present(small_folder):
    questions = fb.read_questions(small_folder)
    assert {q.doc_name for q in questions} == set(SMALL_FILINGS)
    assert len(questions) == 7
    assert len(fb.read_questions(FOLDER)) == 129


@needs_financebench
def test_every_gold_excerpt_lies_on_its_evidence_page(small_folder, tmp_path):
    questions = fb.read_questions(small_folder)
    gold = fb.locate_gold(questions, small_folder, cache=tmp_path / "gold.json")
    for question in questions:
        for span, evidence in zip(gold[question.id], question.evidence, strict=True):
            assert span.page == evidence.page + 1
            assert span.page_start <= span.start < span.end <= span.page_end
    assert sum(s.located for spans in gold.values() for s in spans) >= 6
    cached = fb.locate_gold(questions, small_folder, cache=tmp_path / "gold.json")
    assert cached == gold  # read back from the cache, no filing loaded


@needs_financebench
def test_methods_are_judged_on_the_same_characters(small_folder, small_kb, tmp_path):
    from rse_core.evaluation.kb_eval import evaluate_kb, prepare_cases
    from rse_core.params import RSEParams

    questions = fb.read_questions(small_folder)
    gold = fb.locate_gold(questions, small_folder, cache=tmp_path / "gold.json")
    kb_params = KBQueryParams()
    cases = prepare_cases(small_kb, fb.case_items(questions, gold), kb_params)
    params = RSEParams()
    evaluation = evaluate_kb(small_kb, cases, params, kb_params)
    for case, rse, top_k, window in zip(
        cases, *(evaluation.scores[m] for m in ("rse", "top_k", "window")), strict=True
    ):
        result = query_kb(small_kb, case.question, params, kb_params)
        assert rse.characters == result.characters  # the evaluation's RSE is query_kb's
        assert top_k.characters <= rse.characters and window.characters <= rse.characters
        assert judge(case, rse_pieces(small_kb, case, params)) == rse
        assert len(top_k_pieces(case, k=3)) == min(3, len(case.first.hits[0]))
        assert all(end > start for _, start, end in window_pieces(case, 1, k=5))
    assert evaluation.summary()["questions"] == 7
    assert {row["kind"] for row in evaluation.rows()} >= {"all"}
    assert all(0 <= row["rse_page_hit"] <= 1 for row in evaluation.rows())
    assert evaluation.curves["all"][0].method == "rse"
    # Each curve point carries the mean page hit of its setting; top-k at k = 3 is judged directly.
    top_k_curve = next(curve for curve in evaluation.curves["all"] if curve.method == "top_k")
    at_three = next(point for point in top_k_curve.points if point.setting == 3)
    direct = [judge(case, top_k_pieces(case, k=3)) for case in cases]
    assert at_three.page_hit == pytest.approx(np.mean([score.page_hit for score in direct]))
    assert at_three.characters == pytest.approx(np.mean([score.characters for score in direct]))
    # Within a budget: the best page hit of a setting that fits it, nothing when none does.
    fitting = [p.page_hit for p in top_k_curve.points if p.characters <= at_three.characters]
    assert top_k_curve.best_within(at_three.characters, "page_hit") == pytest.approx(max(fitting))
    assert top_k_curve.best_within(0, "page_hit") == 0.0
    table = format_kb_budgets(evaluation, budgets=(4_000, 8_000))
    assert "top-k (any k)" in table and "<= 8,000 chars" in table
    assert f"{top_k_curve.best_within(8_000, 'page_hit'):.2f} / {top_k_curve.best_within(8_000):.2f}" in table


@needs_financebench
def test_the_tuner_reads_every_minimum_off_one_search(small_folder, small_kb, tmp_path):
    from rse_core.evaluation.kb_eval import average, prepare_cases
    from rse_core.evaluation.kb_tuning import score_settings
    from rse_core.params import RSEParams

    questions = fb.read_questions(small_folder)
    gold = fb.locate_gold(questions, small_folder, cache=tmp_path / "gold.json")
    cases = prepare_cases(small_kb, fb.case_items(questions, gold), KBQueryParams())
    params = RSEParams(irrelevant_chunk_penalty=0.1)
    minimums = (0.0, 0.3, 0.8, 1.5)
    for setting, minimum in zip(score_settings(small_kb, cases, params, 10, minimums), minimums, strict=True):
        direct = [judge(case, rse_pieces(small_kb, case, params.with_changes(minimum_value=minimum))) for case in cases]
        assert setting.characters == average(score.characters for score in direct)
        assert setting.page_hit == average(score.page_hit for score in direct)


@needs_financebench
def test_within_its_own_filing_a_question_is_searched_and_answered_from_that_filing_alone(
    small_folder, small_kb, tmp_path
):
    from rse_core.evaluation.kb_eval import evaluate_kb, prepare_cases
    from rse_core.params import RSEParams

    questions = fb.read_questions(small_folder)
    items = fb.case_items(questions, fb.locate_gold(questions, small_folder, cache=tmp_path / "gold.json"))
    kb_params = KBQueryParams()
    shared = prepare_cases(small_kb, items, kb_params)
    assert any(len({hit.doc_id for hit in case.first.hits[0]}) > 1 for case in shared)
    single = prepare_cases(small_kb, items, kb_params, within_own_document=True)
    evaluation = evaluate_kb(small_kb, single, RSEParams(), kb_params)
    for case, rse in zip(single, evaluation.scores["rse"], strict=True):
        assert case.first.selected == (case.doc_id,)
        assert {hit.doc_id for hit in case.first.hits[0]} == {case.doc_id}
        assert {doc_id for doc_id, _, _ in rse_pieces(small_kb, case, RSEParams())} <= {case.doc_id}
        assert {doc_id for doc_id, _, _ in top_k_pieces(case, k=10)} == {case.doc_id}
        assert rse.first_in_document or rse.characters == 0
    # The filings' names carry company and year: a question naming them is searched within them.
    named = prepare_cases(small_kb, items, KBQueryParams(named_documents=True))
    assert sum(case.first.named == (case.doc_id,) for case in named) >= 5  # of 7
    [vote] = [case for case in named if "board member nominees" in case.question]
    assert vote.first.named == ()  # Foot Locker's board vote names no company nor year


@needs_financebench
def test_the_command_line_builds_the_base_once_and_reports_every_type(small_folder, tmp_path, monkeypatch, capsys):
    from rse_core.cli.evaluate import main

    monkeypatch.setenv(fb.FOLDER_ENV, str(small_folder))
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path / "cache"))
    out_json = tmp_path / "kb.json"
    assert main(["financebench-kb", "--kb", str(tmp_path / "kb"), "--json", str(out_json), "--tune"]) == 0
    printed = capsys.readouterr().out
    assert "financebench-kb: 7 questions over 4 documents" in printed
    assert "values calibrated by built-in (fitted on MiniLM)" in printed  # no fit stored with this base
    assert "At equal characters:" in printed and "RSE (any penalty)" in printed
    assert "RSE evidence-page hit >= 0.60" in printed
    assert "Auto-tune over the base" in printed
    report = json.loads(out_json.read_text())
    assert report["summary"][-1]["kind"] == "all" and report["summary"][-1]["questions"] == 7
    assert len(report["questions"]) == 7
    # A second run finds the base complete and builds nothing.
    mtime = (tmp_path / "kb" / "kb.json").stat().st_mtime_ns
    assert main(["financebench-kb", "--kb", str(tmp_path / "kb")]) == 0
    assert (tmp_path / "kb" / "kb.json").stat().st_mtime_ns == mtime
    capsys.readouterr()
    assert main(["financebench-kb", "--kb", str(tmp_path / "kb"), "--within-own-document"]) == 0
    assert "top 200, each within its own document, ranks across documents" in capsys.readouterr().out
    assert main(["financebench-kb", "--kb", str(tmp_path / "kb"), "--named-documents"]) == 0
    assert "10 documents selected among those the question names, ranks" in capsys.readouterr().out


def test_financebench_kb_runs_alone(capsys):
    from rse_core.cli.evaluate import main

    assert main(["financebench-kb", "samples"]) == 2
    assert "financebench-kb runs on its own" in capsys.readouterr().err


@needs_financebench
def test_the_second_fold_tunes_on_the_half_the_first_held_out(small_folder, small_kb, tmp_path):
    from rse_core.evaluation.kb_eval import prepare_cases
    from rse_core.evaluation.kb_tuning import tune_kb
    from rse_core.params import RSEParams

    questions = fb.read_questions(small_folder)
    items = fb.case_items(questions, fb.locate_gold(questions, small_folder, cache=tmp_path / "gold.json"))
    cases = prepare_cases(small_kb, items, KBQueryParams())
    first = tune_kb(small_kb, cases, RSEParams(), 8000)
    second = tune_kb(small_kb, cases, RSEParams(), 8000, swap_halves=True)
    assert (second.tuned_on, second.held_out) == (first.held_out, first.tuned_on)
    assert first.tuned_on + first.held_out == len(cases)
