"""Section headings of a document, and the contextual header each chunk is scored with.

A chunk in the middle of a section often never names what it is about ("It rose 4% on the year"),
so a scorer cannot tell it belongs to "Revenue". Contextual chunk headers prepend the document
title and the section's heading path to what the scorer reads (never to the chunk's text, so
segments still rebuild the exact document text). Headings come from:

- PDFs: the outline (table of contents) when the file has one; otherwise lines set apart by
  style: bold or at least 15% larger than the body text (the size that holds most characters),
  in a block of at most three lines, not repeated on three or more pages (running heads);
- Markdown: ``#`` lines outside code fences;
- plain text: short numbered lines ("2.1 Cooling") or short ALL-CAPS lines after a blank line.

Each heading is located in the cleaned text by its words (any whitespace between them), after
the previous one, so its offset indexes ``Document.text`` like a chunk's.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rse_core.documents.cleaning import clean_text

MAX_HEADING_CHARS = 120
MAX_HEADER_CHARS = 240
LARGER_THAN_BODY = 1.15
BOLD_FLAG = 16  # PyMuPDF span flag for a bold font
RUNNING_HEAD_PAGES = 3

_MARKDOWN_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_NUMBERED = re.compile(r"^(\d+(?:\.\d+){0,3})\.?\s+(\S.{1,78})$")
_CAPS = re.compile(r"^[A-Z0-9][A-Z0-9 ,.&:;'()/-]{3,78}$")
_PART = re.compile(r"^(PART|Part)\s+[IVX\d]+\b.{0,90}$")
_SECTION = re.compile(r"^(ITEM|Item|CHAPTER|Chapter|SECTION|Section)\s+[\dIVX]+[A-Z]?[.:]?(\s.{0,90})?$")
MAX_PATH = 2
"""Headings kept in a header after the title: the section and its parent."""


@dataclass(frozen=True)
class Heading:
    """A section heading: where it starts in the document text, its depth (1 = top) and words."""

    start: int
    level: int
    title: str


def header_for(title: str, headings: Sequence[Heading], start: int, end: int) -> str:
    """The header of the chunk ``start:end``: the title, then the path of headings it sits under.

    The chunk sits in the last section that starts before its middle (a heading near a chunk's
    end introduces the next chunk's text, not this one's). For many chunks of one document,
    build a :class:`HeaderIndex` once instead: this costs time linear in the headings per call.
    """
    return HeaderIndex.build(title, headings).header(start, end)


@dataclass(frozen=True)
class HeaderIndex:
    """Every heading's path, computed once, so each chunk's header costs a binary search.

    A document with 50,000 headings and as many chunks took seconds when each chunk walked all
    the headings before it; building this is one pass, and a header is ``O(log headings)``.

    Attributes:
        title: the document title (stripped).
        starts: each heading's offset, in the given order (sorted, as the loaders produce them).
        parents: the index of the heading each one sits under, or -1 at the top.
        shown: for each heading, the nearest one on its path (itself included) whose title is
            not the document's title (that one is never repeated), or -1.
        titles: each heading's title.
    """

    title: str
    starts: tuple[int, ...]
    parents: tuple[int, ...]
    shown: tuple[int, ...]
    titles: tuple[str, ...]

    @classmethod
    def build(cls, title: str, headings: Sequence[Heading]) -> HeaderIndex:
        title = title.strip()
        folded_title = title.casefold()
        parents: list[int] = []
        shown: list[int] = []
        stack: list[int] = []
        for number, heading in enumerate(headings):
            while stack and headings[stack[-1]].level >= heading.level:
                stack.pop()
            parent = stack[-1] if stack else -1
            parents.append(parent)
            own = heading.title.casefold() != folded_title
            shown.append(number if own else (shown[parent] if parent >= 0 else -1))
            stack.append(number)
        return cls(
            title,
            tuple(heading.start for heading in headings),
            tuple(parents),
            tuple(shown),
            tuple(heading.title for heading in headings),
        )

    def header(self, start: int, end: int) -> str:
        """The header of the chunk ``start:end`` (see :func:`header_for`)."""
        path: list[str] = []
        node = bisect.bisect_right(self.starts, (start + end) // 2) - 1
        node = self.shown[node] if node >= 0 else -1
        while node >= 0 and len(path) < MAX_PATH:
            path.append(self.titles[node])
            parent = self.parents[node]
            node = self.shown[parent] if parent >= 0 else -1
        parts = ([self.title] if self.title else []) + path[::-1]
        return " > ".join(parts)[:MAX_HEADER_CHARS]


def markdown_headings(text: str) -> tuple[Heading, ...]:
    """``#`` headings, skipping fenced code blocks."""
    headings, offset, fenced = [], 0, False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _MARKDOWN_HEADING.match(line.rstrip("\n"))):
            headings.append(Heading(offset, len(match.group(1)), _short(match.group(2))))
        offset += len(line)
    return tuple(headings)


