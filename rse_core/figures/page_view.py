"""Show a segment or chunk on its document's pages, highlighting exactly its characters.

Highlights come from the glyph boxes kept at extraction (:mod:`rse_core.documents.layout`), indexed by
the same character offsets as segments and chunks: no text search, so a phrase that repeats
elsewhere is never marked by mistake. Each kind of mark has its own style:

- ``segment``: chunks of a segment with a positive value (blue);
- ``gap``: negative chunks *between* positive ones, the gapped cluster top-k drops (amber);
- ``padding``: negative chunks at a segment's start or end, kept as edge padding (light blue);
- ``top_k``: top-k chunks, underlined with their rank (orange), so they show on top of a segment;
- ``gold``: a gold span being marked for a golden set (purple), over everything else.

Pages are rendered with PyMuPDF to PNG, each within a painting budget (:class:`PaintCost`): a
page whose drawing would cost more is drawn at a lower resolution or, if even that is too costly,
replaced by an image saying so. Text and Markdown documents get the same marks as
escaped HTML. :func:`~rse_core.documents.reflow.reflow` (re-exported here) joins a PDF's hard line
breaks for reading only, the same way as the segment panel.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.documents import Document
from rse_core.documents.layout import NO_GLYPH
from rse_core.documents.reflow import reflow as reflow  # re-exported: the page view panel reads it here
from rse_core.errors import PageViewTooLargeError, RSEError
from rse_core.figures.style import PALETTE
from rse_core.pipeline import ExtractedSegment, ExtractionResult
from rse_core.validation import env_number

SEGMENT, GAP, PADDING, TOP_K, GOLD = "segment", "gap", "padding", "top_k", "gold"
STYLES = (SEGMENT, GAP, PADDING, TOP_K, GOLD)
MIN_ZOOM, MAX_ZOOM = 0.1, 4.0
DEFAULT_MAX_PAGE_PIXELS = 12_000_000
"""Pixels of one rendered page (``RSE_MAX_PAGE_PIXELS``): 36 MB as RGB. An A4 page at the page
view's highest zoom (4) takes 8 million, so only oversized pages are scaled down."""
MAX_PAGE_PIXELS_VARIABLE = "RSE_MAX_PAGE_PIXELS"
DEFAULT_MAX_PAGE_PAINT = 150_000_000
"""Pixels one page's drawing may paint (``RSE_MAX_PAGE_PAINT``), each operation's bounding box
counted at the zoom drawn, plus :data:`PAINT_PER_OPERATION` each: under a second of rasterising
on a busy 2-core server (measured: 3-5 ns a painted pixel). The pages of the bundled samples and
the external corpus cost at most 36 million at zoom 1.5; a page of 7,000 thick page-wide strokes
(a 0.25 MB content stream that took 29 s) costs 3.5 billion at zoom 1 and is refused; 2,000 are
drawn at a fifth of the resolution."""
MAX_PAGE_PAINT_VARIABLE = "RSE_MAX_PAGE_PAINT"
PAINT_PER_OPERATION = 20_000
"""What one drawing operation costs however small it is drawn (stroking, edge lists), in pixels:
page-wide strokes measured 75 microseconds each even at zoom 0.05."""
MIN_DRAWN_ZOOM = 0.1
"""Below this a page is not worth drawing: it is refused instead of drawn smaller."""
NOTICE_ZOOM = 0.6
"""Highest zoom a refusal's notice is drawn at: it says one sentence, and a refused page asked for
again at a new zoom gets a new notice, made by the server itself (a few milliseconds)."""
THUMBNAIL_ZOOM = 0.2
MAX_THUMBNAILS = 60

# (fill colour or None, stroke colour or None, fill opacity)
_PDF_STYLE: dict[str, tuple[str | None, str | None, float]] = {
    SEGMENT: (PALETTE.segment, None, 0.22),
    GAP: (PALETTE.gap_fill, PALETTE.gap, 0.55),
    PADDING: ("#93c5fd", None, 0.25),
    TOP_K: (None, PALETTE.top_k, 1.0),
    GOLD: (PALETTE.gold, PALETTE.gold, 0.28),
}
STYLE_LABELS = {
    SEGMENT: "segment (its chunks worth zero or more)",
    GAP: "inner gap: a chunk below zero between kept ones",
    PADDING: "edge padding: a chunk below zero at a segment's end",
    TOP_K: "top-k chunk (underlined, with its rank)",
    GOLD: "the gold span being marked",
}


