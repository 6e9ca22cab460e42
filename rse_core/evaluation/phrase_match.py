"""Find a golden set's phrases in a document in linear time, without regular expressions.

A phrase matches where its words appear separated by any run of whitespace, and a line break may
also follow a hyphen or slash inside a word ("full-time" may be extracted as "full-\\ntime").
Golden sets and documents both come from users, and a regex for that rule (``\\-\\s*`` before
``\\s+``) backtracks exponentially on text like ``"a-  a-  a-  ..."``. So both sides are folded the
same way instead: every whitespace run becomes one space, and whitespace right after ``-`` or
``/`` is dropped (remembering where it was, since a word that *ends* in a hyphen needs some).
Then ``str.find`` does the matching, and an offset map turns folded positions back into the
original text's.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

SEPARATORS = "-/"
_AFTER_SEPARATOR = re.compile(r"(?<=[-/])\s+")
_WHITESPACE = re.compile(r"\s+")
_SHIFTS = re.compile(r"(?<=[-/])\s+|\s\s+")  # the runs that do not become exactly one character
# None of these can backtrack: each is one character class, repeated, with nothing after it.


@dataclass(frozen=True)
class FoldedText:
    """A text with whitespace folded, and the map back to the original's offsets.

    The map is kept only where the two drift apart (a run of two or more whitespace characters,
    or whitespace after a separator), so a document with single spaces and line breaks costs
    little beyond the folded copy.

    Attributes:
        text: the folded text.
        folded_marks / original_marks: where, in each text, the first character after a shortened
            whitespace run is (both sorted).
        shifts: characters dropped up to each mark (original = folded + shift).
        spaced: folded offsets of ``-``/``/`` characters that whitespace followed in the original.
        length: the original text's length.
    """

    text: str
    folded_marks: array
    original_marks: array
    shifts: array
    spaced: frozenset[int]
    length: int

    def original(self, position: int) -> int:
        """The original offset of folded ``position`` (the text's length at the end)."""
        if position >= len(self.text):
            return self.length
        mark = bisect_right(self.folded_marks, position) - 1
        return position + (self.shifts[mark] if mark >= 0 else 0)

    def folded(self, position: int) -> int:
        """The first folded offset whose original offset is ``position`` or later."""
        mark = bisect_right(self.original_marks, position) - 1
        result = position - (self.shifts[mark] if mark >= 0 else 0)
        if mark + 1 < len(self.folded_marks):  # inside a dropped run: the character after it
            result = min(result, self.folded_marks[mark + 1])
        return min(max(result, 0), len(self.text))


def fold(text: str) -> FoldedText:
    """``text`` with each whitespace run made one space, and whitespace after ``-``/``/`` dropped."""
    folded_marks, original_marks, shifts = array("q"), array("q"), array("q")
    spaced: set[int] = set()
    dropped = 0
    for run in _SHIFTS.finditer(text):
        after_separator = run.start() > 0 and text[run.start() - 1] in SEPARATORS
        dropped += len(run.group()) - (0 if after_separator else 1)
        if after_separator:
            spaced.add(run.start() - 1 - (shifts[-1] if shifts else 0))
        original_marks.append(run.end())
        folded_marks.append(run.end() - dropped)
        shifts.append(dropped)
    folded_text = _WHITESPACE.sub(" ", _AFTER_SEPARATOR.sub("", text))
    return FoldedText(folded_text, folded_marks, original_marks, shifts, frozenset(spaced), len(text))


fold_text = lru_cache(maxsize=4)(fold)
""":func:`fold`, cached: a golden set looks up many phrases in one document."""


@dataclass(frozen=True)
class FoldedPhrase:
    """A phrase folded like the text, with the positions that need whitespace after them."""

    text: str
    needs_space: tuple[int, ...]
    """Offsets in ``text`` of a word-final ``-``/``/`` followed by another word."""


def fold_phrase(phrase: str) -> FoldedPhrase:
    """``phrase`` folded; raises ValueError if it has no words."""
    words = phrase.split()
    if not words:
        raise ValueError("empty phrase")
    parts: list[str] = []
    needs_space: list[int] = []
    size = 0
    for number, word in enumerate(words):
        if number:
            if parts[-1][-1] in SEPARATORS:
                needs_space.append(size - 1)
            else:
                parts.append(" ")
                size += 1
        parts.append(word)
        size += len(word)
    return FoldedPhrase("".join(parts), tuple(needs_space))


def find_all(text: str, phrase: str, start: int = 0) -> list[tuple[int, int]]:
    """Every match of ``phrase`` in ``text`` starting at or after ``start``, as original (start, end).

    Non-overlapping and leftmost first, like ``re.finditer``. A phrase ending in ``-`` or ``/``
    takes the whitespace after it into its match.
    """
    return list(_matches(text, phrase, start))


def find_first(text: str, phrase: str, start: int = 0) -> tuple[int, int] | None:
    """The first match at or after ``start``, or ``None``."""
    return next(_matches(text, phrase, start), None)


def starts_with(text: str, phrase: str) -> bool:
    """``text`` begins with a match of ``phrase`` (like ``re.match``)."""
    return _match_at(fold(text), fold_phrase(phrase), 0, len(text)) is not None


def ends_with(text: str, phrase: str) -> bool:
    """A match of ``phrase`` ends exactly at the end of ``text`` (like ``re.search(pattern + r"\\Z")``)."""
    folded, pattern = fold(text), fold_phrase(phrase)
    found = _match_at(folded, pattern, len(folded.text) - len(pattern.text), len(text))
    return found is not None and found[1] == len(text)


def _match_at(folded: FoldedText, pattern: FoldedPhrase, position: int, length: int) -> tuple[int, int] | None:
    if position < 0 or not folded.text.startswith(pattern.text, position):
        return None
    if not all(position + offset in folded.spaced for offset in pattern.needs_space):
        return None
    return folded.original(position), folded.original(position + len(pattern.text))


def _matches(text: str, phrase: str, start: int) -> Iterator[tuple[int, int]]:
    """Leftmost, non-overlapping matches. Each ``str.find`` is linear; a candidate is only
    rejected when a word-final hyphen lacks the whitespace after it."""
    folded = fold_text(text)
    pattern = fold_phrase(phrase)
    size = len(pattern.text)
    position = folded.folded(start)
    while True:
        found = folded.text.find(pattern.text, position)
        if found < 0:
            return
        if all(found + offset in folded.spaced for offset in pattern.needs_space):
            yield folded.original(found), folded.original(found + size)
            position = found + size
        else:
            position = found + 1
