"""The strict link parser and the message escaper, without Streamlit: every input, no exception."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from app_ui import query_params as qp
from app_ui.safe_text import ZERO_WIDTH_SPACE, clean, md
from tests.support.markdown_check import markup_problems

CHOICES = qp.LinkChoices(
    samples=("annual_report", "tech_report"),
    scorers=("minilm", "bm25", "cohere", "cross-encoder"),
    presets=("default", "balanced"),
    cross_encoders=("tiny-reranker",),
    bounds={
        "irrelevant_chunk_penalty": qp.NumberBounds(0.0, 1.0),
        "decay_rate": qp.NumberBounds(1.0, 300.0),
        "max_length": qp.NumberBounds(1, 60),
        "top_k": qp.NumberBounds(1, 30),
        "chunk_size": qp.NumberBounds(200, 2000, (200, 400, 800, 2000)),
    },
)
NASTY = [
    "inf",
    "-inf",
    "nan",
    "NaN",
    "1e999",
    "-1e999",
    "1" * 400,
    "-5",
    "0x10",
    "1_000",
    "\u0661",  # Arabic-Indic one: float() accepts it, the link does not
    "",
    " ",
    "\x00",
    "[x](https://evil.example)",
]


@pytest.mark.parametrize("name", ["maxlen", "chunk", "topk", "penalty", "decay"])
@pytest.mark.parametrize("raw", NASTY)
def test_a_bad_number_becomes_a_notice_and_the_default(name, raw):
    link = qp.parse_link({name: raw}, CHOICES)
    field = qp.PARAM_FIELDS[name][0]
    assert field not in link.params
    assert len(link.notices) == 1 and name in link.notices[0]


@pytest.mark.parametrize(
    ("name", "raw", "expected"),
    [("maxlen", "12", 12), ("maxlen", "12.0", 12), ("penalty", "0.35", 0.35), ("topk", "+7", 7), ("chunk", "800", 800)],
)
def test_good_numbers_are_read(name, raw, expected):
    link = qp.parse_link({name: raw}, CHOICES)
    assert link.params == {qp.PARAM_FIELDS[name][0]: expected} and not link.notices


def test_out_of_range_and_fractional_integers_are_refused():
    link = qp.parse_link({"maxlen": "100000", "topk": "2.5", "penalty": "1.5"}, CHOICES)
    assert link.params == {}
    assert len(link.notices) == 3


def test_a_chunk_size_between_the_offered_ones_takes_the_nearest_with_a_notice():
    link = qp.parse_link({"chunk": "450"}, CHOICES)
    assert link.params == {"chunk_size": 400} and "450" in link.notices[0]


def test_unknown_and_repeated_names_are_reported():
    link = qp.parse_link({"zzz": "1", "topk": ["3", "9"], "embed": "true"}, CHOICES)
    assert link.params == {"top_k": 3}
    assert any("zzz" in notice for notice in link.notices)
    assert any("topk 2 times" in notice for notice in link.notices)
    assert not any("embed" in notice for notice in link.notices)  # Streamlit's own parameter


def test_lengths_are_bounded():
    link = qp.parse_link({"q": "why " * 25_000, "docs": ",".join(["annual_report"] * 500)}, CHOICES)
    assert len(link.query) == qp.QUERY_CHARS
    assert link.samples == ("annual_report",)
    assert any("cut" in notice for notice in link.notices)
    many = qp.parse_link({f"k{i}": "1" for i in range(1000)}, CHOICES)
    assert sum(len(notice) for notice in many.notices) < 500


def test_a_long_query_is_written_to_the_link_only_as_far_as_it_is_read():
    values = qp.link_values(("annual_report",), ("x" * 100_000, "y" * 5000), "bm25", None, {"top_k": 5})
    assert len(values["q"]) == qp.QUERY_CHARS and len(values["q2"]) == qp.QUERY_CHARS
    assert len("".join(values.values())) < 2 * qp.QUERY_CHARS + 200


@pytest.mark.parametrize("model", ["/etc/shadow", "/nonexistent", "/tmp", "org/name", "../x", "tiny-reranker/.."])
def test_a_cross_encoder_not_offered_gets_the_same_notice_whatever_it_names(model):
    link = qp.parse_link({"scorer": "cross-encoder", "model": model}, CHOICES)
    assert link.model is None
    assert link.notices == (qp.model_refused_message(),)


def test_an_offered_cross_encoder_is_taken():
    link = qp.parse_link({"scorer": "cross-encoder", "model": "tiny-reranker"}, CHOICES)
    assert link.scorer == "cross-encoder" and link.model == "tiny-reranker" and not link.notices


links = st.dictionaries(
    st.sampled_from([*qp.KNOWN, "zzz", "embed", ""]) | st.text(max_size=20),
    st.text(max_size=60) | st.sampled_from(NASTY) | st.lists(st.text(max_size=10), max_size=3),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(links)
def test_any_link_parses_to_finite_bounded_values(params):
    link = qp.parse_link(params, CHOICES)
    for field, value in link.params.items():
        bounds = CHOICES.bounds.get(field)
        if isinstance(value, bool):
            continue
        assert isinstance(value, (int, float)) and math.isfinite(value)
        if bounds is not None:
            assert bounds.low <= value <= bounds.high
    assert link.samples is None or set(link.samples) <= set(CHOICES.samples)
    assert link.scorer in (None, *CHOICES.scorers) and link.preset in (None, *CHOICES.presets)
    assert link.query is None or len(link.query) <= qp.QUERY_CHARS
    assert all(len(notice) < 400 for notice in link.notices)


# ------------------------------------------------------------------------------ safe_text

ATTACKS = [
    "[Your session expired - sign in again](https://evil.example/login)",
    "![x](https://evil.example/p.png)",
    "<img src=x onerror=alert(1)>",
    "<https://evil.example>",
    "https://evil.example/login",
    "www.evil.example",
    "examplewww.evil.example xhttps://evil.example",
    "mail me: a@evil.example",
    "$\\frac{1}{0}$",
    ":red[alarm] :material/warning: :smile:",
    "**bold** _it_ ~~gone~~ `code`",
    "# heading\n- item\n> quote\n1. one",
    "[a]: https://evil.example\n[click][a]",
    "&lt;b&gt; &#x27;",
    "back\\slash \\[x](y)",
    "line\nbreak\r\nand\u2028more",
    "bidi \u202eevil\u202c and NUL \x00",
]
_PLAIN = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _text_of(source: str) -> str:
    """The text a CommonMark renderer shows for ``source`` (one paragraph expected)."""
    tokens = _PLAIN.parse(source)
    inline = [token for token in tokens if token.type == "inline"]
    return "".join(
        child.content if child.type in ("text", "code_inline") else "\n" for t in inline for child in t.children
    )


@pytest.mark.parametrize("attack", ATTACKS)
def test_md_shows_user_text_literally(attack):
    source = md(attack)
    assert "\n" not in source
    assert markup_problems(source) == []
    assert _text_of(source).replace(ZERO_WIDTH_SPACE, "") == clean(attack).strip().replace(ZERO_WIDTH_SPACE, "")


MARKDOWN_HEAVY = st.text(alphabet="[]()!<>*_`$:~#-+.|\\&@=\n ahtps/w:", max_size=60)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80) | MARKDOWN_HEAVY | st.sampled_from(ATTACKS))
def test_md_of_any_text_renders_as_exactly_that_text(text):
    source = md(text)
    assert markup_problems(source) == []
    assert _text_of(source).strip().replace(ZERO_WIDTH_SPACE, "") == clean(text).strip().replace(ZERO_WIDTH_SPACE, "")


def test_md_cuts_long_text_with_an_ellipsis():
    assert clean("x" * 500, 20) == "x" * 19 + "\u2026"
    assert len(md("[" * 500, 20)) <= 40