class PageViewError(RSEError):
    """The page view cannot draw what was asked (no pages to render, a page out of range)."""


@dataclass(frozen=True)
class Mark:
    """Characters ``start:end`` of one document, drawn in ``style`` and labelled ``label``."""

    doc_id: str
    start: int
    end: int
    style: str
    label: str = ""


def segment_marks(result: ExtractionResult, segment: ExtractedSegment) -> list[Mark]:
    """One mark per chunk of ``segment``: positive chunks, inner gaps and edge padding.

    A negative chunk is a gap when positive chunks lie on both sides of it within the segment,
    and edge padding otherwise (it sits between the segment's edge and its first or last
    positive chunk).
    """
    values = result.values[segment.query].value
    positive = [index for index in range(segment.start, segment.end) if values[index] >= 0]
    first, last = (positive[0], positive[-1]) if positive else (segment.end, segment.start - 1)
    marks = []
    for index in range(segment.start, segment.end):
        chunk = result.corpus.chunks[index]
        if values[index] >= 0:
            style = SEGMENT
        else:
            style = GAP if first < index < last else PADDING
        marks.append(Mark(chunk.doc_id, chunk.start, chunk.end, style, segment.label))
    return marks


def top_k_marks(result: ExtractionResult, indices: Iterable[int]) -> list[Mark]:
    """An outline mark for every top-k chunk, labelled with its rank."""
    marks = []
    for rank, index in enumerate(indices, 1):
        chunk = result.corpus.chunks[index]
        marks.append(Mark(chunk.doc_id, chunk.start, chunk.end, TOP_K, f"#{rank}"))
    return marks


def all_marks(result: ExtractionResult, top_k: Sequence[int] | None = None) -> list[Mark]:
    """Every segment's marks, then the top-k outlines (default: ``result.top_k``)."""
    marks = [mark for segment in result.segments for mark in segment_marks(result, segment)]
    return marks + top_k_marks(result, result.top_k if top_k is None else top_k)


def pages_of(document: Document, marks: Iterable[Mark]) -> list[int]:
    """1-based pages the marks of ``document`` touch, in order."""
    pages: set[int] = set()
    for mark in marks:
        if mark.doc_id == document.doc_id and mark.end > mark.start:
            first, last = document.pages_of_span(mark.start, mark.end)
            pages.update(range(first, last + 1))
    return sorted(pages)


def highlighted_glyphs(document: Document, start: int, end: int) -> dict[int, list[int]]:
    """1-based page -> glyph indices (see :func:`~rse_core.documents.layout.page_glyphs`) of the
    characters ``start:end`` that have a glyph, in text order. Line breaks have none; the two
    letters of an expanded ligature share one glyph, listed once."""
    pages, glyphs, _ = _layout(document).window(start, end)
    found: dict[int, list[int]] = {}
    for page, glyph in zip(pages.tolist(), glyphs.tolist(), strict=True):
        if glyph != NO_GLYPH:
            listed = found.setdefault(page + 1, [])
            if not listed or listed[-1] != glyph:
                listed.append(glyph)
    return found


def line_rects(document: Document, start: int, end: int, page: int) -> list[tuple[float, float, float, float]]:
    """Boxes of characters ``start:end`` on 1-based ``page``, merged along each text line.

    Merging keeps a highlight one clean bar per line instead of one box per letter.
    """
    layout = _layout(document)
    page_start, page_end = layout.page_span(page - 1)
    start, end = max(start, page_start), min(end, page_end)
    if end <= start:
        return []
    data = layout.page_glyphs(page - 1)  # only this page's glyphs are read
    window = slice(start - page_start, end - page_start)
    boxes = data.boxes[window][data.glyph[window] != NO_GLYPH]
    rects: list[list[float]] = []
    for x0, y0, x1, y1 in boxes.tolist():
        if any(math.isnan(v) for v in (x0, y0, x1, y1)):
            continue
        if rects:
            last = rects[-1]
            same_line = abs(last[1] - y0) < 0.5 * (y1 - y0 + 1e-6) and abs(last[3] - y1) < 0.5 * (y1 - y0 + 1e-6)
            if same_line and x0 >= last[0] - 1 and x0 - last[2] < 3 * (y1 - y0 + 1):
                last[0], last[1] = min(last[0], x0), min(last[1], y0)
                last[2], last[3] = max(last[2], x1), max(last[3], y1)
                continue
        rects.append([x0, y0, x1, y1])
    return [tuple(rect) for rect in rects]  # type: ignore[misc]


