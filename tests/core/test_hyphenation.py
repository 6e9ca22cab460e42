"""Words hyphenated at a line's end (a soft hyphen) are joined before chunking, and still map to
their glyphs on the page: the page view highlights them and golden spans follow."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rse_core import load_document
from rse_core.documents.cleaning import clean_text, clean_text_with_origins
from rse_core.documents.layout import page_glyphs
from rse_core.evaluation.sets import corpus_dir, corpus_missing_message
from rse_core.figures.page_view import highlighted_glyphs

SCOTUS = (corpus_dir() or Path()) / "scotus_tarrant_v_herrmann_2013.pdf"
needs_corpus = pytest.mark.skipif(corpus_missing_message() is not None, reason="the shared corpus is missing")


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("Com\u00ad\npact", "Compact"),
        ("interpre\u00ad\r\ntive", "interpretive"),
        ("Okla\u00ad\u2028homa", "Oklahoma"),
        ("water-\nglycol", "water-\nglycol"),  # a hard hyphen may be a compound's: kept
        ("co\u00adoperate", "cooperate"),  # a soft hyphen inside a line: dropped as before
    ],
)
def test_a_soft_hyphen_at_a_line_end_joins_the_word(raw, cleaned):
    assert clean_text(raw) == cleaned
    assert clean_text_with_origins(raw)[0] == cleaned


@given(st.text(alphabet=st.sampled_from("ab \n\r\u00ad\u2028"), max_size=30))
def test_origins_still_match_clean_text_with_hyphenation(text):
    cleaned, origins = clean_text_with_origins(text)
    assert cleaned == clean_text(text) and len(origins) == len(cleaned) and origins == sorted(origins)
    assert all(text[origin] == char or char in "\n" for char, origin in zip(cleaned, origins, strict=True))


@needs_corpus
def test_a_hyphenated_pdf_word_is_whole_in_the_text_and_highlights_its_glyphs():
    document = load_document(SCOTUS)
    assert "Com\npact" not in document.text and "interpre\ntive" not in document.text
    assert "interpretive" in document.text
    with pymupdf.open(SCOTUS) as pdf:
        chars = {n: [c for c, _ in page_glyphs(page.get_text("rawdict"))] for n, page in enumerate(pdf, 1)}
    joined = [m for m in re.finditer(r"Compact|interpretive|Oklahoma", document.text)]
    assert len(joined) > 20
    for match in joined:
        found = highlighted_glyphs(document, match.start(), match.end())
        read = "".join(chars[page][glyph] for page in sorted(found) for glyph in found[page])
        assert read.replace("\u00ad", "") == match.group(), (match.group(), read)
