"""Bad queries, invalid and extreme parameters, and backends that return unusable scores.

Every deliberate refusal is a typed :class:`RSEError` whose message says what is wrong and what
was given; every extreme but valid setting gives a result, and an empty result says why.
Rows already in test_pipeline.py / test_values.py (the plain empty query, a 4,000-character
query, constant 0.5 scores, NaN into ``chunk_values``) are not repeated.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from rse_core import (
    Document,
    InvalidScoresError,
    ParameterError,
    QueryError,
    RSEError,
    RSEParams,
    StopReason,
    build_corpus,
    chunk_document,
    extract,
    normalize_queries,
    run_rse,
)
from rse_core.scoring import Calibration, check_scores, clean_query
from rse_core.scoring.base import MAX_QUERY_CHARS

SECTIONS = (
    "Parking. Staff park in the north lot. Visitors use the south lot. Permits are renewed every January.\n\n"
    "Volcanoes. Basaltic lava flows far. Magma chambers feed eruptions. Ash clouds ground aircraft.\n\n"
    "Gardening. Tomatoes need full sun. Water the beds at dawn. Compost improves clay soil.\n\n"
)


def document() -> Document:
    return Document.from_text(SECTIONS * 2, name="sections.txt")


class FakeScorer:
    """A backend returning fixed raw scores, without checking them (as a buggy plug-in might)."""

    name = "fake"
    model = "fake-model"

    def __init__(self, make_scores, calibration: Calibration | None = None) -> None:
        self.make_scores = make_scores
        self.calibration = calibration or Calibration()
        self.calls = 0

    def score(self, query, chunks, progress=None):
        self.calls += 1
        return np.asarray(self.make_scores(len(chunks)), dtype=np.float64)


# --- queries ------------------------------------------------------------------------------------

EMPTY_QUERY = "The query is empty; type a question or a few keywords."


@pytest.mark.parametrize(
    "query",
    ["\t", "\r\n\r\n", "\u00a0", "\u3000\u2003", "\u2028", None, 42, b"bytes are not text"],
    ids=["tab", "crlf", "nbsp", "ideographic-and-em-space", "line-separator", "none", "int", "bytes"],
)
def test_empty_whitespace_or_non_text_queries_are_refused(query):
    with pytest.raises(QueryError, match=EMPTY_QUERY):
        clean_query(query)
    scorer = FakeScorer(np.zeros)
    with pytest.raises(QueryError):
        extract(document(), [query], RSEParams(chunk_size=200), scorer=scorer)
    assert scorer.calls == 0  # refused before any (possibly paid) scoring call


@pytest.mark.parametrize(
    ("queries", "message"),
    [([], "No query given; type a question."), (["parking", "  "], "The query is empty"), ((), "No query given")],
)
def test_query_lists_with_nothing_usable_are_refused(queries, message):
    with pytest.raises(QueryError, match=message):
        normalize_queries(queries)


@pytest.mark.parametrize(
    ("query", "kept", "noted"),
    [
        ("p" * MAX_QUERY_CHARS, MAX_QUERY_CHARS, False),
        ("p" * (MAX_QUERY_CHARS + 1), MAX_QUERY_CHARS, True),
        ("   " + "p" * MAX_QUERY_CHARS + "\n\n", MAX_QUERY_CHARS, False),  # padding does not count
        ("parking lot " * 10_000, MAX_QUERY_CHARS, True),
    ],
)
def test_long_queries_are_cut_at_the_limit_with_a_note(query, kept, noted):
    text, note = clean_query(query)
    assert len(text) == kept and (note is not None) == noted
    result = extract(document(), [query, "tomatoes"], RSEParams(chunk_size=200), scorer="bm25")
    assert len(result.queries[0]) == kept
    expected = [f"The query was cut to its first {MAX_QUERY_CHARS} characters."] if noted else []
    assert [note for note in result.notes if "cut" in note] == expected


FRENCH = (
    "Le système de refroidissement utilise un liquide caloporteur. La pompe est vérifiée chaque année.\n\n"
    "Les congés payés sont de vingt-cinq jours ouvrés par an. Les congés se posent un mois à l'avance.\n\n"
    "Le parking du personnel se trouve au nord du bâtiment. Les visiteurs se garent au sud.\n\n"
)
CHINESE = (
    "冷却系统使用液体冷却剂。水泵每年由技术人员检查一次。\n\n"
    "员工每年有二十五天带薪假期。假期需要提前一个月申请。\n\n"
    "员工停车场位于大楼北侧。访客停车场位于南侧。\n\n"
)


@pytest.mark.parametrize(
    ("text", "query", "expected", "unexpected"),
    [
        (FRENCH, "Combien de jours de congés payés ?", "vingt-cinq jours", "caloporteur"),
        (FRENCH, "Où se garent les visiteurs ?", "visiteurs se garent", "congés"),
        (FRENCH, "SYSTÈME DE REFROIDISSEMENT", "refroidissement", "parking"),  # case folds, accents kept
        # bm25s splits on non-word characters only, so a Chinese query matches a whole clause
        (CHINESE, "员工每年有二十五天带薪假期", "带薪假期", "冷却"),
        (CHINESE, "访客停车场位于南侧？", "访客停车场", "水泵"),
    ],
)
def test_non_english_queries_work_with_bm25(text, query, expected, unexpected):
    source = Document.from_text(text, name="non-english.txt")
    result = extract(source, query, RSEParams(chunk_size=50, minimum_value=0.3, max_length=2), scorer="bm25")
    assert result.segments, result.empty_reason()
    best = result.segments[0]
    assert expected in best.text
    assert best.text == source.text[best.start_char : best.end_char]
    top = result.corpus.chunks[result.top_k[0]].text
    assert expected in top and unexpected not in top


def test_chinese_word_inside_a_clause_matches_with_bm25():
    source = Document.from_text(CHINESE, name="zh.txt")
    result = extract(source, "带薪假期", RSEParams(chunk_size=50, minimum_value=0.3), scorer="bm25")
    assert result.segments and "带薪假期" in result.segments[0].text


# --- parameters ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"decay_rate": 0}, r"decay_rate must be above 0 \(got 0\); it divides the rank"),
        ({"decay_rate": -0.5}, r"decay_rate must be above 0 \(got -0\.5\)"),
        ({"decay_rate": math.inf}, r"decay_rate must be above 0 \(got inf\)"),
        ({"beta_a": 0}, r"beta_a must be above 0 \(got 0\); a beta shape of 0 is undefined"),
        ({"beta_b": 0.0}, r"beta_b must be above 0 \(got 0\.0\); a beta shape of 0 is undefined"),
        ({"beta_a": math.nan}, r"beta_a must be above 0 \(got nan\)"),
        ({"max_length": 0}, r"max_length must be a whole number of at least 1 \(got 0\)"),
        ({"max_length": 2.5}, r"max_length must be a whole number of at least 1 \(got 2\.5\)"),
        ({"overall_max_length": -3}, r"overall_max_length must be a whole number of at least 1 \(got -3\)"),
        ({"top_k": 0}, r"top_k must be a whole number of at least 1 \(got 0\)"),
        ({"chunk_size": 49}, r"chunk_size must be a whole number of at least 50 \(got 49\)"),
        ({"chunk_size": 0}, r"chunk_size must be a whole number of at least 50 \(got 0\)"),
        ({"irrelevant_chunk_penalty": math.nan}, r"irrelevant_chunk_penalty must be between 0 and 1 \(got nan\)"),
        ({"irrelevant_chunk_penalty": -0.01}, r"irrelevant_chunk_penalty must be between 0 and 1 \(got -0\.01\)"),
        ({"irrelevant_chunk_penalty": 1.0001}, r"irrelevant_chunk_penalty must be between 0 and 1"),
        ({"irrelevant_chunk_penalty": "0.2"}, r"irrelevant_chunk_penalty must be between 0 and 1 \(got '0\.2'\)"),
        ({"irrelevant_chunk_penalty": None}, r"irrelevant_chunk_penalty must be between 0 and 1 \(got None\)"),
        ({"minimum_value": -1}, r"minimum_value must be 0 or more \(got -1\)"),
        ({"minimum_value": math.inf}, r"minimum_value must be 0 or more \(got inf\)"),
        # a bool is an int in Python, but True where a number is expected is a mistake
        ({"irrelevant_chunk_penalty": True}, r"irrelevant_chunk_penalty must be between 0 and 1 \(got True\)"),
        ({"decay_rate": True}, r"decay_rate must be above 0 \(got True\)"),
        ({"beta_b": False}, r"beta_b must be above 0 \(got False\)"),
        ({"max_length": True}, r"max_length must be a whole number of at least 1 \(got True\)"),
        ({"chunk_size": True}, r"chunk_size must be a whole number of at least 50 \(got True\)"),
        ({"minimum_value": False}, r"minimum_value must be 0 or more \(got False\)"),
        ({"chunk_length_adjustment": 1}, r"chunk_length_adjustment must be True or False \(got 1\)"),
        ({"chunk_length_adjustment": "no"}, r"chunk_length_adjustment must be True or False \(got 'no'\)"),
    ],
)
def test_invalid_parameters_are_refused_with_the_reason(change, reason):
    with pytest.raises(ParameterError, match=r"^Invalid RSE parameters: .*" + reason) as caught:
        RSEParams(**change)
    assert isinstance(caught.value, ValueError)  # callers catching ValueError still catch it
    with pytest.raises(ParameterError, match=reason):
        RSEParams.from_dict(change)


def test_every_problem_is_listed_at_once():
    with pytest.raises(ParameterError) as caught:
        RSEParams(decay_rate=0, beta_a=0, max_length=0, irrelevant_chunk_penalty=math.nan)
    message = str(caught.value)
    assert all(name in message for name in ("decay_rate", "beta_a", "max_length", "irrelevant_chunk_penalty"))


@pytest.mark.parametrize("size", [1, 20, 49])
def test_chunk_size_too_small_to_hold_a_sentence_is_refused_by_the_chunker(size):
    with pytest.raises(ParameterError, match=rf"at least 50 characters \(a chunk must hold a sentence\); got {size}"):
        chunk_document(document(), size)


def test_unknown_parameter_names_are_refused():
    with pytest.raises(ParameterError, match=r"Unknown RSE parameter\(s\): decay, penalty"):
        RSEParams.from_dict({"penalty": 0.1, "decay": 3})


@pytest.mark.parametrize(
    "change",
    [
        {"beta_a": 1e-300, "beta_b": 1e300},
        {"beta_a": 1e300, "beta_b": 1e-300},
        {"beta_a": 1e-9, "beta_b": 1e-9},
        {"decay_rate": 5e-324},
        {"decay_rate": 1e308},
        {"max_length": 1, "overall_max_length": 1, "top_k": 1},
        {"max_length": 10**9, "overall_max_length": 10**9, "top_k": 10**9},
        {"minimum_value": 0, "irrelevant_chunk_penalty": 0, "chunk_length_adjustment": True},
    ],
)
def test_extreme_valid_parameters_give_finite_values_and_a_result(change):
    params = RSEParams(chunk_size=200, **change)
    corpus = build_corpus(document(), 200)
    raw = np.linspace(0, 1, len(corpus.chunks))
    result = run_rse(corpus, ["q"], [raw], params, Calibration())
    assert np.isfinite(result.values[0].value).all()
    assert result.segments or result.empty_reason()
    assert result.rse_characters <= sum(map(len, corpus.chunks))


def test_penalty_zero_makes_every_chunk_non_negative_and_segments_long():
    params = RSEParams(
        chunk_size=200, irrelevant_chunk_penalty=0, minimum_value=0, max_length=4, overall_max_length=1000
    )
    result = extract(document(), "magma lava", params, scorer="bm25")
    assert (result.values[0].value >= 0).all()
    assert result.rse_chunks == list(range(len(result.corpus.chunks)))  # nothing is worth excluding
    corpus = build_corpus(Document.from_text(SECTIONS * 4), 200)
    raw = np.linspace(0.05, 1, len(corpus.chunks))  # every chunk somewhat relevant
    result = run_rse(corpus, ["q"], [raw], params, Calibration())
    assert result.segments[0].chunk_count == 4  # the best segment is as long as allowed
    assert result.rse_chunks == list(range(len(corpus.chunks)))


@pytest.mark.parametrize(
    ("raw_top", "stop", "reason"),
    [
        # the best chunk (calibrated 0.9) is worth less than the penalty of 1: nothing can start
        (0.9, StopReason.NO_CANDIDATES, r"Every chunk's value is negative after the penalty of 1, so no segment"),
        # the best chunk (calibrated 1, rank 0) is worth exactly 0: a candidate, below the minimum
        (1.0, StopReason.BELOW_MINIMUM, r"minimum segment value 0\.7 \(the best was worth 0\.00\)"),
    ],
)
def test_penalty_one_gives_an_empty_result_that_says_why(raw_top, stop, reason):
    corpus = build_corpus(document(), 200)
    raw = np.linspace(0, raw_top, len(corpus.chunks))
    params = RSEParams(chunk_size=200, irrelevant_chunk_penalty=1, minimum_value=0.7)
    result = run_rse(corpus, ["q"], [raw], params, Calibration())
    assert (result.values[0].value <= 0).all()
    assert result.segments == () and result.stop_reason is stop
    assert re.search(reason, result.empty_reason() or "")


def best_possible_segment(values: np.ndarray, max_length: int) -> float:
    """Brute force: the best sum of a run that starts and ends on a non-negative chunk."""
    n = len(values)
    sums = [
        sum(values[start:end])
        for start in range(n)
        for end in range(start + 1, min(n, start + max_length) + 1)
        if values[start] >= 0 and values[end - 1] >= 0
    ]
    return max(sums)


@pytest.mark.parametrize("minimum", [2.5, 50.0, 1e9])
def test_minimum_above_every_possible_sum_names_the_best_value(minimum):
    params = RSEParams(chunk_size=200, minimum_value=minimum, max_length=5)
    result = extract(document(), "volcano magma lava", params, scorer="bm25")
    best = best_possible_segment(result.values[0].value, params.max_length)
    assert 0 < best < minimum
    assert result.segments == () and result.stop_reason is StopReason.BELOW_MINIMUM
    assert result.empty_reason() == (
        f"No segment reached the minimum segment value {minimum:g} (the best was worth {best:.2f}). "
        "Lower the minimum or the penalty."
    )


# --- scores from backends -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "count", "message"),
    [
        ([math.nan], 1, r"fake returned 1 NaN or infinite score\(s\) \(first at chunk 0\)"),
        ([0.1, 0.2, math.inf], 3, r"fake returned 1 NaN or infinite score\(s\) \(first at chunk 2\)"),
        ([-math.inf, math.nan, 0.5], 3, r"2 NaN or infinite score\(s\) \(first at chunk 0\)"),
        (np.array([0.5, np.nan], dtype=np.float32), 2, r"first at chunk 1"),
        ([None, 0.2], 2, r"1 NaN or infinite score\(s\) \(first at chunk 0\)"),  # None becomes NaN
        ([0.1, 0.2], 3, r"fake returned 2 scores for 3 chunks"),
        ([], 1, r"fake returned 0 scores for 1 chunks"),
        (0.5, 2, r"fake returned 1 scores for 2 chunks"),
    ],
)
def test_check_scores_refuses_nan_infinite_and_mis_shaped_scores(scores, count, message):
    with pytest.raises(InvalidScoresError, match=message):
        check_scores(scores, count, "fake")


@pytest.mark.parametrize("scores", [["0.1", "high"], [{"score": 1}, 0.5]])
def test_check_scores_refuses_non_numeric_scores(scores):
    with pytest.raises(InvalidScoresError):
        check_scores(scores, 2, "fake")


CALIBRATIONS = {
    "identity": Calibration(),
    "linear": Calibration("linear", -1.0, 1.0),
    "logistic": Calibration("logistic", 0.0, 1.0),
    "max_ratio": Calibration("max_ratio"),
}


@pytest.mark.parametrize("calibration", list(CALIBRATIONS), ids=list(CALIBRATIONS))
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_run_rse_refuses_nan_and_infinite_raw_scores_for_every_calibration(calibration, bad):
    """Some calibrations turn inf into a finite 1.0 (linear, logistic); the raw scores are checked too."""
    corpus = build_corpus(document(), 200)
    raw = np.linspace(0.1, 0.9, len(corpus.chunks))
    raw[2] = bad
    with pytest.raises(InvalidScoresError, match=r"NaN or infinite score\(s\) \(first at chunk 2\)"):
        run_rse(corpus, ["q"], [raw], RSEParams(chunk_size=200), CALIBRATIONS[calibration])


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_extract_refuses_a_backend_that_returns_nan_or_infinity(bad):
    def scores(count):
        values = np.linspace(0, 1, count)
        values[-1] = bad
        return values

    with pytest.raises(InvalidScoresError, match="NaN or infinite") as caught:
        extract(document(), "volcano", RSEParams(chunk_size=200), scorer=FakeScorer(scores))
    assert isinstance(caught.value, RSEError)


@pytest.mark.parametrize("shape", ["too-many", "too-few", "missing-query"])
def test_run_rse_refuses_mis_shaped_scores(shape):
    corpus = build_corpus(document(), 200)
    n = len(corpus.chunks)
    queries, raw = {
        "too-many": (["q"], [np.ones(n + 3)]),
        "too-few": (["q"], [np.ones(n - 1)]),
        "missing-query": (["a", "b"], [np.ones(n)]),
    }[shape]
    with pytest.raises(InvalidScoresError):
        run_rse(corpus, queries, raw, RSEParams(chunk_size=200), Calibration())


@pytest.mark.parametrize(
    ("value", "calibration"),
    [(0.0, "identity"), (1.0, "identity"), (7.5, "linear"), (-3.0, "logistic"), (0.0, "max_ratio"), (4.2, "max_ratio")],
)
def test_all_equal_scores_give_a_note(value, calibration):
    corpus = build_corpus(document(), 200)
    raw = np.full(len(corpus.chunks), value)
    result = run_rse(corpus, ["q"], [raw], RSEParams(chunk_size=200), CALIBRATIONS[calibration])
    assert "All chunks got the same score, so the ranking is just document order." in result.notes
    assert list(result.ranking) == list(range(len(corpus.chunks)))


def test_bm25_query_with_no_word_in_the_document_gives_the_note():
    result = extract(document(), "xylophone quasar", RSEParams(chunk_size=200), scorer="bm25")
    assert any("same score" in note for note in result.notes) and result.segments == ()
    assert "negative after the penalty" in result.empty_reason()


@pytest.mark.parametrize(
    ("score", "segments"),
    [(1.0, [(0, 1)]), (0.0, [])],
)
def test_single_chunk_corpus(score, segments):
    corpus = build_corpus(Document.from_text("One short note.", name="one.txt"), 200)
    assert len(corpus.chunks) == 1
    result = run_rse(corpus, ["q"], [np.array([score])], RSEParams(chunk_size=200), Calibration())
    assert [(segment.start, segment.end) for segment in result.segments] == segments
    assert result.top_k == (0,) and result.top_k_equal_budget == ((0,) if segments else ())
    assert not any("same score" in note for note in result.notes)  # one chunk is not a tie
    assert (result.empty_reason() is None) == bool(segments)


@pytest.mark.parametrize("text", ["x", "the and of", "... !!! ???"])
def test_bm25_on_a_document_without_indexable_words(text):
    result = extract(Document.from_text(text), "any words", RSEParams(), scorer="bm25")
    assert result.segments == ()