def render_page(document: Document, page: int, marks: Sequence[Mark], zoom: float = 1.5) -> bytes:
    """PNG of 1-based ``page`` of a PDF with the marks of ``document`` drawn on it.

    Raises:
        PageViewError: the document is not a PDF, or the page does not exist.
    """
    return render_pages(document, [page], marks, zoom)[0]


def render_pages(
    document: Document,
    pages: Sequence[int],
    marks: Sequence[Mark],
    zoom: float = 1.5,
    max_page_pixels: int | None = None,
) -> list[bytes]:
    """PNGs of several pages.

    A page is drawn at ``zoom`` unless that would take more than ``max_page_pixels`` pixels
    (default ``RSE_MAX_PAGE_PIXELS``); then the zoom is lowered to fit, since a 3.5 KB PDF can
    declare a 200 x 200 inch page (2 GB of pixels at the usual zoom). The work is in two steps an
    app may run apart: :func:`page_drawings` (what to draw, from the glyph layout) and
    :func:`draw_pages` (PyMuPDF draws and encodes each page within its painting budget, from plain
    data: a worker process can).
    """
    drawings = page_drawings(document, pages, marks, zoom)
    max_pixels = max_page_pixels_from_environment() if max_page_pixels is None else max_page_pixels
    return draw_pages(_layout(document).source, drawings, zoom, max_pixels)


@dataclass(frozen=True)
class DrawingLimits:
    """The bounds on drawing one page: pixels of its image and pixels its drawing may paint."""

    max_pixels: int = DEFAULT_MAX_PAGE_PIXELS
    max_paint: int = DEFAULT_MAX_PAGE_PAINT

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> DrawingLimits:
        """``RSE_MAX_PAGE_PIXELS`` and ``RSE_MAX_PAGE_PAINT`` (whole numbers above 0), or the defaults."""
        paint = env_number(MAX_PAGE_PAINT_VARIABLE, DEFAULT_MAX_PAGE_PAINT, environ=environ, whole=True)
        return cls(max_page_pixels_from_environment(environ), int(paint))


@dataclass(frozen=True)
class PaintCost:
    """What rasterising a page costs, measured without rasterising it: PyMuPDF's bounding-box log
    lists every painting operation (fill, stroke, text, image, shading) with its box.

    Why: the content budget (:mod:`rse_core.documents.pdf_budget`) bounds bytes, and a few bytes
    can ask for a page-wide stroke 40 points thick; its cost is the area it covers, at the zoom drawn.
    """

    operations: int
    area: float
    """Square points the operations' boxes cover on the page (overlaps counted each time)."""
    width: float
    height: float
    """The page's size in points, which the image's size follows."""

    @classmethod
    def of_page(cls, pdf_page) -> PaintCost:
        bounds = pdf_page.rect
        area = 0.0
        log = pdf_page.get_bboxlog()
        for _, (x0, y0, x1, y1) in log:
            width = min(x1, bounds.x1) - max(x0, bounds.x0)
            height = min(y1, bounds.y1) - max(y0, bounds.y0)
            if width > 0 and height > 0:
                area += width * height
        return cls(len(log), area, bounds.width, bounds.height)

    def at(self, zoom: float) -> float:
        """Pixels painted when drawn at ``zoom``, each operation's fixed cost included."""
        return self.operations * PAINT_PER_OPERATION + self.area * zoom * zoom

    def affordable_zoom(self, zoom: float, max_paint: int) -> float:
        """``zoom``, or the highest lower zoom within ``max_paint`` (0: none at or above :data:`MIN_DRAWN_ZOOM`)."""
        if self.at(zoom) <= max_paint:
            return zoom
        left = max_paint - self.operations * PAINT_PER_OPERATION
        fitted = math.sqrt(left / self.area) if left > 0 and self.area > 0 else 0.0
        return fitted if fitted >= MIN_DRAWN_ZOOM else 0.0


