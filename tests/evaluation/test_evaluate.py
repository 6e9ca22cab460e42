"""Span scoring on hand-made cases, summary averages, evaluate() from cached scores, and the CLI."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rse_core import Document, RSEError, RSEParams, build_corpus, get_scorer, run_rse
from rse_core.cli.evaluate import main
from rse_core.evaluation.golden import GoldenQuery, GoldenSet, GoldenSetError, load_golden_set
from rse_core.evaluation.metrics import (
    METHODS,
    QueryEvaluation,
    SpanScore,
    merge_ranges,
    score_result,
    score_sent,
    span_score,
    summarize,
)
from rse_core.evaluation.runs import Evaluation, evaluate, format_table

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = ROOT / "sample_docs" / "employee_handbook.golden.json"


# ------------------------------------------------------------------------ merge_ranges / span_score


def test_merge_ranges_joins_overlapping_and_adjacent_and_drops_empty():
    assert merge_ranges([(10, 20), (0, 5), (15, 25), (25, 30), (40, 40), (50, 45)]) == [(0, 5), (10, 30)]
    assert merge_ranges([]) == []


def test_partial_overlap():
    # gold 100..200; sent 150..250: 50 of 100 gold characters, 50 of 100 sent are gold.
    assert span_score([(150, 250)], (100, 200)) == SpanScore(0.5, 0.5, False, 100, 1)


def test_two_pieces_with_an_overlap_count_once():
    # sent 0..60 and 40..120 (merged 0..120), gold 50..150: overlap 70, sent 120.
    score = span_score([(0, 60), (40, 120)], (50, 150), pieces=2)
    assert score.recall == pytest.approx(0.7)
    assert score.precision == pytest.approx(70 / 120)
    assert (score.covered, score.characters, score.pieces) == (False, 120, 2)
    # pieces defaults to the merged count
    assert span_score([(0, 10), (20, 30)], (0, 30)).pieces == 2


def test_nothing_sent_has_precision_zero():
    assert span_score([], (10, 20)) == SpanScore(0.0, 0.0, False, 0, 0)


def test_full_coverage_and_exact_hit():
    assert span_score([(0, 1000)], (100, 200)) == SpanScore(1.0, 0.1, True, 1000, 1)
    assert span_score([(100, 150), (150, 200)], (100, 200)) == SpanScore(1.0, 1.0, True, 100, 1)


def test_characters_from_other_documents_lower_precision_only():
    score = span_score([(100, 200)], (100, 200), other_characters=300)
    assert (score.recall, score.precision, score.covered, score.characters) == (1.0, 0.25, True, 400)


def test_score_sent_counts_pieces_as_sent_and_merges_only_within_a_document():
    # Offsets are per document: (0, 50) in "b" does not overlap the gold's (0, 50) in "a".
    pieces = [("a", 0, 50), ("a", 50, 100), ("b", 0, 50), ("b", 25, 75), ("c", 0, 50)]
    assert score_sent(pieces, (0, 100), "a") == SpanScore(1.0, 100 / 225, True, 225, 5)
    assert score_sent([], (0, 100), "a") == SpanScore(0.0, 0.0, False, 0, 0)
    assert score_sent([("b", 0, 100)], (0, 100), "a") == SpanScore(0.0, 0.0, False, 100, 1)


# ------------------------------------------------------------------------------------- summary


def query_evaluation(qid: str, kind: str, recall: float, precision: float, characters: int) -> QueryEvaluation:
    score = SpanScore(recall, precision, recall == 1.0, characters, 1)
    return QueryEvaluation(qid, f"query {qid}", kind, (0, 10), dict.fromkeys(METHODS, score))


def test_summary_averages_per_kind_and_overall():
    queries = (
        query_evaluation("a", "factoid", 1.0, 0.2, 100),
        query_evaluation("b", "factoid", 0.5, 0.4, 300),
        query_evaluation("c", "gapped", 0.0, 0.0, 0),
    )
    evaluation = Evaluation(GoldenSet("doc.txt", ()), RSEParams(), "fake", queries)
    rows = {(row["kind"], row["method"]): row for row in evaluation.summary()}
    assert [row["kind"] for row in evaluation.summary()] == ["factoid"] * len(METHODS) + ["gapped"] * len(METHODS) + [
        "all"
    ] * len(METHODS)
    factoid = rows["factoid", "rse"]
    assert factoid["queries"] == 2
    assert factoid["recall"] == pytest.approx(0.75)
    assert factoid["precision"] == pytest.approx(0.3)
    assert factoid["covered"] == pytest.approx(0.5)
    assert factoid["characters"] == pytest.approx(200)
    overall = rows["all", "top_k"]
    assert overall["queries"] == 3
    assert overall["recall"] == pytest.approx(0.5)
    assert overall["characters"] == pytest.approx(400 / 3)
    assert ("broad", "rse") not in rows  # kinds without queries are left out
    assert summarize(queries) == evaluation.summary()


# ------------------------------------------------------------------- score_result, evaluate()

SECTIONS = [
    "Parking. Staff park in the north lot; visitors use the south lot. " * 8,
    "Volcanoes. Basaltic lava flows far and magma chambers feed eruptions. " * 8,
    "Gardening. Tomatoes need full sun and compost improves clay soil. " * 8,
]


def synthetic_document(name: str = "sections.txt") -> Document:
    return Document.from_text("\n\n".join(SECTIONS), name=name)


def synthetic_golden(document: Document) -> GoldenSet:
    start = document.text.index("Volcanoes.")
    end = start + len(SECTIONS[1].rstrip())
    return GoldenSet(
        document.name,
        (
            GoldenQuery("v", "volcano lava magma eruptions", "broad", start, end),
            GoldenQuery("p", "where do visitors park", "factoid", 0, 60),
        ),
    )


def test_score_result_counts_other_documents_as_noise():
    target, other = synthetic_document(), Document.from_text("Volcanoes erupt lava. " * 40, name="other.txt")
    params = RSEParams(chunk_size=200, minimum_value=0.1, top_k=3)
    corpus = build_corpus([target, other], params.chunk_size)
    scorer = get_scorer("bm25")
    raw = scorer.score("volcano lava", corpus.chunks)
    result = run_rse(corpus, ["volcano lava"], [raw], params, scorer.calibration)
    gold = (target.text.index("Volcanoes."), target.text.index("Gardening."))
    scores = score_result(result, gold, target.doc_id)
    sent_by_doc = {doc.doc_id: 0 for doc in corpus.documents}
    for segment in result.segments:
        sent_by_doc[segment.doc_id] += segment.end_char - segment.start_char
    assert sent_by_doc[other.doc_id] > 0, "the test needs RSE to send something from the other document"
    assert scores["rse"].characters == sum(sent_by_doc.values())
    overlap = scores["rse"].recall * (gold[1] - gold[0])
    assert scores["rse"].precision == pytest.approx(overlap / scores["rse"].characters)
    with pytest.raises(RSEError, match="several documents"):
        score_result(result, gold)


def test_evaluate_from_cached_scores_equals_scoring_afresh():
    document = synthetic_document()
    golden = synthetic_golden(document)
    params = RSEParams(chunk_size=200, minimum_value=0.1)
    scorer = get_scorer("bm25")
    direct = evaluate(golden, params, scorer, document=document)

    corpus = build_corpus(document, params.chunk_size)
    cache = {query.query: scorer.score(query.query, corpus.chunks) for query in golden.queries}
    calls: list[str] = []

    def cached(query: str) -> np.ndarray:
        calls.append(query)
        return cache[query]

    reused = evaluate(golden, params, scorer, corpus=corpus, score_fn=cached)
    assert calls == [query.query for query in golden.queries]
    assert [q.scores for q in reused.queries] == [q.scores for q in direct.queries]
    assert reused.to_dict() == direct.to_dict()
    volcano = reused.queries[0]
    assert volcano.scores["rse"].recall > 0.9, "the synthetic query should find its section"
    assert volcano.segments and volcano.top_k
    assert reused.gold_chunks(volcano) is not None


def test_evaluate_uses_the_scores_it_is_given():
    """A score function that points at the parking section moves RSE there (scores are not recomputed)."""
    document = synthetic_document()
    golden = synthetic_golden(document)
    params = RSEParams(chunk_size=200, minimum_value=0.1)
    corpus = build_corpus(document, params.chunk_size)
    parking = np.array([1.0 if "Parking" in chunk.text or "park" in chunk.text else 0.0 for chunk in corpus.chunks])
    evaluation = evaluate(golden, params, get_scorer("bm25"), corpus=corpus, score_fn=lambda query: parking)
    assert evaluation.queries[0].scores["rse"].recall == 0.0
    assert evaluation.queries[1].scores["rse"].recall == 1.0


def test_evaluate_refuses_a_golden_set_for_another_document_or_stale_offsets():
    document = synthetic_document()
    corpus = build_corpus(document, 200)
    wrong_name = GoldenSet("elsewhere.pdf", synthetic_golden(document).queries)
    with pytest.raises(GoldenSetError, match=r"for elsewhere\.pdf, which is not among the documents"):
        evaluate(wrong_name, RSEParams(chunk_size=200), "bm25", corpus=corpus)
    stale = GoldenSet(document.name, (GoldenQuery("x", "lava", "broad", 10, 10_000_000),))
    with pytest.raises(GoldenSetError, match="past the end of the document"):
        evaluate(stale, RSEParams(chunk_size=200), "bm25", document=document)


def test_csv_and_json_outputs_hold_the_rows():
    document = synthetic_document()
    evaluation = evaluate(
        synthetic_golden(document), RSEParams(chunk_size=200, minimum_value=0.1), "bm25", document=document
    )
    rows = list(csv.DictReader(io.StringIO(evaluation.to_csv())))
    assert [row["id"] for row in rows] == ["v", "p"]
    assert float(rows[0]["rse_recall"]) == pytest.approx(evaluation.queries[0].scores["rse"].recall)
    assert rows[0]["rse_segments"]  # e.g. "3-7"
    data = json.loads(evaluation.to_json())
    assert data["queries"][0]["top_k_chunks"] == evaluation.chunk_numbers(evaluation.queries[0].top_k)
    assert data["summary"] == json.loads(json.dumps(evaluation.summary()))


def test_empty_result_scores_zero():
    """No segment at all (every value negative): RSE recall and precision are 0, not an error."""
    document = synthetic_document()
    corpus = build_corpus(document, 200)
    golden = synthetic_golden(document)
    params = RSEParams(chunk_size=200, irrelevant_chunk_penalty=1.0)
    evaluation = evaluate(
        golden, params, get_scorer("bm25"), corpus=corpus, score_fn=lambda query: np.zeros(len(corpus.chunks))
    )
    for query in evaluation.queries:
        assert query.segments == ()
        assert query.scores["rse"] == SpanScore(0.0, 0.0, False, 0, 0)


# ------------------------------------------------------------------------------------- the CLI


@pytest.fixture(scope="module")
def handbook_bm25():
    return evaluate(load_golden_set(HANDBOOK), RSEParams(), get_scorer("bm25"))


def test_cli_table_and_json_equal_evaluate(tmp_path, capsys, handbook_bm25):
    out_json, out_csv = tmp_path / "out.json", tmp_path / "out.csv"
    assert main([str(HANDBOOK), "--scorer", "bm25", "--json", str(out_json), "--csv", str(out_csv)]) == 0
    printed = capsys.readouterr().out
    assert printed.strip() == format_table(handbook_bm25).strip()
    for query in handbook_bm25.queries:
        assert any(line.startswith(query.id) for line in printed.splitlines())
    data = json.loads(out_json.read_text())
    assert len(data) == 1
    assert data[0] == json.loads(handbook_bm25.to_json())
    assert data[0]["scorer"] == "bm25"
    for row, query in zip(data[0]["queries"], handbook_bm25.queries, strict=True):
        for method in METHODS:
            assert row[f"{method}_recall"] == query.scores[method].recall
            assert row[f"{method}_precision"] == query.scores[method].precision
            assert row[f"{method}_characters"] == query.scores[method].characters
    rows = list(csv.DictReader(out_csv.open()))
    assert [row["id"] for row in rows] == [query.id for query in handbook_bm25.queries]


def test_cli_subprocess_prints_the_table_and_markdown():
    completed = subprocess.run(
        [sys.executable, "-m", "rse_core.evaluate", str(HANDBOOK), "--scorer", "bm25", "--markdown"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "employee_handbook.pdf  scorer=bm25  queries=12" in out
    assert "hb-01" in out and "* = gold span fully covered" in out
    assert "| kind (queries) | method | recall | precision | full coverage | characters |" in out
    assert "| all (12) | RSE |" in out


def test_cli_reports_a_malformed_golden_set_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.golden.json"
    bad.write_text(json.dumps({"document": "x.pdf", "queries": [{"id": "q1", "kind": "nope"}]}))
    completed = subprocess.run(
        [sys.executable, "-m", "rse_core.evaluate", str(bad), "--scorer", "bm25"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=300,
    )
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert "error: Golden set bad.golden.json has 2 problems" in completed.stderr
    assert "query q1 is missing 'query', 'start_char', 'end_char'" in completed.stderr


def test_characters_from_two_other_documents_at_the_same_offsets_both_count():
    # Three documents whose text starts at offset 0 each: what is sent from the two that do not
    # hold the gold span must add up, not be merged as if the offsets were one coordinate space.
    target = Document.from_text("Gold sentence here. " * 20, name="target.txt")
    first = Document.from_text("Volcanoes erupt lava. " * 20, name="first.txt")
    second = Document.from_text("Tomatoes need sun. " * 20, name="second.txt")
    params = RSEParams(chunk_size=200, top_k=3)
    corpus = build_corpus([target, first, second], params.chunk_size)
    scores = np.zeros(len(corpus.chunks))
    starts = {
        doc.doc_id: next(i for i, c in enumerate(corpus.chunks) if c.doc_id == doc.doc_id) for doc in corpus.documents
    }
    scores[[starts[target.doc_id], starts[first.doc_id], starts[second.doc_id]]] = [3.0, 2.0, 1.0]
    result = run_rse(corpus, ["q"], [scores], params, get_scorer("bm25").calibration)
    chunk = corpus.chunks
    gold = (chunk[starts[target.doc_id]].start, chunk[starts[target.doc_id]].end)
    scores_by_method = score_result(result, gold, target.doc_id)
    expected = sum(len(chunk[i]) for i in result.top_k)
    assert scores_by_method["top_k"].characters == expected
    assert scores_by_method["top_k"].precision == pytest.approx(len(chunk[starts[target.doc_id]]) / expected)
