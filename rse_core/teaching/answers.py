"""Reading and writing a student's answer: one grammar for every place a class types one.

The worked example's "Check yourself", its exercises and the printed answer key all read and
write answers here, so an answer one of them accepts the others accept too. The grammar, as a
student writes on paper (chunks from 0, ranges inclusive):

- a segment is one chunk (``4``) or a range: ``2-3``, ``2..3``, ``2–3`` or ``2 to 3``;
- several are separated by commas, semicolons, ``then``, ``and``, ``&`` or spaces (``2-3, 6-7``,
  ``2-3 then 6-7``); the words ``chunk``, ``chunks``, ``segment`` and ``segments`` are ignored;
- ``none``, ``nothing``, ``no segment``, ``empty``, a dash or nothing at all means no segment;
- a number is a decimal (``-0.08``); yes or no is ``yes`` / ``y`` / ``no`` / ``n``.

Anything else raises :class:`AnswerError`, whose message says how to write the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rse_core.choices import LabelledChoice
from rse_core.numerals import num

Pairs = tuple[tuple[int, int], ...]
"""Segments as ``(first, last)`` chunk pairs, inclusive, in the order written."""

MAX_CHUNK_DIGITS = 9
"""Longer chunk numbers are refused before ``int`` reads them (no corpus has a billion chunks)."""
MAX_LISTED_CHUNKS = 10_000
"""Most chunks a range of chunk numbers (``4-6``) may list."""

EXAMPLE_SEGMENT = "5-7"
EXAMPLE_SEGMENTS = f"{EXAMPLE_SEGMENT}, 10-11"
EXAMPLE_NUMBER = "0.35"
EXAMPLE_CHUNKS = "5, 9"
"""The examples every hint and message shows: none of them is an exercise's answer or part of one
(tests/teaching/test_exercise_hints.py checks each against the whole bank), so a hint never gives one away."""

NO_SEGMENT_WORDS = frozenset({"", "none", "nothing", "no", "empty", "-"})
"""What a student writes for "the search returns nothing" (``"no segment"`` is ``"no"`` once the word goes)."""

_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-"})
_IGNORED_WORDS = re.compile(r"\b(?:chunks?|segments?)\b")
_WORD = r"(?<![a-z]){}(?![a-z])"  # a word even when a digit touches it: "2to3"
_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<number>[0-9]+)"
    rf"|(?P<range>\.\.|-|{_WORD.format('to')})"
    rf"|(?P<separator>[,;&]|{_WORD.format('(?:then|and)')})"
    r")"
)


class AnswerError(ValueError):
    """A typed answer that cannot be read; the message tells the student how to write it."""


class AnswerKind(LabelledChoice):
    """How an exercise's answer is written; the label is the hint a page shows next to the answer box."""

    SEGMENTS = "segments", f"segments in pick order, e.g. {EXAMPLE_SEGMENTS} (or none)"
    NUMBER = "number", f"a number to two decimals, e.g. {EXAMPLE_NUMBER}"
    CHUNKS = "chunks", f"chunk numbers, e.g. {EXAMPLE_CHUNKS} (or none)"
    YES_NO = "yes/no", "yes or no"

    @property
    def hint(self) -> str:
        return self.label


# --------------------------------------------------------------------------- reading


def parse_segments(text: str, *, chunk_count: int | None = None) -> Pairs:
    """Segments as a student types them, in the order typed; ``()`` for "none".

    Args:
        text: e.g. ``"2-3, 6-7"``, ``"2..3 then 6 to 7"``, ``"chunk 4"`` or ``"none"``.
        chunk_count: when given, a chunk at or beyond it is refused (chunks are 0 to ``chunk_count - 1``).

    Raises:
        AnswerError: the text is not segments in this grammar, or names a chunk that does not exist.
    """
    pairs = _pairs(text)
    if chunk_count is not None:
        for _, last in pairs:
            if last >= chunk_count:
                raise AnswerError(f"Chunk {last} does not exist: the chunks are numbered 0 to {chunk_count - 1}.")
    return pairs


def parse_chunks(text: str) -> tuple[int, ...]:
    """Chunk numbers (``"4, 6"``, ``"4 and 6"``; a range ``"4-6"`` lists 4, 5 and 6), sorted, each once.

    Raises:
        AnswerError: the text is not chunk numbers in this grammar.
    """
    pairs = _pairs(text)
    if sum(last - first + 1 for first, last in pairs) > MAX_LISTED_CHUNKS:
        raise AnswerError(
            f"That lists more than {MAX_LISTED_CHUNKS} chunks: write the chunk numbers, e.g. {EXAMPLE_CHUNKS}."
        )
    return tuple(sorted({chunk for first, last in pairs for chunk in range(first, last + 1)}))


