"""Where every character of a PDF document's text sits on its page, kept at extraction.

A segment is a range of character offsets into ``Document.text``. To show it on the PDF page the
app must know, for each of those offsets, which glyph on which page it came from: searching the
page for the segment's words fails on repeated phrases and on text that cleaning changed. So
:func:`read_page` walks PyMuPDF's ``rawdict`` (one entry per glyph, with its box) next to the
plain text the document is built from, and :func:`clean_text_with_origins` carries each glyph
through text cleaning. Line breaks and the page-end newline have no glyph (index ``-1``).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.documents.cleaning import clean_text_with_origins

NO_GLYPH = -1


@dataclass(frozen=True)
class PageText:
    """One page's cleaned text and, per character, its glyph index and box on the page."""

    text: str
    glyphs: tuple[int, ...]
    boxes: tuple[tuple[float, float, float, float], ...]
    size: tuple[float, float]


def page_glyphs(page_dict: dict) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The glyphs of a ``page.get_text("rawdict")`` answer in reading order: (character, box).

    The glyph index used throughout is the position in this list, so a test can read a glyph
    back from a fresh ``rawdict`` of the same page.
    """
    glyphs = []
    for block in page_dict.get("blocks", ()):
        if block.get("type") != 0:
            continue
        for line in block.get("lines", ()):
            for span in line.get("spans", ()):
                glyphs.extend((char["c"], char["bbox"]) for char in span.get("chars", ()))
    return glyphs


def read_page(page) -> PageText:
    """Cleaned text of a PyMuPDF page (exactly what ``clean_text(page.get_text("text"))`` gives)
    with each character's glyph.

    PyMuPDF's plain text is the rawdict glyphs line by line, each line ended by a newline; when
    that holds (it does on every page we have seen) the map is direct, otherwise the two are
    aligned with :class:`difflib.SequenceMatcher` and unmatched characters get no glyph.
    """
    # One text page for both reads: the same flags as get_text("text") (no images), so the two
    # agree, and PyMuPDF parses the page once.
    from rse_core.documents.pymupdf_import import import_pymupdf  # without the add-ons that load onnxruntime

    pymupdf = import_pymupdf()

    textpage = page.get_textpage(flags=pymupdf.TEXTFLAGS_TEXT)
    raw_text = page.get_text("text", textpage=textpage)
    page_dict = page.get_text("rawdict", textpage=textpage)
    glyphs = page_glyphs(page_dict)
    rebuilt: list[str] = []
    rebuilt_glyph: list[int] = []
    position = 0
    for count in _line_lengths(page_dict):  # "text" = each line's glyphs, then a newline
        for _ in range(count):
            rebuilt.append(glyphs[position][0])
            rebuilt_glyph.append(position)
            position += 1
        rebuilt.append("\n")
        rebuilt_glyph.append(NO_GLYPH)
    rebuilt_text = "".join(rebuilt)
    if rebuilt_text == raw_text:
        raw_glyph = rebuilt_glyph
    else:
        raw_glyph = _align(rebuilt_text, rebuilt_glyph, raw_text)
    cleaned, origins = clean_text_with_origins(raw_text)
    glyph_ids = tuple(raw_glyph[origin] for origin in origins)
    boxes = tuple(glyphs[g][1] if g != NO_GLYPH else _NO_BOX for g in glyph_ids)
    rect = page.rect
    return PageText(cleaned, glyph_ids, boxes, (float(rect.width), float(rect.height)))


_NO_BOX = (float("nan"),) * 4


def _line_lengths(page_dict: dict) -> list[int]:
    """Number of glyphs on each text line, in reading order."""
    return [
        sum(len(span.get("chars", ())) for span in line.get("spans", ()))
        for block in page_dict.get("blocks", ())
        if block.get("type") == 0
        for line in block.get("lines", ())
    ]


def _align(rebuilt: str, rebuilt_glyph: Sequence[int], raw_text: str) -> list[int]:
    """Glyph of each character of ``raw_text`` by aligning it with the text rebuilt from glyphs."""
    raw_glyph = [NO_GLYPH] * len(raw_text)
    matcher = difflib.SequenceMatcher(None, rebuilt, raw_text, autojunk=False)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            raw_glyph[block.b + offset] = rebuilt_glyph[block.a + offset]
    return raw_glyph


@dataclass(frozen=True, eq=False)
class PageLayout:
    """Per character of a PDF document's text: its page, glyph and box; and the PDF to draw.

    Attributes:
        source: the PDF's bytes (the page view renders from them).
        page_sizes: (width, height) of every page in PDF points.
        page: 0-based page of every character of ``Document.text``.
        glyph: glyph index on that page (see :func:`page_glyphs`), ``-1`` for a line break.
        boxes: (x0, y0, x1, y1) of the glyph in points, NaN where there is none.
    """

    source: bytes
    page_sizes: tuple[tuple[float, float], ...]
    page: np.ndarray
    glyph: np.ndarray
    boxes: np.ndarray

    @classmethod
    def from_pages(cls, source: bytes, pages: Sequence[PageText]) -> PageLayout:
        page_index = np.concatenate(
            [np.full(len(p.text), number, dtype=np.int32) for number, p in enumerate(pages)] or [np.zeros(0, np.int32)]
        )
        glyph = np.array([g for p in pages for g in p.glyphs], dtype=np.int32)
        boxes = np.array([b for p in pages for b in p.boxes], dtype=np.float32).reshape(-1, 4)
        return cls(source, tuple(p.size for p in pages), page_index, glyph, boxes)


def build_layout(source: bytes, text: str, page_starts: Sequence[int]) -> PageLayout:
    """The layout of a PDF whose cleaned text is ``text`` (pages starting at ``page_starts``).

    Reads every page's glyphs; a page that cannot be read, or whose glyph text does not match
    the document's (it should always), keeps its characters without boxes, so the rest of the
    document still gets highlights.
    """
    from rse_core.documents.pymupdf_import import import_pymupdf  # without the add-ons that load onnxruntime

    pymupdf = import_pymupdf()

    ends = [*page_starts[1:], len(text)]
    pages: list[PageText] = []
    with pymupdf.open(stream=source, filetype="pdf") as pdf:
        for number, (start, end) in enumerate(zip(page_starts, ends, strict=True)):
            expected = text[start:end]
            try:
                page = read_page(pdf.load_page(number))
            except Exception:  # a damaged page: no boxes for it
                page = PageText("", (), (), (0.0, 0.0))
            if page.text + "\n" == expected:  # the newline added at load between pages
                page = PageText(expected, (*page.glyphs, NO_GLYPH), (*page.boxes, _NO_BOX), page.size)
            if page.text != expected:
                page = PageText(expected, (NO_GLYPH,) * len(expected), (_NO_BOX,) * len(expected), page.size)
            pages.append(page)
    return PageLayout.from_pages(source, pages)
