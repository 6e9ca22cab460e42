"""Locate golden-set phrases in extracted PDF text.

Shared by ``sample_docs/build.py`` (which writes ``start_char``/``end_char`` into the golden JSON
files) and by tests (which check that the stored offsets still match the PDF text).

Matching is exact except for whitespace: the words of a phrase may be separated by any run of
whitespace in the text (PDF extraction turns line wraps into newlines), and a line break may also
fall right after a hyphen or slash inside a word ("full-time" may come out as "full-\\ntime").
"""

from __future__ import annotations

import re

__all__ = [
    "PhraseError",
    "find_phrase_all",
    "locate_phrase",
    "locate_region",
    "locate_unique_phrase",
    "phrase_regex",
]


class PhraseError(ValueError):
    """A phrase is missing from the text, or occurs more often than allowed."""


def phrase_regex(phrase: str) -> re.Pattern[str]:
    """Compile a regex matching ``phrase`` with loose whitespace."""
    words = phrase.split()
    if not words:
        raise PhraseError("empty phrase")
    parts = []
    for word in words:
        # Allow a line break after an in-word hyphen or slash.
        pieces = re.split(r"([-/])", word)
        parts.append("".join(re.escape(p) + r"\s*" if p in "-/" and p else re.escape(p) for p in pieces))
    return re.compile(r"\s+".join(parts))


def find_phrase_all(text: str, phrase: str, start: int = 0) -> list[tuple[int, int]]:
    """All non-overlapping matches of ``phrase`` in ``text[start:]`` as (start, end) offsets."""
    return [(m.start(), m.end()) for m in phrase_regex(phrase).finditer(text, start)]


def locate_phrase(text: str, phrase: str, start: int = 0) -> tuple[int, int]:
    """First match of ``phrase`` at or after offset ``start``; raises PhraseError if none."""
    m = phrase_regex(phrase).search(text, start)
    if m is None:
        raise PhraseError(f"phrase not found after offset {start}: {phrase!r}")
    return m.start(), m.end()


def locate_unique_phrase(text: str, phrase: str) -> tuple[int, int]:
    """The single match of ``phrase`` in ``text``; raises PhraseError if missing or ambiguous."""
    hits = find_phrase_all(text, phrase)
    if not hits:
        raise PhraseError(f"phrase not found: {phrase!r}")
    if len(hits) > 1:
        raise PhraseError(f"phrase occurs {len(hits)} times (must be unique): {phrase!r}")
    return hits[0]


def locate_region(text: str, first_phrase: str, last_phrase: str) -> tuple[int, int]:
    """(start_char, end_char) of a gold region, end exclusive.

    ``first_phrase`` must occur exactly once; the region ends at the end of the first occurrence
    of ``last_phrase`` that starts at or after the start of ``first_phrase`` (so the two phrases
    may be the same sentence or overlap).
    """
    start, first_end = locate_unique_phrase(text, first_phrase)
    try:
        _, end = locate_phrase(text, last_phrase, start)
    except PhraseError:
        raise PhraseError(f"last phrase not found after first phrase: {last_phrase!r}") from None
    return start, max(end, first_end)
