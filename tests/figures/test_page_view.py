"""The segment on the page: highlighted glyphs read back from the PDF equal the segment's text."""

from __future__ import annotations

import html
import re
from functools import cache
from itertools import pairwise

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app_ui.components import segment_html
from app_ui.samples import SAMPLE_DIR, list_samples
from rse_core import RSEParams, extract, get_scorer, load_document
from rse_core.documents.cleaning import clean_text, clean_text_with_origins
from rse_core.documents.layout import page_glyphs
from rse_core.documents.reflow import reflow_pieces
from rse_core.figures.page_view import (
    GAP,
    PADDING,
    SEGMENT,
    TOP_K,
    Mark,
    PageViewError,
    all_marks,
    highlighted_glyphs,
    marks_by_page,
    pages_of,
    reflow,
    render_page,
    render_thumbnails,
    segment_marks,
    text_html,
    thumbnail_pages,
)
from tests.support.pdf_factory import make_pdf

EXTRA_QUERIES = ("revenue by region", "vacation days and holidays", "cooling system pump failure", "the")


@cache
def _document(slug: str):
    return load_document(list_samples()[slug].path)


@cache
def _scorer():
    return get_scorer("minilm", bundled_embeddings=(SAMPLE_DIR / "embeddings",))


@cache
def _page_chars(pdf_bytes: bytes) -> dict[int, list[str]]:
    """Per 1-based page, the glyph characters of a fresh rawdict (independent of the layout)."""
    with pymupdf.open(stream=pdf_bytes, filetype="pdf") as pdf:
        return {n + 1: [c for c, _ in page_glyphs(page.get_text("rawdict"))] for n, page in enumerate(pdf)}


def _read_back(document, start: int, end: int) -> str:
    chars = _page_chars(document.layout.source)
    found = highlighted_glyphs(document, start, end)
    return "".join(clean_text(chars[page][glyph]) for page in sorted(found) for glyph in found[page])


def _without_breaks(text: str) -> str:
    return text.replace("\n", "")


def test_every_sample_segment_highlights_exactly_its_text():
    """Default parameters, every golden query and a few more: every segment of every sample, read back from
    the glyphs it highlights, is its own text (line breaks have no glyph), across page breaks."""
    checked, multi_page = 0, 0
    for slug, sample in list_samples().items():
        document = _document(slug)
        queries = [query.query for query in sample.golden.queries] + list(EXTRA_QUERIES)
        for query in queries:
            result = extract(document, query, RSEParams(), scorer=_scorer())
            for segment in result.segments:
                assert _read_back(document, segment.start_char, segment.end_char) == _without_breaks(segment.text)
                checked += 1
                multi_page += segment.last_page > segment.first_page
    assert checked >= 40
    assert multi_page > 0, "no segment crossed a page break"


@settings(max_examples=60, deadline=None)
@given(slug=st.sampled_from(sorted(list_samples())), data=st.data())
def test_any_span_highlights_its_text(slug, data):
    document = _document(slug)
    start = data.draw(st.integers(0, len(document.text) - 1))
    end = data.draw(st.integers(start + 1, min(len(document.text), start + 5000)))
    # A span that cuts an expanded ligature ("fi" from one glyph) highlights the whole glyph.
    glyph, page = document.layout.glyph, document.layout.page
    while start > 0 and glyph[start] != -1 and (glyph[start], page[start]) == (glyph[start - 1], page[start - 1]):
        start -= 1
    while end < len(glyph) and glyph[end] != -1 and (glyph[end], page[end]) == (glyph[end - 1], page[end - 1]):
        end += 1
    assert _read_back(document, start, end) == _without_breaks(document.text[start:end])


@given(st.text(alphabet=st.sampled_from("ab \n\r\x00\u00ad\ufb01\ufb03\x85\u2028\ufeff\t"), max_size=40))
def test_cleaning_origins_match_clean_text(text):
    cleaned, origins = clean_text_with_origins(text)
    assert cleaned == clean_text(text)
    assert len(origins) == len(cleaned)
    assert origins == sorted(origins)
    assert all(0 <= origin < len(text) for origin in origins)


def test_repeated_phrases_map_to_their_own_glyphs():
    """A phrase that occurs twice: highlighting the second occurrence marks only glyphs of page 2."""
    pdf = make_pdf(["The final figure is here.", "Other text. The final figure is here."])
    document = load_document(pdf, name="twice.pdf")
    start = document.text.rindex("The final figure")
    found = highlighted_glyphs(document, start, start + len("The final figure"))
    assert list(found) == [2]
    assert _read_back(document, start, start + len("The final figure")) == "The final figure"


