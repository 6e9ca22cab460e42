"""Join a PDF's hard-wrapped lines into paragraphs, for reading on screen only.

PDF text breaks every line where the page did, so shown as is it reads like a poem. :func:`reflow`
turns a line break inside a paragraph into a space and keeps every other break: blank lines
(paragraph breaks), list items, and short lines that end no sentence (headings, table cells).

It changes whitespace only: every other character stays, in order, so a reflowed text is never a
different text (a hyphen at a line's end is kept, since ``well-`` / ``known`` cannot be told
from ``hyph-`` / ``enated`` without a dictionary). What is exported or sent to an LLM stays exact.

Each break is decided from the two lines around it alone, never from the rest of the text. The
segment panel, which marks where each chunk starts, reflows the whole segment and cuts the result
at the chunks' starts (:func:`reflow_pieces`), so it shows exactly what the page view shows.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import pairwise

RUN_ON_WIDTH = 65
"""A line at least this long that ends no sentence runs on: the page, not the author, broke it."""

# The end of a sentence or clause, possibly inside closing quotes or brackets.
_SENTENCE_END = re.compile(r"[.:;!?][\"'\u2019\u201d)\]]*$")
# A bullet, "1." / "2)", "a)" / "b.", or "(i)" followed by a space: a list item keeps its line.
_WORD = re.compile(r"\S+")  # a run of characters str.isspace() rejects, as str.split() splits
_LIST_ITEM = re.compile(r"\s*(?:[-*\u2022\u25cf\u25aa\u2013]|\d{1,3}[.)]|[A-Za-z][.)]|\([0-9A-Za-z]{1,4}\))\s")


def reflow(text: str) -> str:
    """``text`` with the line breaks inside its paragraphs joined, for display only.

    A break is joined when the line before ends no sentence and either the next line starts in
    lower case (the sentence carries on) or the line before is long (:data:`RUN_ON_WIDTH`). It is
    kept before or after a blank line and before a list item. A joined break becomes one space, with the
    indentation around it dropped; after a word's hyphen it becomes nothing (the hyphen stays).
    A text's last line break is kept: what follows it is not known.
    """
    lines = text.split("\n")
    parts = [lines[0]]
    for before, after in pairwise(lines):
        joint = _joint(before, after)
        if joint is None:
            parts.append("\n" + after)
        else:
            parts[-1] = parts[-1].rstrip() + joint + after.lstrip()
    return "".join(parts)


def _joint(before: str, after: str) -> str | None:
    """What the break between two lines becomes: ``None`` to keep it, else the joining text."""
    head, tail = before.rstrip(), after.lstrip()
    if not head or not tail or _LIST_ITEM.match(after):
        return None
    if _SENTENCE_END.search(head) or not (tail[0].islower() or len(head) >= RUN_ON_WIDTH):
        return None
    return "" if head.endswith("-") and head[-2:-1].isalpha() else " "


def reflow_pieces(text: str, cuts: Sequence[int]) -> list[str]:
    """``reflow(text)`` cut where ``text`` is cut at the offsets ``cuts`` (sorted, within the text).

    Reflow changes whitespace only, so a cut maps to the reflowed text by the visible characters
    before it; whitespace at a cut stays with the piece before it. Joining the pieces gives
    ``reflow(text)`` exactly. Walks words, not characters: the segment panel calls this on every
    slider move.
    """
    flowed = reflow(text)
    # Walk words, not characters: where each word of the reflowed text starts, and how many
    # visible characters come before each word's end.
    starts, visible_to = [], []
    count = 0
    for word in _WORD.finditer(flowed):
        starts.append(word.start())
        count += word.end() - word.start()
        visible_to.append(count)
    bounds = [0]
    for cut in cuts:
        before = sum(map(len, text[: min(max(cut, 0), len(text))].split()))  # visible characters before the cut
        word = bisect_right(visible_to, before)
        if word < len(starts):
            bounds.append(starts[word] + before - (visible_to[word - 1] if word else 0))
        else:
            bounds.append(len(flowed))
    bounds.append(len(flowed))
    return [flowed[start:end] for start, end in pairwise(bounds)]
