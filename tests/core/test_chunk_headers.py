"""Contextual chunk headers: headings from PDFs (outline, styled lines), Markdown and text, and
their use in scoring only (segments still rebuild the exact text)."""

from __future__ import annotations

import json

import numpy as np
import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import Document, RSEError, RSEParams, build_corpus, chunk_document, extract, load_document, run_rse
from rse_core.chunking import scoring_text
from rse_core.cli.extract import main as cli_main
from rse_core.documents.headings import Heading, header_for, markdown_headings, text_headings
from rse_core.scoring import Calibration, get_scorer

BODY = "The pump runs at a steady pace and the valves open in turn as the pressure builds. " * 4


def _styled_pdf(outline: bool) -> bytes:
    """Two pages: a 20 pt bold title, 14 pt section headings, 10 pt body; optionally an outline."""
    pdf = pymupdf.open()
    layout = [
        [("Pump Manual", 20, "hebo"), ("Installation", 14, "hebo"), (BODY, 10, "helv")],
        [("Maintenance", 14, "hebo"), (BODY, 10, "helv"), ("Seals and gaskets", 12, "hebo"), (BODY, 10, "helv")],
    ]
    for blocks in layout:
        page = pdf.new_page(width=595, height=842)
        top = 60
        for text, size, font in blocks:
            height = size * 1.6 * (1 + len(text) // 80)
            page.insert_textbox(pymupdf.Rect(50, top, 545, top + height + 10), text, fontsize=size, fontname=font)
            top += height + 24
    if outline:
        pdf.set_toc([[1, "Getting started", 1], [1, "Maintenance", 2], [2, "Seals and gaskets", 2]])
    data = pdf.tobytes()
    pdf.close()
    return data


def test_pdf_outline_gives_the_headings_at_their_text():
    document = load_document(_styled_pdf(outline=True), name="manual.pdf")
    titles = [(heading.level, heading.title) for heading in document.headings]
    assert titles == [(1, "Getting started"), (1, "Maintenance"), (2, "Seals and gaskets")]
    maintenance, seals = document.headings[1], document.headings[2]
    assert document.text[maintenance.start :].startswith("Maintenance")
    assert document.text[seals.start :].startswith("Seals and gaskets")
    assert document.headings[0].start == 0  # an outline title that is not in the text: its page's start


def test_pdf_without_outline_finds_headings_by_font_size_and_weight():
    document = load_document(_styled_pdf(outline=False), name="manual.pdf")
    titles = [(heading.level, heading.title) for heading in document.headings]
    assert titles == [(1, "Pump Manual"), (2, "Installation"), (2, "Maintenance"), (3, "Seals and gaskets")]
    for heading in document.headings:
        assert document.text[heading.start :].startswith(heading.title)
    assert not any("pump runs" in heading.title for heading in document.headings)  # body text is not a heading


def test_running_heads_repeated_on_many_pages_are_not_headings():
    pdf = pymupdf.open()
    for number in range(4):
        page = pdf.new_page()
        page.insert_text((50, 40), "ACME QUARTERLY", fontsize=14, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(50, 80, 545, 700), f"Page {number}. " + BODY, fontsize=10)
    data = pdf.tobytes()
    assert load_document(data, name="acme.pdf").headings == ()


def test_markdown_headings_skip_code_fences():
    text = "# Guide\n\nIntro.\n\n## Setup\n\nSteps.\n\n```\n# not a heading\n```\n\n### Cooling ##\n\nFans.\n"
    headings = markdown_headings(text)
    assert [(h.level, h.title) for h in headings] == [(1, "Guide"), (2, "Setup"), (3, "Cooling")]
    assert all(text[h.start :].startswith("#") for h in headings)


def test_text_headings_numbered_caps_and_items():
    text = (
        "ANNUAL SUMMARY\n\nSome words here.\n\n2.1 Cooling loop design\nThe loop.\n"
        "ITEM 7. Management's Discussion\nText follows. A sentence ending in a dot.\n\nNOT A HEADING.\n"
    )
    titles = [(h.level, h.title) for h in text_headings(text)]
    assert titles == [(1, "ANNUAL SUMMARY"), (2, "2.1 Cooling loop design"), (2, "ITEM 7. Management's Discussion")]


def test_header_is_the_title_and_the_section_path_at_the_chunk_middle():
    headings = (Heading(0, 1, "Intro"), Heading(100, 1, "Design"), Heading(200, 2, "Cooling"), Heading(400, 1, "End"))
    assert header_for("Report", headings, 0, 90) == "Report > Intro"
    assert header_for("Report", headings, 210, 300) == "Report > Design > Cooling"
    assert header_for("Report", headings, 150, 390) == "Report > Design > Cooling"  # middle 270
    assert header_for("Report", headings, 350, 500) == "Report > End"
    assert header_for("Report", (), 0, 10) == "Report"
    assert header_for("Intro", headings, 0, 50) == "Intro"  # a heading equal to the title is not repeated


def test_markdown_chunks_get_headers_and_scorers_read_them():
    text = (
        "# Plant guide\n\n## Watering\n\n"
        + "Water the beds at dawn. " * 20
        + "\n\n## Soil\n\n"
        + ("Compost improves clay. " * 20)
    )
    document = Document.from_text(text, name="guide.md")
    chunks = chunk_document(document, 200, headers=True)
    assert chunks[1].header == "Plant guide > Watering"
    assert chunks[-1].header == "Plant guide > Soil"
    assert scoring_text(chunks[-1]) == "Plant guide > Soil\n\n" + chunks[-1].text
    assert all(chunk.header == "" for chunk in chunk_document(document, 200, headers=False))
    # BM25 reads the header: a query for the section name finds chunks that never say it.
    corpus = build_corpus(document, 200, headers=True)
    scores = get_scorer("bm25").score("soil", corpus.chunks)
    plain = get_scorer("bm25").score("soil", build_corpus(document, 200, headers=False).chunks)
    assert (scores > 0).sum() > (plain > 0).sum()


@settings(max_examples=40, deadline=None)
@given(
    sections=st.lists(
        st.tuples(st.text("abcxyz ", min_size=1, max_size=20), st.text("abc def.\n", min_size=1, max_size=300)),
        min_size=1,
        max_size=6,
    ),
    chunk_size=st.integers(50, 300),
)
def test_chunks_with_headers_still_tile_the_exact_text(sections, chunk_size):
    text = "".join(f"## {title.strip() or 'x'}\n\n{body}\n\n" for title, body in sections)
    document = Document.from_text(text, name="doc.md")
    chunks = chunk_document(document, chunk_size, headers=True)
    assert "".join(chunk.text for chunk in chunks) == document.text
    assert all(chunk.text == document.text[chunk.start : chunk.end] for chunk in chunks)


def test_segments_rebuild_the_exact_text_with_headers_on():
    document = load_document(_styled_pdf(outline=False), name="manual.pdf")
    result = extract(document, "seals gaskets maintenance", RSEParams(chunk_size=120, chunk_headers=True), "bm25")
    assert result.segments and result.corpus.headers
    for segment in result.segments:
        assert segment.text == document.text[segment.start_char : segment.end_char]
        assert "Pump Manual >" not in segment.text
    assert any(chunk.header == "manual > Pump Manual > Maintenance" for chunk in result.corpus.chunks)


def test_scores_for_the_other_header_setting_are_refused():
    document = Document.from_text("# T\n\n" + BODY, name="t.md")
    corpus = build_corpus(document, 100, headers=False)
    with pytest.raises(RSEError, match="without chunk headers"):
        run_rse(
            corpus, ["q"], [np.zeros(len(corpus.chunks))], RSEParams(chunk_size=100, chunk_headers=True), Calibration()
        )
    assert build_corpus(document, 100, headers=True).key != corpus.key


def test_cli_headers_flags(tmp_path, capsys):
    path = tmp_path / "guide.md"
    path.write_text("# Plant guide\n\n## Soil\n\n" + "Compost improves clay. " * 30, encoding="utf-8")
    for flag, expected in (("--headers", True), ("--no-headers", False)):
        assert cli_main([str(path), "-q", "soil compost", "--scorer", "bm25", flag, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["parameters"]["chunk_headers"] is expected
        assert data["segments"][0]["text"] in path.read_text(encoding="utf-8")