def test_segment_marks_split_gaps_from_edge_padding():
    result = extract(_document("annual_report"), "Show me the consolidated financial statements", scorer=_scorer())
    styles = {mark.style for segment in result.segments for mark in segment_marks(result, segment)}
    assert SEGMENT in styles
    gaps = {index for segment in result.segments for index in segment.gap_chunks}
    for segment in result.segments:
        values = result.values[segment.query].value
        for index, mark in zip(range(segment.start, segment.end), segment_marks(result, segment), strict=True):
            if values[index] >= 0:
                assert mark.style == SEGMENT
            else:
                assert index in gaps
                inside = any(values[i] >= 0 for i in range(segment.start, index)) and any(
                    values[i] >= 0 for i in range(index + 1, segment.end)
                )
                assert mark.style == (GAP if inside else PADDING)


def test_render_pages_and_thumbnails_are_pngs():
    document = _document("employee_handbook")
    result = extract(document, "What is the policy on working from home?", scorer=_scorer())
    marks = all_marks(result)
    page = pages_of(document, marks)[0]
    image = render_page(document, page, marks, zoom=1.0)
    assert image.startswith(b"\x89PNG")
    thumbs = render_thumbnails(document, marks)
    assert [page for page, _ in thumbs] == list(range(1, document.page_count + 1))
    assert all(image.startswith(b"\x89PNG") for _, image in thumbs)
    assert thumbnail_pages(2000, [10, 500]) == [8, 9, 10, 11, 12, 498, 499, 500, 501, 502]
    assert len(thumbnail_pages(2000, range(1, 2000, 3))) == 60
    with pytest.raises(PageViewError, match="no page"):
        render_page(document, document.page_count + 1, marks)
    with pytest.raises(PageViewError, match="Zoom"):
        render_page(document, 1, marks, zoom=50)


def test_a_page_image_depends_only_on_the_marks_on_that_page():
    """What the app's per-page image cache relies on: a page drawn with only its own marks is the
    same image as drawn with every mark, and marks_by_page finds every page a mark touches."""
    document = _document("annual_report")
    result = extract(document, "revenue by region", scorer=_scorer())
    marks = all_marks(result)
    by_page = marks_by_page(document, marks)
    assert sorted(by_page) == pages_of(document, marks)
    for mark in marks:
        first, last = document.pages_of_span(mark.start, mark.end)
        assert all(mark in by_page[page] for page in range(first, last + 1))
    for page in sorted(by_page)[:3]:
        assert render_page(document, page, by_page[page], zoom=0.5) == render_page(document, page, marks, zoom=0.5)
    unmarked = next(page for page in range(1, document.page_count + 1) if page not in by_page)
    assert render_page(document, unmarked, [], zoom=0.5) == render_page(document, unmarked, marks, zoom=0.5)


def test_text_documents_get_escaped_marks():
    document = load_document(b"intro <script>alert(1)</script>\nthe answer is here\noutro", name="a.md")
    start = document.text.index("<script>")
    marks = [
        Mark(document.doc_id, start, start + 10, SEGMENT),
        Mark(document.doc_id, start + 5, start + 12, TOP_K),
    ]
    page = text_html(document, marks)
    assert "<script" not in page and "&lt;scri" in page and "&lt;/script&gt;" in page
    assert 'class="rse-mark segment top_k"' in page
    with pytest.raises(PageViewError, match="not a PDF"):
        render_page(document, 1, marks)


def _panel_text(result, segment) -> str:
    """The characters the segment panel shows: its text block, chunk-start markers and tags removed."""
    block = segment_html(result, segment).split('<div class="rse-text">', 1)[1].split("</div>", 1)[0]
    return html.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<span class="boundary"[^>]*>\d+</span>', "", block)))


def test_the_page_view_and_the_segment_panel_show_a_segment_the_same_way():
    """One reflow for both: the panel reflows the segment whole and cuts it at each
    chunk's start, so it shows exactly the page view's "Reflowed text" (chunk markers aside)."""
    compared = 0
    for slug, sample in list_samples().items():
        document = _document(slug)
        queries = [query.query for query in sample.golden.queries] + list(EXTRA_QUERIES)
        for query in queries:
            result = extract(document, query, scorer=get_scorer("bm25"))
            for segment in result.segments:
                marks = segment_marks(result, segment)  # what the page view panel shows for "S1", ...
                start, end = min(mark.start for mark in marks), max(mark.end for mark in marks)
                assert _panel_text(result, segment) == reflow(document.text[start:end]), (slug, query, segment.label)
                compared += 1
    assert compared >= 30, compared


@given(st.text(alphabet="ab -\n.Z", max_size=80), st.lists(st.integers(0, 80), max_size=5))
def test_reflow_pieces_join_to_the_reflowed_text_and_keep_each_pieces_characters(text, cuts):
    cuts = sorted({cut for cut in cuts if cut <= len(text)})
    pieces = reflow_pieces(text, cuts)
    assert "".join(pieces) == reflow(text)
    for piece, (start, end) in zip(pieces, pairwise([0, *cuts, len(text)]), strict=True):
        assert re.sub(r"\s", "", piece) == re.sub(r"\s", "", text[start:end])