@dataclass(frozen=True)
class DrawnPage:
    """One page as drawn: its PNG, the zoom it was drawn at and, when that is not the zoom asked
    for, why. A refused page's PNG is a blank page saying so, so any place that shows images
    shows the reason."""

    page: int
    png: bytes
    zoom: float
    """The zoom drawn at: the one asked for, a lower one the budget allows, or 0 (refused)."""
    cost: PaintCost
    note: str = ""

    @property
    def refused(self) -> bool:
        """Not drawn at all: over its budget even at :data:`MIN_DRAWN_ZOOM`."""
        return self.zoom == 0


@dataclass(frozen=True)
class PageDrawing:
    """What goes on one 1-based page, in drawing order: (style, the mark's line boxes, its label)."""

    page: int
    strokes: tuple[tuple[str, tuple[tuple[float, float, float, float], ...], str], ...]


def page_drawings(document: Document, pages: Sequence[int], marks: Sequence[Mark], zoom: float) -> list[PageDrawing]:
    """The marks of ``document`` on each of ``pages`` as line boxes, checked (zoom, page numbers).

    Fills first, outlines last, so a top-k outline is never hidden under a fill.

    Raises:
        PageViewError: the document is not a PDF, the zoom is out of range or a page does not exist.
    """
    layout = _layout(document)
    if not MIN_ZOOM <= zoom <= MAX_ZOOM:
        raise PageViewError(f"Zoom must be between {MIN_ZOOM:g} and {MAX_ZOOM:g}; got {zoom!r}.")
    for page in pages:
        if not 1 <= page <= layout.page_count:
            raise PageViewError(f"{document.name} has no page {page}; it has {layout.page_count}.")
    own = [mark for mark in marks if mark.doc_id == document.doc_id and mark.end > mark.start]
    # The pages each mark touches, once: a page is searched only for the marks on it (a strip of
    # thumbnails would otherwise scan every mark's characters once per page).
    spans = [_page_range(layout, mark) for mark in own]
    drawings = []
    for page in pages:
        on_page = [mark for mark, (first, last) in zip(own, spans, strict=True) if first <= page <= last]
        strokes = tuple(
            (style, tuple(line_rects(document, mark.start, mark.end, page)), mark.label)
            for style in (PADDING, SEGMENT, GAP, GOLD, TOP_K)  # fills first, outlines last: a top-k
            for mark in on_page  # underline is never hidden under a fill
            if mark.style == style
        )
        drawings.append(PageDrawing(page, strokes))
    return drawings


def draw_pages(source: bytes, drawings: Sequence[PageDrawing], zoom: float, max_pixels: int) -> list[bytes]:
    """PNGs of the PDF in ``source`` with each drawing's marks on its page (see :func:`render_pages`)."""
    limits = DrawingLimits(max_pixels, DrawingLimits.from_environment().max_paint)
    return [draw_page(source, drawing, zoom, limits).png for drawing in drawings]


def draw_page(source: bytes, drawing: PageDrawing, zoom: float, limits: DrawingLimits) -> DrawnPage:
    """The page of ``drawing`` with its marks, drawn within ``limits``: at ``zoom`` if its
    :class:`PaintCost` allows, else at the zoom it allows, else refused (:func:`refusal`).

    Raises:
        PageViewTooLargeError: the page's shape fits no image within ``limits.max_pixels``.
    """
    from rse_core.documents.pymupdf_import import import_pymupdf  # without the add-ons that load onnxruntime

    pymupdf = import_pymupdf()
    with pymupdf.open(stream=source, filetype="pdf") as pdf:
        pdf_page = pdf.load_page(drawing.page - 1)
        _draw_marks(pymupdf, pdf_page, drawing)
        cost = PaintCost.of_page(pdf_page)
        refused = refusal(drawing.page, cost, zoom, limits)
        if refused is not None:
            return refused
        scale = fitted_zoom(cost.width, cost.height, zoom, limits.max_pixels)
        affordable = cost.affordable_zoom(scale, limits.max_paint)
        pixmap = pdf_page.get_pixmap(matrix=pymupdf.Matrix(affordable, affordable), alpha=False)
        note = ""
        if affordable < scale:
            note = (
                f"Page {drawing.page} drawn at {affordable / scale:.0%} of the resolution asked for: its drawing "
                f"is costly ({cost.operations:,} operations; {MAX_PAGE_PAINT_VARIABLE})."
            )
        return DrawnPage(drawing.page, pixmap.tobytes("png"), affordable, cost, note)


