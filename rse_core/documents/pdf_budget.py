"""How much drawing a PDF page asks for, measured before any text is extracted.

A Form XObject is a content stream a page (or another form) can draw by name with ``Do``, any
number of times. Nest a few forms that each draw the next ten times and a 2 KB file makes
PyMuPDF interpret the same text operators 10^8 times: minutes inside C code and gigabytes of
memory, out of reach of any check between pages. What bounds that work is the size of the
content once every reuse is expanded, and that is cheap to compute without interpreting
anything: each stream is read once and the expansion is summed over the graph of streams with
memoisation, so 2,000 pages sharing one stream cost one read.

Opening a page walks its graph of XObject resources (each entry costs a little, see
:data:`LINK_COST`), and PyMuPDF's text extraction runs four kinds of content streams, all measured (``bench/`` and
``tests/core/test_hostile_limits.py`` show each one growing tenfold per nesting level otherwise):
the page's contents, Form XObjects (``Do``), tiling patterns (run for every fill or text drawn
while one is the colour), Type3 glyph procedures (run for every character shown in such a font),
and annotation appearance streams.

The estimate is an upper bound: every ``Do`` is charged for the largest form the resources can
reach (names are not matched), every painting operator for the largest tiling pattern, every
byte of a shown string for the largest glyph procedure, so an unusual but honest file can only
be over-estimated. Streams are inflated with a size cap, so a compressed stream that inflates to
gigabytes is refused after reading the cap, not after filling memory.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

DO_COST = 256
"""Bytes charged per ``Do`` (or pattern fill, or Type3 glyph) on top of the stream it runs: the
interpreter saves state, looks the name up and sets the stream up even when it is empty."""

MAX_NESTING = 64
"""Deepest chain of streams running streams that is measured; deeper counts as over the limit."""

LINK_COST = 32
"""Bytes charged per entry of an XObject resource dictionary reachable from a page. Opening a
page (``load_page``, before any text) walks that graph to see whether the page uses
transparency, once per form that lists the entries: 2,000 forms each listing the 2,000 forms
took 2.5 to 11 s there (0.6-2.7 microseconds an entry). Counting entries costs about as much
here, so the 8 MB page budget stops the count at 250,000 entries, well under a second."""

MAX_STEPS = 2_000_000
"""Most (stream, resource) pairs the measure itself visits per document (about a second) at the
default budgets: a file whose thousands of forms each list thousands of forms counts as over the
limit too. A larger ``limit`` (a trusted file) allows proportionally more."""

_DO = re.compile(rb"(?<![A-Za-z0-9#*])Do(?![A-Za-z0-9#*])")
# Operators that paint with the current colour (a tiling pattern runs once per use): fills,
# strokes, shadings and every text-showing operator.
_PAINT = re.compile(rb"(?<![A-Za-z0-9#*'\"])(?:f\*?|F|B\*?|b\*?|S|s|sh|Tj|TJ|'|\")(?![A-Za-z0-9#*])")
_STRING_TOKENS = re.compile(rb"\\.|[()]|<<|>>|[<>]|%[^\r\n]*", re.DOTALL)
_REFERENCE = re.compile(r"(\d+)\s+\d+\s+R")

Resources = tuple[int, str]
"""Where a stream's resources are: (object number, key path), e.g. ``(12, "Resources")`` or, for
a Type3 font written inline, ``(12, "Resources/Font/T1/Resources")``."""


class ContentBudgetExceeded(Exception):
    """Internal: the expansion passed ``limit``; carries the bytes counted so far."""

    def __init__(self, counted: int) -> None:
        super().__init__(counted)
        self.counted = counted


@dataclass
class _Scan:
    """What a stream asks for. ``paints`` and ``shown`` are counted only when a tiling pattern
    or a Type3 font could make them cost something (the stream is then read again)."""

    size: int
    draws: int
    paints: int | None = None
    shown: int | None = None


@dataclass
class ContentMeter:
    """Expanded content size of pages of one open PDF, memoised per stream.

    Args:
        pdf: an open ``pymupdf.Document``.
        limit: stop (raise :class:`ContentBudgetExceeded`) as soon as one page's expansion
            passes this many bytes; also the cap on inflating a single stream.
    """

    pdf: object
    limit: int
    _costs: dict[tuple[int, Resources], int] = field(default_factory=dict)
    _scans: dict[int, _Scan] = field(default_factory=dict)
    _children: dict[tuple[Resources, str], tuple[int, ...]] = field(default_factory=dict)
    _procedures: dict[Resources, list[tuple[int, Resources]]] = field(default_factory=dict)
    _types: dict[tuple[int, str], str | None] = field(default_factory=dict)
    _object_refs: dict[int, list[int]] = field(default_factory=dict)
    _steps: int = 0

    def page_bytes(self, page_number: int) -> int:
        """Content bytes page ``page_number`` (0-based) expands to, every reuse drawn out."""
        pdf = self.pdf
        page_xref = pdf.page_xref(page_number)  # not load_page: opening the page is itself costly
        owner = _resources_owner(pdf, page_xref)
        resources = (owner, "Resources") if owner is not None else (page_xref, "Resources")
        total = LINK_COST * self._links(resources)
        self._check(total)
        for xref in self._contents(page_xref):
            total += self._run(xref, resources, ())
            self._check(total)
        for xref in self._appearances(page_xref):
            total += DO_COST + self._form(xref, resources, ())
            self._check(total)
        return total

    def _links(self, resources: Resources) -> int:
        """Entries of every XObject dictionary reachable from ``resources``, counted once per
        form that lists them (what PyMuPDF walks when it opens the page)."""
        links, stack, seen = 0, [resources], set()
        while stack:
            current = stack.pop()
            children = self._refs(current, "XObject")
            links += len(children)
            self._step(len(children))
            self._check(LINK_COST * links)
            for child in children:
                if child not in seen and self._key(child, "Subtype") == "/Form":
                    seen.add(child)
                    stack.append((child, "Resources") if self._has_resources(child) else current)
        return links

    def _contents(self, page_xref: int) -> list[int]:
        kind, value = self.pdf.xref_get_key(page_xref, "Contents")
        if kind == "xref":
            number = int(value.split()[0])
            return [number] if self.pdf.xref_is_stream(number) else self._refs_at(number, "")
        return [int(n) for n in _REFERENCE.findall(value)] if kind == "array" else []

    def _step(self, count: int) -> None:
        self._steps += count
        if self._steps > max(MAX_STEPS, self.limit // LINK_COST):
            raise ContentBudgetExceeded(self.limit + 1)

    def _check(self, counted: int) -> None:
        if counted > self.limit:
            raise ContentBudgetExceeded(counted)

    def _run(self, xref: int, resources: Resources, path: tuple[int, ...]) -> int:
        """Cost of interpreting stream ``xref`` with ``resources``, every reuse expanded."""
        key = (xref, resources)
        if key in self._costs:
            return self._costs[key]
        if xref in path:  # a stream that runs itself: PyMuPDF stops the cycle, so charge nothing more
            return 0
        if len(path) >= MAX_NESTING:  # no honest file nests this deep; refuse rather than recurse
            raise ContentBudgetExceeded(self.limit + 1)
        scan = self._scan(xref)
        inner = (*path, xref)
        self._step(1)
        cost = scan.size
        if scan.draws:
            forms = self._refs(resources, "XObject")
            self._step(len(forms))
            cost += scan.draws * (DO_COST + max((self._form(f, resources, inner) for f in forms), default=0))
        patterns = [p for p in self._refs(resources, "Pattern") if self._key(p, "PatternType") == "1"]
        self._step(len(patterns))
        if patterns and self._counts(xref).paints:
            largest = max(self._run(p, (p, "Resources"), inner) for p in patterns)
            cost += self._counts(xref).paints * (DO_COST + largest)
        procedures = self._glyph_procedures(resources)
        self._step(len(procedures))
        if procedures and self._counts(xref).shown:
            largest = max(self._run(proc, font, inner) for proc, font in procedures)
            cost += self._counts(xref).shown * (DO_COST + largest)
        self._check(cost)
        self._costs[key] = cost
        return cost

    def _form(self, xref: int, caller: Resources, path: tuple[int, ...]) -> int:
        """Cost of drawing XObject ``xref``: an image draws no operators; a form without its
        own resources uses its caller's, as PyMuPDF does."""
        if self._key(xref, "Subtype") != "/Form":
            return 0
        return self._run(xref, (xref, "Resources") if self._has_resources(xref) else caller, path)

    def _has_resources(self, xref: int) -> bool:
        return self._key(xref, "Resources") is not None

    def _glyph_procedures(self, resources: Resources) -> list[tuple[int, Resources]]:
        """(glyph procedure, its font's resources) of every Type3 font in ``resources``."""
        if resources not in self._procedures:
            self._procedures[resources] = self._find_glyph_procedures(resources)
        return self._procedures[resources]

    def _find_glyph_procedures(self, resources: Resources) -> list[tuple[int, Resources]]:
        owner, prefix = resources
        kind, value = self.pdf.xref_get_key(owner, f"{prefix}/Font")
        if kind == "xref":
            value = self.pdf.xref_object(int(value.split()[0]), compressed=True)
        elif kind != "dict":
            return []
        found = []
        for font in (int(number) for number in _REFERENCE.findall(value)):  # fonts are shared: cached
            if self._key(font, "Subtype") == "/Type3":
                found += [(proc, (font, "Resources")) for proc in self._refs_at(font, "CharProcs")]
        if "<<" not in value[2:]:
            return found
        for name in self._names(resources, "Font"):  # a font written inline: rare, looked up by name
            where = f"{prefix}/Font/{name}"
            kind, value = self.pdf.xref_get_key(owner, where)
            if kind == "dict" and self.pdf.xref_get_key(owner, f"{where}/Subtype")[1] == "/Type3":
                procs = self._refs_at(owner, f"{where}/CharProcs")
                font_resources = (owner, f"{where}/Resources")
            else:
                continue
            found += [(proc, font_resources) for proc in procs]
        return found

    def _appearances(self, page_xref: int) -> list[int]:
        """Appearance streams of the page's annotations (every state: an upper bound)."""
        streams = []
        for annotation in self._refs_at(page_xref, "Annots"):
            for state in ("N", "R", "D"):
                kind, value = self.pdf.xref_get_key(annotation, f"AP/{state}")
                if kind == "xref":
                    number = int(value.split()[0])
                    streams += [number] if self.pdf.xref_is_stream(number) else self._refs_at(number, "")
                elif kind == "dict":
                    streams += [int(n) for n in _REFERENCE.findall(value)]
        return streams

    def _refs(self, resources: Resources, category: str) -> tuple[int, ...]:
        """Object numbers named in the ``category`` dictionary of ``resources``."""
        key = (resources, category)
        if key not in self._children:
            owner, prefix = resources
            self._children[key] = tuple(self._refs_at(owner, f"{prefix}/{category}"))
        return self._children[key]

    def _refs_at(self, xref: int, path: str) -> list[int]:
        """References in the value at ``path`` of object ``xref`` (an indirect value is parsed
        once, however many objects point at it)."""
        kind, value = self.pdf.xref_get_key(xref, path) if path else ("xref", f"{xref} 0 R")
        if kind == "xref":
            number = int(value.split()[0])
            if number not in self._object_refs:
                text = self.pdf.xref_object(number, compressed=True)
                self._object_refs[number] = [int(n) for n in _REFERENCE.findall(text)]
            return self._object_refs[number]
        if kind not in ("dict", "array"):
            return []
        return [int(number) for number in _REFERENCE.findall(value)]

    def _names(self, resources: Resources, category: str) -> list[str]:
        """Top-level keys of the ``category`` dictionary of ``resources`` (e.g. font names)."""
        owner, prefix = resources
        kind, value = self.pdf.xref_get_key(owner, f"{prefix}/{category}")
        if kind == "xref":
            value = self.pdf.xref_object(int(value.split()[0]), compressed=True)
        elif kind != "dict":
            return []
        names, depth, position = [], 0, 0
        for match in re.finditer(r"<<|>>|/[^\s/<>\[\]()%{}]+", value):
            token = match.group()
            if token == "<<":
                depth += 1
            elif token == ">>":
                depth -= 1
            elif depth == 1 and match.start() >= position:
                names.append(token[1:])
                position = _skip_value(value, match.end())
        return names

    def _key(self, xref: int, key: str) -> str | None:
        if (xref, key) not in self._types:
            kind, value = self.pdf.xref_get_key(xref, key)
            self._types[(xref, key)] = None if kind == "null" else value
        return self._types[(xref, key)]

    def _scan(self, xref: int) -> _Scan:
        if xref not in self._scans:
            data = _read_stream(self.pdf, xref, self.limit)
            self._check(len(data))
            self._scans[xref] = _Scan(len(data), len(_DO.findall(data)))
        return self._scans[xref]

    def _counts(self, xref: int) -> _Scan:
        """The scan of ``xref`` with its painting operators and shown bytes counted."""
        scan = self._scan(xref)
        if scan.paints is None:
            data = _read_stream(self.pdf, xref, self.limit)
            scan.paints, scan.shown = len(_PAINT.findall(data)), _shown(data)
        return scan


