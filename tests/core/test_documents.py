"""Loading PDFs and text files: text, pages, ids, titles, and clear errors for bad files."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rse_core import (
    CorruptDocumentError,
    DocumentTooLargeError,
    EmptyDocumentError,
    EncryptedDocumentError,
    LoadLimits,
    NoTextLayerError,
    UnsupportedFormatError,
    chunk_document,
    load_document,
)
from rse_core.documents.reflow import RUN_ON_WIDTH, reflow
from tests.support.pdf_factory import make_encrypted_pdf, make_pdf, make_scanned_pdf


def test_pdf_text_pages_title_and_stable_id():
    data = make_pdf(["First page about apples.", "Second page about pears."], title="Fruit notes")
    document = load_document(data, name="fruit.pdf")
    assert "apples" in document.text and "pears" in document.text
    assert document.page_count == 2 and document.title == "Fruit notes" and document.kind == "pdf"
    assert document.page_of(document.text.index("pears")) == 2
    assert document.page_of(document.text.index("apples")) == 1
    assert load_document(data, name="again.pdf").doc_id == document.doc_id
    assert load_document(make_pdf(["Other"]), name="o.pdf").doc_id != document.doc_id


def test_pdf_from_path(tmp_path):
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf(["Some text"]))
    document = load_document(path)
    assert document.name == "report.pdf" and document.title == "report"


def test_empty_pages_are_kept_and_reported():
    document = load_document(make_pdf(["Page one text.", "", "Page three text."]), name="gaps.pdf")
    assert document.page_count == 3 and document.empty_pages == (2,)
    assert document.page_of(document.text.index("three")) == 3


def test_text_and_markdown(tmp_path):
    markdown = load_document(b"# Handbook\n\nRule one.\n", name="rules.md")
    assert markdown.title == "Handbook" and markdown.kind == "markdown"
    text = load_document("line one\r\nline two\u00ad\x00".encode(), name="notes.txt")
    assert text.text == "line one\nline two" and text.title == "notes"


def test_unusual_text_is_cleaned_but_kept():
    raw = "\ufb01nance\u00ad and co\x07st \u05e9\u05dc\u05d5\u05dd \u4e2d\u6587 " + "x" * 5000
    document = load_document(raw.encode(), name="odd.txt")
    assert document.text.startswith("finance and cost \u05e9\u05dc\u05d5\u05dd \u4e2d\u6587")
    assert "".join(chunk.text for chunk in chunk_document(document)) == document.text


@pytest.mark.parametrize(
    ("data", "name", "error", "message"),
    [
        (b"", "empty.pdf", EmptyDocumentError, "empty"),
        (b"   \n", "blank.txt", EmptyDocumentError, "empty"),
        (b"hello world", "fake.pdf", UnsupportedFormatError, "not a PDF"),
        (b"%PDF-1.7\n%%EOF", "broken.pdf", CorruptDocumentError, "damaged"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "image.txt", UnsupportedFormatError, "binary"),
        (b"data", "sheet.xlsx", UnsupportedFormatError, "unsupported file type"),
    ],
)
def test_bad_files_raise_clear_errors(data, name, error, message):
    with pytest.raises(error, match=message):
        load_document(data, name=name)


def test_pdf_with_text_extension_is_called_out():
    with pytest.raises(UnsupportedFormatError, match=r"rename it to \.pdf"):
        load_document(make_pdf(["x"]), name="report.txt")


def test_truncated_pdf_is_refused_or_repaired_never_crashes():
    data = make_pdf(["A page with some words on it."] * 3)
    for cut in (len(data) // 4, len(data) // 2, len(data) - 20):
        try:
            document = load_document(data[:cut], name="cut.pdf")
        except CorruptDocumentError as error:
            assert "damaged" in str(error) or "truncated" in str(error)
        except NoTextLayerError:
            pass
        else:
            assert document.text


def test_encrypted_pdf_asks_for_the_password_to_be_removed():
    with pytest.raises(EncryptedDocumentError, match="password"):
        load_document(make_encrypted_pdf(), name="locked.pdf")


def test_scanned_pdf_suggests_ocr():
    with pytest.raises(NoTextLayerError, match="OCR"):
        load_document(make_scanned_pdf(), name="scan.pdf")


def test_size_and_page_limits_are_configurable():
    data = make_pdf(["a", "b", "c"])
    with pytest.raises(DocumentTooLargeError, match="3 pages; the limit is 2 pages"):
        load_document(data, name="long.pdf", limits=LoadLimits(max_pages=2))
    with pytest.raises(DocumentTooLargeError, match="limit"):
        load_document(b"x" * 2048, name="big.txt", limits=LoadLimits(max_bytes=1024))


def test_missing_file():
    with pytest.raises(UnsupportedFormatError, match="No such file"):
        load_document("/nonexistent/file.pdf")


def test_limits_can_be_set_from_the_environment():
    from rse_core import ParameterError

    limits = LoadLimits.from_environment({"RSE_MAX_FILE_MB": "1", "RSE_MAX_PAGES": "2"})
    assert (limits.max_bytes, limits.max_pages) == (1_048_576, 2)
    assert LoadLimits.from_environment({}) == LoadLimits()
    with pytest.raises(DocumentTooLargeError, match="3 pages; the limit is 2 pages"):
        load_document(make_pdf(["a", "b", "c"]), name="long.pdf", limits=limits)
    tiny = LoadLimits.from_environment({"RSE_MAX_FILE_MB": "0.001"})
    with pytest.raises(DocumentTooLargeError, match=r"the limit is 1\.0 KB"):
        load_document(make_pdf(["a", "b", "c"]), name="big.pdf", limits=tiny)
    with pytest.raises(ParameterError, match="RSE_MAX_PAGES"):
        LoadLimits.from_environment({"RSE_MAX_PAGES": "lots"})


# --- reflow: display only, whitespace only ---

LONG = "a line long enough to have been wrapped by the page rather than by its author, with"
assert len(LONG) >= RUN_ON_WIDTH


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"{LONG}\nThe rest", f"{LONG} The rest"),  # a long line that ends no sentence runs on
        ("short\nline carried on", "short line carried on"),  # lower case: the sentence carries on
        ("Heading\nText.\n\nNext paragraph", "Heading\nText.\n\nNext paragraph"),  # short, blank line
        (f"{LONG} end.\nNext sentence", f"{LONG} end.\nNext sentence"),  # a sentence ends there
        (f"{LONG}\n- item\n2) item\n(iv) item", f"{LONG}\n- item\n2) item\n(iv) item"),  # list items
        (f"{LONG} well-\nknown", f"{LONG} well-known"),  # the hyphen stays: it may be a compound's
        (f"{LONG} Ferreira-\nOlsen", f"{LONG} Ferreira-Olsen"),
        (f"{LONG}  \n   indented", f"{LONG} indented"),  # indentation around a joined break goes
        ("runs on\n", "runs on\n"),  # a text's last break: what follows is not known
        ("", ""),
    ],
)
def test_reflow_joins_only_breaks_inside_paragraphs(text, shown):
    assert reflow(text) == shown


_LINES = st.lists(
    st.one_of(
        st.sampled_from(["", "  ", "Heading", "Word.", "- item", "1) one", "hyphen-", "end:", "x" * 70, "\t"]),
        st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=90),
    ),
    max_size=12,
)


def _ink(text: str) -> str:
    return re.sub(r"\s", "", text)


@given(_LINES)
def test_reflow_never_loses_or_invents_a_visible_character(lines):
    text = "\n".join(lines)
    shown = reflow(text)
    assert _ink(shown) == _ink(text)
    assert shown.count("\n") <= text.count("\n")


@given(_LINES, _LINES)
def test_reflow_of_two_parts_cut_after_a_paragraph_is_the_reflow_of_the_whole(first, second):
    """Chunks are cut after a paragraph or sentence end where they can: there the segment panel
    (chunk by chunk) and the page view (the whole span) show the same text."""
    head = "\n".join([*first, "End."]) + "\n"
    tail = "\n".join(second)
    assert reflow(head + tail) == reflow(head) + reflow(tail)


def test_renamed_retitles_only_a_title_that_came_from_the_file_name():
    untitled = load_document(make_pdf(["Apples and pears."]), name="fruit.pdf")
    assert untitled.renamed("orchard notes.pdf").title == "orchard notes"
    titled = load_document(make_pdf(["Apples and pears."], title="Fruit notes"), name="fruit.pdf")
    assert titled.renamed("x.pdf").title == "Fruit notes" and titled.renamed("x.pdf").name == "x.pdf"
    headed = load_document(b"# Harvest\n\nApples in autumn.\n", name="a.md")
    assert headed.renamed("b.md").title == "Harvest"
    renamed = untitled.renamed("orchard notes.pdf")
    assert renamed.doc_id == untitled.doc_id and renamed.text == untitled.text and renamed.source == untitled.source
    assert chunk_document(renamed, 400)[0].header != chunk_document(untitled, 400)[0].header