def refusal(page: int, cost: PaintCost, zoom: float, limits: DrawingLimits) -> DrawnPage | None:
    """The refused ``page`` (an image of its shape saying why, cheap to make), if its ``cost`` is
    over ``limits`` even at :data:`MIN_DRAWN_ZOOM`; ``None`` if it can be drawn. Needs only the
    cost, so a page measured once is refused again without opening it."""
    scale = fitted_zoom(cost.width, cost.height, zoom, limits.max_pixels)
    if cost.affordable_zoom(scale, limits.max_paint):
        return None
    from rse_core.documents.pymupdf_import import import_pymupdf

    message = (
        f"Page {page} is too costly to draw ({cost.operations:,} drawing operations covering "
        f"{cost.area / max(cost.width * cost.height, 1.0):,.0f} times its area; {MAX_PAGE_PAINT_VARIABLE}). "
        "Read its text instead."
    )
    png = _notice_png(import_pymupdf(), cost.width, cost.height, min(scale, NOTICE_ZOOM), message)
    return DrawnPage(page, png, 0.0, cost, message)


def _draw_marks(pymupdf, pdf_page, drawing: PageDrawing) -> None:
    """The marks of ``drawing`` over the page's own content."""
    shape = pdf_page.new_shape()
    for style, rects, label in drawing.strokes:
        fill, stroke, opacity = _PDF_STYLE[style]
        for rect in rects:
            box = pymupdf.Rect(rect)
            if style == TOP_K:  # an underline: it shows on top of any fill, hides no text
                shape.draw_line((box.x0, box.y1 + 0.8), (box.x1, box.y1 + 0.8))
                shape.finish(color=_rgb(stroke), width=1.6, stroke_opacity=1.0)
                continue
            shape.draw_rect(box)
            shape.finish(
                color=_rgb(stroke) if stroke else None,
                fill=_rgb(fill),
                fill_opacity=opacity,
                stroke_opacity=1.0,
                width=0.6 if stroke else 0,
            )
        if style == TOP_K and rects and label:  # the rank, left of the text column
            left = min(rect[0] for rect in rects)
            shape.insert_text((max(2.0, left - 16), rects[0][3]), label, fontsize=7, color=_rgb(stroke))
    shape.commit(overlay=True)


def _notice_png(pymupdf, width: float, height: float, zoom: float, message: str) -> bytes:
    """A blank page of the given size with ``message`` on it, drawn at ``zoom`` (cheap: one text box)."""
    with pymupdf.open() as pdf:
        page = pdf.new_page(width=width, height=height)
        margin = width / 12
        page.insert_textbox(
            pymupdf.Rect(margin, margin, width - margin, height - margin),
            message,
            fontsize=max(width / 30, 4.0),
            color=(0.35, 0.1, 0.1),
        )
        return page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False).tobytes("png")


def png_size(image: bytes) -> tuple[int, int]:
    """(width, height) in pixels of a PNG :func:`render_pages` made, from its header (IHDR)."""
    return int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big")


def marks_by_page(document: Document, marks: Iterable[Mark]) -> dict[int, tuple[Mark, ...]]:
    """1-based page -> the marks of ``document`` drawn on it, in the given order.

    A page's image depends on these marks alone, so an app can keep each page's image and redraw
    only the pages whose marks changed."""
    layout = _layout(document)
    found: dict[int, list[Mark]] = {}
    for mark in marks:
        if mark.doc_id == document.doc_id and mark.end > mark.start:
            first, last = _page_range(layout, mark)
            for page in range(first, last + 1):
                found.setdefault(page, []).append(mark)
    return {page: tuple(listed) for page, listed in found.items()}


def _page_range(layout, mark: Mark) -> tuple[int, int]:
    """First and last 1-based page a mark's characters lie on ((0, -1): none); no glyphs read."""
    end = min(mark.end, layout.text_length)
    if end <= mark.start:
        return 0, -1
    return layout.page_of(mark.start) + 1, layout.page_of(end - 1) + 1


def thumbnail_pages(page_count: int, marked: Iterable[int], limit: int = MAX_THUMBNAILS) -> list[int]:
    """The pages of the thumbnail strip: every page of a short document; for a long one, the
    marked pages and their neighbours, at most ``limit`` (a 2,000-page upload stays quick)."""
    if page_count <= limit:
        return list(range(1, page_count + 1))
    wanted: list[int] = []
    for page in sorted(set(marked)):
        for near in range(page - 2, page + 3):
            if 1 <= near <= page_count and near not in wanted:
                wanted.append(near)
    return sorted(wanted[:limit]) or list(range(1, limit + 1))


