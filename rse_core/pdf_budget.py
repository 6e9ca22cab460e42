"""How much drawing a PDF page asks for, measured before any text is extracted.

A Form XObject is a content stream a page (or another form) can draw by name with ``Do``, any
number of times. Nest a few forms that each draw the next ten times and a 2 KB file makes
PyMuPDF interpret the same text operators 10^8 times: minutes inside C code and gigabytes of
memory, out of reach of any check between pages. What bounds that work is the size of the
content once every ``Do`` is expanded, and that is cheap to compute without interpreting
anything: each stream is read once (its size and how many ``Do`` it contains) and the expansion
is summed over the form graph with memoisation, so 2,000 pages sharing one stream cost one read.

The estimate is an upper bound: every ``Do`` in a stream is charged for the largest form its
resources can reach (names are not matched), so an unusual but honest file can only be
over-estimated, never under. Streams are inflated with a size cap, so a compressed stream that
inflates to gigabytes is refused after reading the cap, not after filling memory.
Not covered: Type3 font glyph procedures and tiling patterns, which also run content streams;
the wall-clock and character budgets in :mod:`rse_core.documents` still bound those between pages.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

DO_COST = 256
"""Bytes charged per ``Do`` on top of the form it draws: the interpreter saves state, looks the
name up and sets up the form even when the form is empty."""

MAX_NESTING = 64
"""Deepest chain of forms drawing forms that is measured; deeper counts as over the limit."""

_DO = re.compile(rb"(?<![A-Za-z0-9#])Do(?![A-Za-z0-9#])")
_REFERENCE = re.compile(r"(\d+)\s+\d+\s+R")


class ContentBudgetExceeded(Exception):
    """Internal: the expansion passed ``limit``; carries the bytes counted so far."""

    def __init__(self, counted: int) -> None:
        super().__init__(counted)
        self.counted = counted


@dataclass
class ContentMeter:
    """Expanded content size of pages of one open PDF, memoised per stream and per form.

    Args:
        pdf: an open ``pymupdf.Document``.
        limit: stop (raise :class:`ContentBudgetExceeded`) as soon as one page's expansion
            passes this many bytes; also the cap on inflating a single stream.
    """

    pdf: object
    limit: int
    _forms: dict[int, int] = field(default_factory=dict)
    _streams: dict[int, tuple[int, int]] = field(default_factory=dict)

    def page_bytes(self, page_number: int) -> int:
        """Content bytes page ``page_number`` (0-based) expands to, every ``Do`` drawn out."""
        pdf = self.pdf
        page = pdf.load_page(page_number)
        page_xref, contents = page.xref, page.get_contents()
        children = self._xobjects(_resources_owner(pdf, page_xref))
        total = 0
        for xref in contents:
            size, draws = self._stream(xref)
            total += size + draws * (DO_COST + self._largest(children, ()))
            if total > self.limit:
                raise ContentBudgetExceeded(total)
        return total

    def _largest(self, children: list[int], path: tuple[int, ...]) -> int:
        return max((self._form(xref, path) for xref in children), default=0)

    def _form(self, xref: int, path: tuple[int, ...]) -> int:
        if xref in self._forms:
            return self._forms[xref]
        if xref in path:  # a form that draws itself: PyMuPDF stops the cycle, so charge nothing more
            return 0
        if len(path) >= MAX_NESTING:  # no honest file nests forms this deep; refuse rather than recurse
            raise ContentBudgetExceeded(self.limit + 1)
        pdf = self.pdf
        if pdf.xref_get_key(xref, "Subtype")[1] != "/Form":
            self._forms[xref] = 0  # an image: no operators to interpret
            return 0
        size, draws = self._stream(xref)
        total = size
        if draws:
            total += draws * (DO_COST + self._largest(self._xobjects(xref), (*path, xref)))
        if total > self.limit:
            raise ContentBudgetExceeded(total)
        self._forms[xref] = total
        return total

    def _xobjects(self, owner: int | None) -> list[int]:
        """Every XObject the resources of object ``owner`` name (a page's may be inherited)."""
        if owner is None:
            return []
        kind, value = self.pdf.xref_get_key(owner, "Resources/XObject")
        if kind == "xref":
            kind, value = "dict", self.pdf.xref_object(int(value.split()[0]), compressed=True)
        return [int(number) for number in _REFERENCE.findall(value)] if kind == "dict" else []

    def _stream(self, xref: int) -> tuple[int, int]:
        """(inflated size, number of ``Do``) of stream ``xref``, inflating at most ``limit`` bytes."""
        if xref not in self._streams:
            data = _read_stream(self.pdf, xref, self.limit)
            self._streams[xref] = (len(data), len(_DO.findall(data)))
        size, draws = self._streams[xref]
        if size > self.limit:
            raise ContentBudgetExceeded(size)
        return size, draws


def _read_stream(pdf, xref: int, limit: int) -> bytes:
    """The decoded stream, or its first ``limit + 1`` bytes when it inflates past ``limit``.

    Flate (almost every content stream) is inflated here with a cap; other filters are rare for
    content and left to PyMuPDF.
    """
    kind, value = pdf.xref_get_key(xref, "Filter")
    if kind == "name" and value == "/FlateDecode" and pdf.xref_get_key(xref, "DecodeParms")[0] == "null":
        raw = pdf.xref_stream_raw(xref) or b""
        try:
            return zlib.decompressobj().decompress(raw, limit + 1)
        except zlib.error:
            pass  # damaged: let PyMuPDF apply its own repairs
    try:
        return pdf.xref_stream(xref) or b""
    except Exception:  # a damaged stream draws nothing; text extraction will say so
        return b""


def _resources_owner(pdf, page_xref: int) -> int | None:
    """The object whose /Resources apply to the page: itself, or the nearest ancestor."""
    xref, seen = page_xref, set()
    while xref not in seen:
        seen.add(xref)
        if pdf.xref_get_key(xref, "Resources")[0] != "null":
            return xref
        kind, value = pdf.xref_get_key(xref, "Parent")
        if kind != "xref":
            return None
        xref = int(value.split()[0])
    return None