def text_headings(text: str) -> tuple[Heading, ...]:
    """Lines that open a part (level 1) or an item, chapter or section (level 2) anywhere; and,
    after a blank line or the start, numbered lines ("3.2 Results", level = depth of the number)
    and ALL-CAPS lines (level 1) that are short and do not end like a sentence."""
    headings, offset, previous_blank = [], 0, True
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped and (_PART.match(stripped) or _SECTION.match(stripped)):
            level = 1 if _PART.match(stripped) else 2
            headings.append(Heading(offset + line.index(stripped[0]), level, _short(stripped)))
        elif previous_blank and stripped and not stripped.endswith((".", ",", ";")):
            numbered = _NUMBERED.match(stripped)
            if numbered and any(c.isalpha() for c in numbered.group(2)) and numbered.group(2)[0].isupper():
                headings.append(Heading(offset + line.index(stripped[0]), numbered.group(1).count(".") + 1, stripped))
            elif _CAPS.match(stripped) and sum(c.isalpha() for c in stripped) >= 4:
                headings.append(Heading(offset + line.index(stripped[0]), 1, _short(stripped)))
        previous_blank = not stripped
        offset += len(line)
    return tuple(headings)


def pdf_headings(pdf, page_texts: Sequence[str], page_starts: Sequence[int]) -> tuple[Heading, ...]:
    """Headings of an open PyMuPDF document whose cleaned page texts are ``page_texts``."""
    try:
        outline = pdf.get_toc(simple=True)
    except Exception:  # a damaged outline is no reason to refuse the text
        outline = []
    if outline:
        found = [(page - 1, level, title) for level, title, page in outline if 0 < page <= len(page_texts)]
    else:
        found = _styled_lines(pdf)
    return _locate(found, page_texts, page_starts)


def _styled_lines(pdf) -> list[tuple[int, int, str]]:
    """(page index, level, text) of lines set apart by size or weight from the body text."""
    sizes: Counter[float] = Counter()
    blocks = []
    for number in range(pdf.page_count):
        try:
            page_blocks = pdf.load_page(number).get_text("dict")["blocks"]
        except Exception:  # a damaged page: its headings are lost, not the document
            continue
        for block in page_blocks:
            lines = []
            for line in block.get("lines", ()):
                spans = [span for span in line["spans"] if span["text"].strip()]
                if spans:
                    for span in spans:
                        sizes[round(span["size"], 1)] += len(span["text"])
                    size = round(max(span["size"] for span in spans), 1)
                    bold = all(span["flags"] & BOLD_FLAG for span in spans)
                    lines.append((size, bold, " ".join(span["text"].strip() for span in spans)))
            if lines:
                blocks.append((number, lines))
    if not sizes:
        return []
    body = sizes.most_common(1)[0][0]
    candidates = []
    for number, lines in blocks:
        size = max(line[0] for line in lines)
        text = " ".join(line[2] for line in lines)
        styled = all(line[1] or line[0] >= body * LARGER_THAN_BODY for line in lines)
        if styled and len(lines) <= 3 and len(text) <= 200 and sum(c.isalpha() for c in text) >= 2:
            candidates.append((number, size, text))
    pages_per_text: dict[str, set[int]] = {}
    for number, _, text in candidates:
        pages_per_text.setdefault(text, set()).add(number)
    candidates = [c for c in candidates if len(pages_per_text[c[2]]) < RUNNING_HEAD_PAGES]
    levels = {size: level for level, size in enumerate(sorted({c[1] for c in candidates}, reverse=True), 1)}
    return [(number, levels[size], text) for number, size, text in candidates]


def _locate(found, page_texts: Sequence[str], page_starts: Sequence[int]) -> tuple[Heading, ...]:
    """Offsets of headings in the document text, searched in order from the previous one."""
    headings: list[Heading] = []
    cursor = 0
    text = "".join(page_texts)
    for page, level, title in found:
        title = _short(clean_text(title))
        if not title:
            continue
        pattern = _loose(title)
        start = max(cursor, page_starts[page])
        match = pattern.search(text, start) if pattern else None
        if match is not None and match.start() < page_starts[page] + len(page_texts[page]) + 2000:
            offset = match.start()
        elif page_starts[page] >= cursor:
            offset = page_starts[page]  # not found in the text: the outline's page is still right
        else:
            continue
        headings.append(Heading(offset, level, title))
        cursor = offset + 1
    return tuple(headings)


def _loose(title: str) -> re.Pattern[str] | None:
    words = title.split()
    return re.compile(r"\s*".join(re.escape(word) for word in words)) if words else None


def _short(text: str) -> str:
    return " ".join(text.split())[:MAX_HEADING_CHARS]
