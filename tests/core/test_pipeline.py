"""The whole pipeline: extract(), the result's JSON, the CLI, and the offline scorers."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from rse_core import (
    Document,
    QueryError,
    RSEParams,
    ScorerError,
    build_corpus,
    extract,
    get_scorer,
    run_rse,
)
from rse_core.cli.extract import main as cli_main
from rse_core.scoring import Calibration

SECTIONS = {
    "Parking": "Staff park in the north lot. Visitors use the south lot. Permits are renewed every January. ",
    "Volcanoes": "Basaltic lava flows far. Magma chambers feed eruptions. Ash clouds ground aircraft. ",
    "Gardening": "Tomatoes need full sun. Water the beds at dawn. Compost improves clay soil. ",
}


def sectioned_document() -> Document:
    text = "".join(f"{title}\n" + body * 6 + "\n\n" for title, body in SECTIONS.items())
    return Document.from_text(text, name="sections.txt")


def test_extract_with_bm25_returns_the_matching_section():
    document = sectioned_document()
    result = extract(
        document, "volcano magma eruptions lava ash", RSEParams(chunk_size=200, minimum_value=0.5), scorer="bm25"
    )
    assert result.segments, result.empty_reason()
    segment = result.segments[0]
    assert segment.text == document.text[segment.start_char : segment.end_char]
    assert "Magma" in segment.text and "Tomatoes" not in segment.text and "Permits" not in segment.text
    assert result.top_k[0] in range(segment.start, segment.end)
    assert result.characters(result.top_k_equal_budget) <= result.rse_characters


def test_to_dict_has_the_documented_json_fields():
    result = extract(sectioned_document(), "parking permits", RSEParams(chunk_size=200), scorer="bm25")
    data = result.to_dict()
    assert set(data) >= {"parameters", "segments", "top_k", "chunks"}
    assert data["parameters"]["chunk_size"] == 200
    assert set(data["segments"][0]) >= {"doc", "start_char", "end_char", "text", "score"}
    assert set(data["chunks"][0]) >= {"doc", "index", "start_char", "end_char", "score", "value"}
    assert len(data["chunks"]) == len(result.corpus.chunks)
    json.dumps(data)  # serialisable as it is


def test_the_window_baseline_is_in_the_result_and_its_json():
    document = sectioned_document()
    result = extract(document, "volcano magma eruptions lava ash", RSEParams(chunk_size=200, window=1), scorer="bm25")
    assert result.window and all(len(segment) <= 3 * result.params.top_k for segment in result.window)
    assert sorted(hit for segment in result.window for hit in segment.hits) == sorted(result.top_k)
    assert result.window_characters(result.window_equal_budget) <= result.rse_characters
    data = result.to_dict()
    first = data["window"][0]
    assert first["text"] == document.text[first["start_char"] : first["end_char"]]
    assert data["parameters"]["window"] == 1 and data["parameters"]["context_order"] == "document"
    assert "window_equal_budget" in data
    json.dumps(data)


def test_context_goes_in_document_order_by_default_and_best_first_on_request():
    corpus = build_corpus(sectioned_document(), 200)
    raw = np.zeros(len(corpus.chunks))
    raw[1], raw[len(raw) - 2] = 0.6, 1.0  # the later chunk is the better one: picked first
    params = RSEParams(chunk_size=200, minimum_value=0.1, irrelevant_chunk_penalty=0.1)
    result = run_rse(corpus, ["q"], [raw], params, Calibration())
    assert [segment.label for segment in result.segments] == ["S1", "S2"]
    assert result.segments[0].start > result.segments[1].start
    by_document, by_score = result.rse_context(), result.rse_context(order="score")
    assert by_document.index("[S2]") < by_document.index("[S1]")
    assert by_score.index("[S1]") < by_score.index("[S2]")
    assert result.top_k_context(order="score").startswith("[rank 0]")
    scored = run_rse(corpus, ["q"], [raw], params.with_changes(context_order="score"), Calibration())
    assert scored.rse_context() == by_score
    with pytest.raises(ValueError, match="document, score"):
        params.with_changes(context_order="random")


def test_segments_tell_inner_gaps_from_edge_padding():
    corpus = build_corpus(sectioned_document(), 200)
    raw = np.zeros(len(corpus.chunks))
    raw[[3, 4, 6, 7]] = 1.0  # chunk 5 is a gap worth crossing
    result = run_rse(corpus, ["q"], [raw], RSEParams(chunk_size=200, decay_rate=100), Calibration())
    segment = result.segments[0]
    assert (segment.start, segment.end, segment.inner_gaps, segment.edge_padding) == (3, 8, (5,), ())
    assert segment.gap_chunks == (5,)
    assert result.to_dict()["segments"][0]["inner_gaps"] == [corpus.chunks[5].index]


def test_cli_json_equals_to_dict(tmp_path, capsys):
    path = tmp_path / "sections.txt"
    path.write_text(sectioned_document().text, encoding="utf-8")
    code = cli_main(
        [str(path), "--query", "tomatoes compost soil", "--scorer", "bm25", "--chunk-size", "200", "--json"]
    )
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    direct = extract(sectioned_document(), "tomatoes compost soil", RSEParams(chunk_size=200), scorer="bm25").to_dict()
    direct["documents"][0]["doc"] = printed["documents"][0]["doc"]
    assert printed["segments"] == direct["segments"] and printed["chunks"][3]["value"] == direct["chunks"][3]["value"]


def test_cli_reports_errors_without_a_traceback(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    completed = subprocess.run(
        [sys.executable, "-m", "rse_core", str(empty), "--query", "x", "--scorer", "bm25"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2
    assert "error: empty.txt is empty" in completed.stderr and "Traceback" not in completed.stderr


def test_segments_never_cross_documents():
    first = Document.from_text("Alpha beta gamma. " * 30, name="a.txt")
    second = Document.from_text("Alpha beta gamma! " * 30, name="b.txt")
    result = extract(
        [first, second],
        "alpha beta gamma",
        RSEParams(chunk_size=100, irrelevant_chunk_penalty=0, max_length=40, minimum_value=0),
        scorer="bm25",
    )
    split = result.corpus.document_splits[0]
    assert all(not (s.start < split < s.end) for s in result.segments)
    assert {s.doc_name for s in result.segments} == {"a.txt", "b.txt"}


def test_several_queries_take_turns():
    result = extract(
        sectioned_document(),
        ["parking permits lot", "tomatoes compost soil"],
        RSEParams(chunk_size=200, minimum_value=0.3),
        scorer="bm25",
    )
    assert {segment.query for segment in result.segments} == {0, 1}


@pytest.mark.parametrize("query", ["", "   \n"])
def test_empty_query_is_refused(query):
    with pytest.raises(QueryError, match="empty"):
        extract(sectioned_document(), query, scorer="bm25")


def test_long_query_is_cut_with_a_note():
    result = extract(sectioned_document(), "parking " * 500, RSEParams(chunk_size=200), scorer="bm25")
    assert any("cut" in note for note in result.notes)


def test_unknown_scorer_lists_the_choices():
    with pytest.raises(ScorerError, match="minilm, bm25, cohere, cross-encoder"):
        get_scorer("word2vec")


def test_run_rse_is_pure_given_scores():
    corpus = build_corpus(sectioned_document(), 200)
    raw = np.linspace(0, 1, len(corpus.chunks))
    first = run_rse(corpus, ["q"], [raw], RSEParams(chunk_size=200), Calibration())
    lower_penalty = run_rse(
        corpus, ["q"], [raw], RSEParams(chunk_size=200, irrelevant_chunk_penalty=0.05), Calibration()
    )
    assert first.rse_chunks and set(first.rse_chunks) <= set(lower_penalty.rse_chunks)


def test_all_equal_scores_are_noted():
    corpus = build_corpus(sectioned_document(), 200)
    result = run_rse(corpus, ["q"], [np.full(len(corpus.chunks), 0.5)], RSEParams(chunk_size=200), Calibration())
    assert any("same score" in note for note in result.notes)


def test_rse_core_never_imports_streamlit():
    code = (
        "import pkgutil, importlib, sys, rse_core\n"
        "for module in pkgutil.walk_packages(rse_core.__path__, 'rse_core.'):\n"
        "    if not module.name.endswith('__main__'): importlib.import_module(module.name)\n"
        "assert 'streamlit' not in sys.modules, 'streamlit imported'\n"
        "print('ok')\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert completed.stdout.strip() == "ok", completed.stderr


def test_the_small_core_imports_no_teaching_or_chart_code():
    core = ("documents", "chunking", "scoring", "values", "search", "pipeline", "topk", "params", "context")
    code = (
        "import importlib, sys\n"
        f"for name in {core!r}: importlib.import_module('rse_core.' + name)\n"
        "outer = ('rse_core.teaching', 'rse_core.figures', 'rse_core.evaluation', 'rse_core.llm', 'plotly')\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(outer))\n"
        "print(loaded)\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "[]"


def test_importing_rse_core_does_not_load_torch():
    code = "import sys, rse_core; print('torch' in sys.modules)"
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "False"