def parse_number(text: str) -> float:
    """A decimal number (``"-0.08"``, with a typographic minus too).

    Raises:
        AnswerError: the text is not a finite number.
    """
    cleaned = _normalised(text)
    try:
        value = float(cleaned)
    except ValueError:
        value = None
    if value is None or value != value or value in (float("inf"), float("-inf")):
        raise AnswerError(f"{_shown(text)} is not a number: write a decimal, e.g. {EXAMPLE_NUMBER}.")
    return value


def parse_yes_no(text: str) -> str:
    """``"yes"`` or ``"no"`` (``"y"`` and ``"n"`` too).

    Raises:
        AnswerError: the text is neither.
    """
    cleaned = _normalised(text)
    if cleaned in ("yes", "y"):
        return "yes"
    if cleaned in ("no", "n"):
        return "no"
    raise AnswerError(f"{_shown(text)} is neither yes nor no: answer yes or no.")


def parse_answer(kind: AnswerKind, text: str) -> object:
    """An answer of ``kind`` in its normal form (pairs, sorted chunks, a float, or "yes" / "no").

    Raises:
        AnswerError: the text cannot be read as an answer of that kind.
    """
    return {
        AnswerKind.SEGMENTS: parse_segments,
        AnswerKind.CHUNKS: parse_chunks,
        AnswerKind.NUMBER: parse_number,
        AnswerKind.YES_NO: parse_yes_no,
    }[AnswerKind(kind)](text)


def _pairs(text: str) -> Pairs:
    """The grammar's segments: items ``NUMBER [RANGE NUMBER]``, separators optional between items."""
    cleaned = _IGNORED_WORDS.sub(" ", _normalised(text)).strip()
    if cleaned in NO_SEGMENT_WORDS:
        return ()
    tokens = _tokens(cleaned)
    pairs: list[tuple[int, int]] = []
    index = 0
    while index < len(tokens):
        kind, token = tokens[index]
        if kind == "separator":
            index += 1
            continue
        if kind != "number":
            raise AnswerError(
                f"{token!r} needs a chunk before it: write a segment as first-last, e.g. {EXAMPLE_SEGMENT} (or none)."
            )
        first = _chunk(token)
        last = first
        if index + 1 < len(tokens) and tokens[index + 1][0] == "range":
            if index + 2 >= len(tokens) or tokens[index + 2][0] != "number":
                raise AnswerError(
                    f"The range from chunk {first} has no last chunk: write it as first-last, e.g. {EXAMPLE_SEGMENT}."
                )
            last = _chunk(tokens[index + 2][1])
            index += 2
        pairs.append((min(first, last), max(first, last)))
        index += 1
    if not pairs:
        raise AnswerError(
            f"Type a segment as first-last chunk, e.g. {EXAMPLE_SEGMENT} (or {EXAMPLE_SEGMENTS} for several, or none)."
        )
    return tuple(pairs)


def _tokens(cleaned: str) -> list[tuple[str, str]]:
    tokens = []
    position = 0
    while position < len(cleaned):
        match = _TOKEN.match(cleaned, position)
        if match is None:
            rest = cleaned[position:].strip()
            raise AnswerError(
                f"Could not read {_shown(rest)}: write segments as first-last chunk numbers, e.g. {EXAMPLE_SEGMENTS} "
                "(whole numbers from 0), or none."
            )
        tokens.append((match.lastgroup, match.group(match.lastgroup)))
        position = match.end()
    return tokens


def _chunk(digits: str) -> int:
    if len(digits) > MAX_CHUNK_DIGITS:
        raise AnswerError(f"Chunk {digits[:12]}... does not exist: chunk numbers are counted from 0.")
    return int(digits)


def _normalised(text: str | None) -> str:
    return " ".join((text or "").translate(_DASHES).lower().split())


def _shown(text: str) -> str:
    return repr(text.strip()[:30])


# --------------------------------------------------------------------------- writing


def format_segments(pairs: Iterable[tuple[int, int]]) -> str:
    """``"2-3, 6-7"`` (``"4"`` for one chunk), or ``"none"``: what :func:`parse_segments` reads back."""
    return ", ".join(str(first) if first == last else f"{first}-{last}" for first, last in pairs) or "none"


def format_chunks(chunks: Sequence[int]) -> str:
    """``"4, 6"`` or ``"none"``: what :func:`parse_chunks` reads back."""
    return ", ".join(str(chunk) for chunk in chunks) or "none"


def format_answer(kind: AnswerKind, answer: object) -> str:
    """An answer in its normal form as a student would write it."""
    if kind is AnswerKind.NUMBER:
        return num(float(answer))
    if kind is AnswerKind.YES_NO:
        return str(answer)
    if kind is AnswerKind.CHUNKS:
        return format_chunks(answer)
    return format_segments(answer)


__all__ = [
    "AnswerError",
    "AnswerKind",
    "Pairs",
    "format_answer",
    "format_chunks",
    "format_segments",
    "parse_answer",
    "parse_chunks",
    "parse_number",
    "parse_segments",
    "parse_yes_no",
]
