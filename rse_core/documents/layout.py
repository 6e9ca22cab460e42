"""Where every character of a PDF document's text sits on its page, kept at extraction.

A segment is a range of character offsets into ``Document.text``. To show it on the PDF page the
app must know, for each of those offsets, which glyph on which page it came from: searching the
page for the segment's words fails on repeated phrases and on text that cleaning changed. So
:func:`read_page` walks PyMuPDF's ``rawdict`` (one entry per glyph, with its box) next to the
plain text the document is built from, and :func:`clean_text_with_origins` carries each glyph
through text cleaning. Line breaks and the page-end newline have no glyph (index ``-1``).
"""

from __future__ import annotations

import bisect
import difflib
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.documents.cleaning import clean_text_with_origins
from rse_core.errors import PageViewTooLargeError
from rse_core.validation import env_number

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


DEFAULT_MAX_GLYPHS = 2_000_000
"""Characters whose glyph and box the page view keeps per document (``RSE_MAX_GLYPHS``): 48 MB of
arrays. Reading glyphs costs ~75,000 characters a second here, so only the pages shown are read."""
MAX_GLYPHS_VARIABLE = "RSE_MAX_GLYPHS"


def max_glyphs_from_environment(environ: Mapping[str, str] | None = None) -> int:
    """``RSE_MAX_GLYPHS`` (a whole number above 0), or the default."""
    return int(env_number(MAX_GLYPHS_VARIABLE, DEFAULT_MAX_GLYPHS, environ=environ, whole=True))


@dataclass(frozen=True)
class PageGlyphs:
    """One page's glyph index and box for each character of its slice of ``Document.text``."""

    glyph: np.ndarray  # int32, NO_GLYPH for a line break
    boxes: np.ndarray  # float32 (n, 4), NaN where there is no glyph
    size: tuple[float, float]