def render_thumbnails(
    document: Document, marks: Sequence[Mark], zoom: float = THUMBNAIL_ZOOM, pages: Sequence[int] | None = None
) -> list[tuple[int, bytes]]:
    """(page, small PNG) for the strip that shows where segments are, marks drawn.

    ``pages`` default: :func:`thumbnail_pages` of the pages the marks touch."""
    if pages is None:
        pages = thumbnail_pages(_layout(document).page_count, pages_of(document, marks))
    return list(zip(pages, render_pages(document, pages, marks, zoom), strict=True))


def text_html(document: Document, marks: Sequence[Mark], context: int = 300) -> str:
    """Escaped HTML of a text or Markdown document around its marks, each mark in a ``<mark>``
    with class ``rse-mark <style>`` (and ``top_k`` as an extra class where a top-k chunk overlaps).

    Only the marked characters and ``context`` characters either side are shown; elided runs
    become "[...]".
    """
    own = [mark for mark in marks if mark.doc_id == document.doc_id and mark.end > mark.start]
    length = len(document.text)
    fill = np.zeros(length, dtype=np.int8)  # 0 none, 1 padding, 2 segment, 3 gap, 4 gold
    outline = np.zeros(length, dtype=bool)
    rank = {PADDING: 1, SEGMENT: 2, GAP: 3, GOLD: 4}
    for mark in own:
        if mark.style == TOP_K:
            outline[mark.start : mark.end] = True
        else:
            fill[mark.start : mark.end] = np.maximum(fill[mark.start : mark.end], rank[mark.style])
    shown = np.zeros(length, dtype=bool)
    for mark in own:
        shown[max(0, mark.start - context) : min(length, mark.end + context)] = True
    names = {1: PADDING, 2: SEGMENT, 3: GAP, 4: GOLD}
    parts: list[str] = []
    position = 0
    while position < length:
        if not shown[position]:
            end = position
            while end < length and not shown[end]:
                end += 1
            parts.append('<span class="rse-elided">[...]</span>\n')
            position = end
            continue
        key = (int(fill[position]), bool(outline[position]))
        end = position
        while end < length and shown[end] and (int(fill[end]), bool(outline[end])) == key:
            end += 1
        text = html.escape(document.text[position:end])
        classes = [names[key[0]]] if key[0] else []
        if key[1]:
            classes.append(TOP_K)
        parts.append(f'<mark class="rse-mark {" ".join(classes)}">{text}</mark>' if classes else text)
        position = end
    return "".join(parts)


def max_page_pixels_from_environment(environ: Mapping[str, str] | None = None) -> int:
    """``RSE_MAX_PAGE_PIXELS`` (a whole number above 0), or the default."""
    return int(env_number(MAX_PAGE_PIXELS_VARIABLE, DEFAULT_MAX_PAGE_PIXELS, environ=environ, whole=True))


def fitted_zoom(width: float, height: float, zoom: float, max_pixels: int) -> float:
    """``zoom``, lowered so a ``width`` x ``height`` point page takes at most ``max_pixels`` pixels.

    Raises:
        PageViewTooLargeError: even a 1-pixel-wide rendering would be over the bound (a page
            thousands of times longer than it is wide).
    """
    area = max(float(width), 1.0) * max(float(height), 1.0)
    if area * zoom * zoom <= max_pixels:
        return zoom
    fitted = math.sqrt(max_pixels / area) * 0.999  # PyMuPDF rounds the pixmap's edges outwards
    if fitted * min(float(width), float(height)) < 1:
        raise PageViewTooLargeError(
            f"A page of {width:,.0f} x {height:,.0f} points cannot be drawn within {max_pixels:,} pixels "
            f"({MAX_PAGE_PIXELS_VARIABLE}); read its text instead."
        )
    return fitted


def _layout(document: Document):
    if document.layout is None:
        raise PageViewError(f"{document.name} is not a PDF, so it has no pages to draw; show its text instead.")
    return document.layout


def _rgb(colour: str) -> tuple[float, float, float]:
    colour = colour.lstrip("#")
    return tuple(int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]
