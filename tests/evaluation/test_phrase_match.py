"""Phrase matching in linear time, with the results of the regex it replaced."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import pytest

from rse_core.evaluation import phrase_match
from rse_core.evaluation.golden import PhraseError, find_phrase_all, locate_phrase, parse_golden_json, phrase_regex


def old_phrase_regex(phrase: str) -> re.Pattern[str]:
    """The regex matching used before (reference for small inputs only: it backtracks exponentially)."""
    parts = []
    for word in phrase.split():
        pieces = re.split(r"([-/])", word)
        parts.append("".join(re.escape(p) + r"\s*" if p in "-/" and p else re.escape(p) for p in pieces))
    return re.compile(r"\s+".join(parts))


def random_text(rng: random.Random, size: int) -> str:
    return "".join(rng.choice("ab-/ \n\t") for _ in range(size))


def random_phrase(rng: random.Random) -> str:
    while True:
        phrase = "".join(rng.choice("ab-/ \n") for _ in range(rng.randint(1, 7)))
        if phrase.split():
            return phrase


def test_same_matches_as_the_old_regex_on_random_text():
    rng = random.Random(23)
    for _ in range(4000):
        text, phrase = random_text(rng, rng.randint(0, 30)), random_phrase(rng)
        start = rng.randint(0, len(text))
        old = old_phrase_regex(phrase)
        assert find_phrase_all(text, phrase, start) == [m.span() for m in old.finditer(text, start)], (text, phrase)
        first = old.search(text, start)
        assert phrase_match.find_first(text, phrase, start) == (first.span() if first else None), (text, phrase)
        assert phrase_match.starts_with(text, phrase) == bool(old.match(text)), (text, phrase)
        assert phrase_match.ends_with(text, phrase) == bool(re.search(old.pattern + r"\Z", text)), (text, phrase)
        assert [m.span() for m in phrase_regex(phrase).finditer(text)] == [m.span() for m in old.finditer(text)]


def test_hyphen_line_breaks_and_whitespace_runs():
    text = "A full-\ntime  employee\non   probation works full-time."
    assert find_phrase_all(text, "full-time employee on probation") == [(2, 37)]
    assert find_phrase_all(text, "full-time.") == [(text.rindex("full"), len(text))]
    assert locate_phrase(text, "works", 10) == (text.index("works"), text.index("works") + 5)
    with pytest.raises(PhraseError):
        locate_phrase(text, "   ")


HOSTILE = """
import json, sys
from rse_core.evaluation.golden import find_phrase_all, parse_golden_json
golden = parse_golden_json(sys.stdin.buffer.read())
text = "a-  " * 184 + "b"
for query in golden.queries:
    print(len(find_phrase_all(text, query.first_phrase)), golden.check_offsets(text)[:1] != [])
"""


def test_the_hostile_golden_set_finishes_at_once():
    """A 318-byte golden set and a 738-byte text that backtracked exponentially in the old regex.

    Run in a child with a timeout, so a regression fails instead of hanging the suite.
    """
    phrase = " ".join(["a-"] * 30) + " c"
    query = {"id": "q", "query": "x", "kind": "factoid", "start_char": 0, "end_char": 5}
    golden = {"schema": "rse-golden/1", "document": "d.txt", "queries": [{**query, "first_phrase": phrase}]}
    golden["queries"][0]["last_phrase"] = phrase
    data = json.dumps(golden).encode()
    assert len(data) < 400 and len("a-  " * 184 + "b") < 740
    parse_golden_json(data)  # valid
    done = subprocess.run(
        [sys.executable, "-c", HOSTILE], input=data, capture_output=True, timeout=30, check=True, cwd="."
    )
    assert done.stdout.split() == [b"0", b"True"]