class PageLayout:
    """Per character of a PDF document's text: its page, glyph and box; and the PDF to draw.

    Glyphs are read page by page when first asked for, and at most ``max_glyphs`` characters'
    worth are kept (least recently used pages go first): a 2,000-page upload within every load
    limit once held 2.5 GB and took a minute when every page was read up front.

    Attributes:
        source: the PDF's bytes (the page view renders from them).
        page_starts: where each page's text starts in ``Document.text``.
        max_glyphs: the bound on characters held (``RSE_MAX_GLYPHS``).
    """

    def __init__(self, source: bytes, text: str, page_starts: Sequence[int], max_glyphs: int | None = None) -> None:
        self.source = source
        self.page_starts = tuple(page_starts)
        self.max_glyphs = max_glyphs_from_environment() if max_glyphs is None else max_glyphs
        self._text = text
        self._ends = (*self.page_starts[1:], len(text))
        self._pages: OrderedDict[int, PageGlyphs] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()  # the samples' documents are shared between sessions

    @property
    def page_count(self) -> int:
        return len(self.page_starts)

    @property
    def text_length(self) -> int:
        return len(self._text)

    @property
    def page_sizes(self) -> Sequence[tuple[float, float]]:
        """(width, height) of every page in PDF points, read when asked for."""
        return _PageSizes(self)

    def page_of(self, char_index: int) -> int:
        """0-based page of the character at ``char_index``."""
        return max(0, bisect.bisect_right(self.page_starts, char_index) - 1)

    def page_span(self, number: int) -> tuple[int, int]:
        """Characters ``start, end`` of 0-based page ``number`` in ``Document.text``."""
        return self.page_starts[number], self._ends[number]

    def page_glyphs(self, number: int) -> PageGlyphs:
        """Glyphs of 0-based page ``number``, read now unless kept from before.

        Raises:
            PageViewTooLargeError: the page alone has more characters than ``max_glyphs``.
        """
        return self._load(range(number, number + 1))[0]

    def window(self, start: int, end: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(page, glyph, boxes) of the characters ``start:end``, reading only their pages.

        Raises:
            PageViewTooLargeError: those pages hold more characters than ``max_glyphs``.
        """
        end = min(end, len(self._text))
        if end <= start:
            return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros((0, 4), np.float32)
        first, last = self.page_of(start), self.page_of(end - 1)
        numbers = range(first, last + 1)
        pages, glyphs, boxes = [], [], []
        for number, data in zip(numbers, self._load(numbers), strict=True):
            page_start, page_end = self.page_span(number)
            cut = slice(max(start, page_start) - page_start, min(end, page_end) - page_start)
            glyphs.append(data.glyph[cut])
            boxes.append(data.boxes[cut])
            pages.append(np.full(len(glyphs[-1]), number, dtype=np.int32))
        return np.concatenate(pages), np.concatenate(glyphs), np.concatenate(boxes)

    @property
    def page(self) -> np.ndarray:
        """0-based page of every character (cheap: from ``page_starts`` alone)."""
        lengths = np.diff([*self.page_starts, len(self._text)])
        return np.repeat(np.arange(self.page_count, dtype=np.int32), lengths)

    @property
    def glyph(self) -> np.ndarray:
        """Glyph index of every character (reads every page; refused over ``max_glyphs``)."""
        return self.window(0, len(self._text))[1]

    @property
    def boxes(self) -> np.ndarray:
        """Box of every character (reads every page; refused over ``max_glyphs``)."""
        return self.window(0, len(self._text))[2]

    def _load(self, numbers: range) -> list[PageGlyphs]:
        needed = sum(self._ends[n] - self.page_starts[n] for n in numbers)
        if needed > self.max_glyphs:
            raise PageViewTooLargeError(
                f"Pages {numbers.start + 1}-{numbers.stop} hold {needed:,} characters; the page view keeps the "
                f"glyphs of at most {self.max_glyphs:,} ({MAX_GLYPHS_VARIABLE}). Show fewer pages, or read "
                "the segment's text instead."
            )
        with self._lock:
            missing = [n for n in numbers if n not in self._pages]
            if missing:
                for number, data in zip(missing, self._read(missing), strict=True):
                    self._pages[number] = data
                    self._held += len(data.glyph)
            found = []
            for number in numbers:
                self._pages.move_to_end(number)
                found.append(self._pages[number])
            while self._held > self.max_glyphs:  # the oldest pages first; never the ones just asked for
                _, dropped = self._pages.popitem(last=False)
                self._held -= len(dropped.glyph)
            return found

    def _read(self, numbers: Sequence[int]) -> list[PageGlyphs]:
        """Read the glyphs of the pages ``numbers``, the PDF opened once."""
        from rse_core.documents.pymupdf_import import import_pymupdf  # without the add-ons that load onnxruntime

        pymupdf = import_pymupdf()

        found = []
        with pymupdf.open(stream=self.source, filetype="pdf") as pdf:
            for number in numbers:
                start, end = self.page_span(number)
                found.append(_page_glyphs(pdf, number, self._text[start:end]))
        return found


class _PageSizes(Sequence):
    """Page sizes that read a page only when one is asked for (``len`` reads none)."""

    def __init__(self, layout: PageLayout) -> None:
        self._layout = layout

    def __len__(self) -> int:
        return self._layout.page_count

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        kept = self._layout._pages.get(index % len(self))
        if kept is not None:
            return kept.size
        from rse_core.documents.pymupdf_import import import_pymupdf

        with import_pymupdf().open(stream=self._layout.source, filetype="pdf") as pdf:
            rect = pdf.load_page(index % len(self)).rect
            return float(rect.width), float(rect.height)


def _page_glyphs(pdf, number: int, expected: str) -> PageGlyphs:
    """One page's glyphs as compact arrays; a page that cannot be read, or whose glyph text does not
    match the document's (it should always), keeps its characters without boxes."""
    try:
        pdf_page = pdf.load_page(number)
        size = (float(pdf_page.rect.width), float(pdf_page.rect.height))
        page = read_page(pdf_page)
    except Exception:  # a damaged page: no boxes for it
        page, size = PageText("", (), (), (0.0, 0.0)), (0.0, 0.0)
    if page.text + "\n" == expected:  # the newline added at load between pages
        page = PageText(expected, (*page.glyphs, NO_GLYPH), (*page.boxes, _NO_BOX), page.size)
    if page.text != expected:
        return PageGlyphs(
            np.full(len(expected), NO_GLYPH, dtype=np.int32), np.full((len(expected), 4), np.nan, np.float32), size
        )
    glyph = np.array(page.glyphs, dtype=np.int32)
    boxes = np.array(page.boxes, dtype=np.float32).reshape(-1, 4)
    return PageGlyphs(glyph, boxes, size)


def build_layout(source: bytes, text: str, page_starts: Sequence[int]) -> PageLayout:
    """The layout of a PDF whose cleaned text is ``text`` (pages starting at ``page_starts``).

    Nothing is read yet: each page's glyphs are read the first time the page view needs them.
    """
    return PageLayout(source, text, page_starts)
