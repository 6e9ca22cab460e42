"""The sample golden sets still match their PDFs, and malformed golden sets fail with clear messages."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rse_core import load_document
from rse_core.evaluation.golden import (
    QUERY_KINDS,
    GoldenSet,
    GoldenSetError,
    PhraseError,
    find_phrase_all,
    load_golden_set,
    locate_region,
    parse_golden_json,
    parse_golden_set,
    query_for_span,
)

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_docs"
GOLDEN_PATHS = sorted(SAMPLE_DIR.glob("*.golden.json"))


@pytest.fixture(scope="module")
def texts() -> dict[Path, str]:
    return {path: load_document(load_golden_set(path).document_path).text for path in GOLDEN_PATHS}


def test_there_are_three_sample_golden_sets():
    assert [path.name for path in GOLDEN_PATHS] == [
        "annual_report.golden.json",
        "employee_handbook.golden.json",
        "tech_report.golden.json",
    ]


@pytest.mark.parametrize("path", GOLDEN_PATHS, ids=lambda p: p.stem)
def test_size_kinds_and_document(path):
    golden = load_golden_set(path)
    assert 8 <= len(golden.queries) <= 15
    assert {query.kind for query in golden.queries} == set(QUERY_KINDS)
    assert golden.document_path.exists()
    assert len({query.id for query in golden.queries}) == len(golden.queries)


@pytest.mark.parametrize("path", GOLDEN_PATHS, ids=lambda p: p.stem)
def test_offsets_match_the_quoted_phrases(path, texts):
    golden, text = load_golden_set(path), texts[path]
    assert golden.check_offsets(text) == []
    golden.validate_document(text)  # raises if any span is off
    for query in golden.queries:
        assert query.first_phrase and query.last_phrase, query.id
        assert len(query.first_phrase.split()) >= 5 and len(query.last_phrase.split()) >= 5, query.id
        assert len(find_phrase_all(text, query.first_phrase)) == 1, f"{query.id}: first phrase not unique"
        assert locate_region(text, query.first_phrase, query.last_phrase) == (query.start_char, query.end_char)


@pytest.mark.parametrize("path", GOLDEN_PATHS, ids=lambda p: p.stem)
def test_check_offsets_notices_a_shifted_span(path, texts):
    golden, text = load_golden_set(path), texts[path]
    query = golden.queries[0]
    shifted = GoldenSet(golden.document, (replace(query, start_char=query.start_char + 7),), golden.path)
    problems = shifted.check_offsets(text)
    assert len(problems) == 1
    assert query.id in problems[0] and "does not start with first_phrase" in problems[0]
    assert f"found at {query.start_char}-{query.end_char}" in problems[0]
    with pytest.raises(GoldenSetError, match="1 problem"):
        shifted.validate_document(text)


# ---------------------------------------------------------------------------- malformed sets

VALID_QUERY = {"id": "q-01", "query": "Where?", "kind": "factoid", "start_char": 0, "end_char": 10}


def parse(queries: object, **top: object) -> GoldenSet:
    return parse_golden_set({"schema": "rse-golden/1", "document": "doc.txt", "queries": queries, **top})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "must be a JSON object"),
        ({"document": "doc.txt"}, "non-empty 'queries' list"),
        ({"queries": [VALID_QUERY]}, "needs a 'document'"),
        ({"schema": "rse-golden/9", "document": "doc.txt", "queries": [VALID_QUERY]}, "unknown schema"),
    ],
)
def test_top_level_problems(data, message):
    with pytest.raises(GoldenSetError, match=message):
        parse_golden_set(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"end_char": None}, r"'end_char' must be a whole number"),
        ({"start_char": "12"}, r"'start_char' must be a whole number"),
        ({"start_char": True}, r"'start_char' must be a whole number"),
        ({"start_char": 10, "end_char": 10}, r"need 0 <= start_char < end_char \(got 10, 10\)"),
        ({"start_char": -1}, r"need 0 <= start_char < end_char"),
        ({"kind": "trivia"}, r"query q-01: 'kind' must be one of factoid, broad, gapped, not 'trivia'"),
        ({"query": "  "}, r"'query' must be a non-empty string"),
        ({"note": 3}, r"'note' must be a string"),
    ],
)
def test_wrong_kinds_of_values_name_the_query_and_field(change, message):
    with pytest.raises(GoldenSetError, match=message):
        parse([{**VALID_QUERY, **change}])


def test_missing_fields_are_all_named_and_problems_are_counted():
    with pytest.raises(GoldenSetError) as caught:
        parse([{"id": "q-01", "query": "Where?"}, {**VALID_QUERY, "id": "q-02", "kind": "x"}, "junk"])
    message = str(caught.value)
    assert "3 problems" in message
    assert "query q-01 is missing 'kind', 'start_char', 'end_char'" in message
    assert "query q-02: 'kind' must be one of" in message
    assert "query #3 must be an object" in message


def test_duplicate_ids():
    with pytest.raises(GoldenSetError, match="'q-01' appears twice"):
        parse([VALID_QUERY, VALID_QUERY])


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"document": "doc.txt", "queries": [', r"not valid JSON: .* at line 1, column \d+"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply|not valid JSON"),
    ],
)
def test_unreadable_uploads(raw, message):
    with pytest.raises(GoldenSetError, match=message):
        parse_golden_json(raw, "upload.json")


def test_offsets_outside_the_document_and_unmatched_phrases():
    text = "Alpha beta gamma delta epsilon zeta eta theta iota kappa."
    golden = parse(
        [
            {**VALID_QUERY, "start_char": 5, "end_char": 500},
            {**VALID_QUERY, "id": "q-02", "first_phrase": "no such words in it", "last_phrase": "theta iota kappa."},
        ]
    )
    problems = golden.check_offsets(text)
    assert "query q-01: end_char 500 is past the end of the document (57 characters)" in problems[0]
    assert "query q-02" in problems[1] and "does not start with first_phrase 'no such words in it'" in problems[1]
    assert "phrase not found" in problems[1]
    with pytest.raises(GoldenSetError, match="2 problems"):
        golden.validate_document(text)


def test_valid_upload_round_trips_through_to_json():
    golden = parse([VALID_QUERY])
    assert parse_golden_json(golden.to_json().encode()).queries == golden.queries
    assert json.loads(golden.to_json())["schema"] == "rse-golden/1"


# -------------------------------------------------------------------------- spans -> phrases


def test_query_for_span_takes_unique_phrases_from_the_span():
    text = (
        "Intro line here.\n" + "Same words repeat here and there. " * 3 + "\nThe answer is forty-two,\nsaid the guide."
    )
    start = text.index("Same words")
    end = len(text)
    query = query_for_span(text, start - 1, end, query_id="q-01", query="What is the answer?", kind="factoid")
    # The leading newline is trimmed; the first phrase had to grow until it is unique.
    assert query.start_char == start and query.end_char == end
    assert len(query.first_phrase.split()) >= 5
    assert len(find_phrase_all(text, query.first_phrase)) == 1
    assert locate_region(text, query.first_phrase, query.last_phrase) == (start, end)
    golden = GoldenSet("doc.txt", (query,))
    assert golden.check_offsets(text) == []


def test_query_for_span_refuses_spans_it_cannot_pin_down():
    text = "tick tock " * 20
    with pytest.raises(GoldenSetError, match="not unique"):
        query_for_span(text, 10, 30, query_id="q-01", query="When?", kind="factoid")
    with pytest.raises(GoldenSetError, match="no text"):
        query_for_span(text + "   ", len(text), len(text) + 3, query_id="q-01", query="When?", kind="factoid")
    with pytest.raises(GoldenSetError, match="'kind' must be one of"):
        query_for_span(text, 0, 10, query_id="q-01", query="When?", kind="other")


def test_with_query_refuses_a_taken_id():
    golden = parse([VALID_QUERY])
    with pytest.raises(GoldenSetError, match="already in the golden set"):
        golden.with_query(golden.queries[0])


def test_with_query_refuses_the_same_query_twice_whatever_its_case_and_spacing():
    golden = parse([VALID_QUERY])
    again = replace(golden.queries[0], id="q-02", query="  WHERE? ", start_char=20, end_char=30)
    with pytest.raises(GoldenSetError, match="'Where\\?' is already q-01"):
        golden.with_query(again)
    assert len(golden.with_query(replace(again, query="Where else?")).queries) == 2


def test_locate_region_errors_are_phrase_errors():
    with pytest.raises(PhraseError):
        locate_region("one two three", "four five", "three")
