"""``reflow_pieces`` against the plainest statement of what it must return (it walks words, no longer
characters; the answer must not move)."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core.documents.reflow import reflow, reflow_pieces

# Letters, punctuation that ends sentences, list markers, and every kind of whitespace str.split() knows.
ALPHABET = "ab Z.-:1)\n\n\t\r\x0b\x0c\x1c\x85\xa0\u2028\u3000\u2009"


def by_characters(text: str, cuts: list[int]) -> list[str]:
    """Count the visible characters before each cut, character by character."""
    flowed = reflow(text)
    visible_at = [position for position, char in enumerate(flowed) if not char.isspace()]
    bounds = [0]
    for cut in cuts:
        count = sum(not char.isspace() for char in text[: min(max(cut, 0), len(text))])
        bounds.append(visible_at[count] if count < len(visible_at) else len(flowed))
    bounds.append(len(flowed))
    return [flowed[start:end] for start, end in pairwise(bounds)]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=80), st.lists(st.integers(-3, 90), max_size=6))
def test_pieces_cut_the_reflowed_text_where_the_visible_characters_say(text, cuts):
    cuts = sorted(cuts)
    pieces = reflow_pieces(text, cuts)
    assert pieces == by_characters(text, cuts)
    assert "".join(pieces) == reflow(text)