def _skip_value(text: str, start: int) -> int:
    """Index just past the value that starts at ``text[start:]`` (a name, number, ref or dict)."""
    match = re.compile(r"\s*(<<|\d+\s+\d+\s+R|/[^\s/<>\[\]()%{}]+|\S+)").match(text, start)
    if match is None:
        return start
    if match.group(1) != "<<":
        return match.end()
    depth, position = 0, match.start(1)
    for token in re.finditer(r"<<|>>", text[position:]):
        depth += 1 if token.group() == "<<" else -1
        if depth == 0:
            return position + token.end()
    return len(text)


def _shown(data: bytes) -> int:
    """Bytes inside string literals and hex strings: at most that many characters are shown.

    Only the delimiters are visited (a regex finds them), so a megabyte of content costs a few
    thousand steps. Unbalanced parentheses (binary image data) count the rest as string, which
    over-estimates, never under.
    """
    total = depth = 0
    opened = hex_open = -1
    for token in _STRING_TOKENS.finditer(data):
        text = token.group()
        if depth:
            if text == b"(":
                depth += 1
            elif text == b")":
                depth -= 1
                if not depth:
                    total += token.start() - opened - 1
            continue
        if hex_open >= 0:
            if text == b">":
                total += (token.start() - hex_open) // 2
                hex_open = -1
            continue
        if text == b"(":
            depth, opened = 1, token.start()
        elif text == b"<":
            hex_open = token.start()
    if depth:
        total += len(data) - opened
    return total


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
    except Exception:  # not a stream, or a damaged one: it draws nothing; extraction will say so
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
