"""Fuzzing the loader: whatever the bytes, ``load_document`` raises an RSEError or returns a document
whose chunks rebuild its text exactly.

The app shows ``str(error)`` for an RSEError and treats anything else as a crash, so any other
exception type here is a bug. Example counts are bounded so the file runs in well under a minute.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rse_core import Document, EmptyDocumentError, RSEError, chunk_document, load_document
from rse_core.documents.cleaning import clean_text
from tests.support.pdf_factory import make_pdf

HANDBOOK = (Path(__file__).resolve().parents[2] / "sample_docs" / "employee_handbook.pdf").read_bytes()
FACTORY_PDF = make_pdf(["Alpha words on the first page. " * 8, "", "Gamma words on the third page. " * 8])

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
NAMES = ["x.pdf", "x.txt", "x.md", "X.PDF", "x.markdown", "x.docx", "x"]


def load_or_refuse(data: bytes, name: str | None) -> Document | None:
    """Load; an RSEError is an acceptable answer, anything else fails the test."""
    try:
        document = load_document(data, name=name)
    except RSEError as error:
        assert str(error).strip(), "an error the user can read"
        return None
    for chunk_size in (50, 333):
        chunks = chunk_document(document, chunk_size)
        assert "".join(chunk.text for chunk in chunks) == document.text
        assert all(1 <= chunk.first_page <= chunk.last_page <= document.page_count for chunk in chunks)
    assert document.text.strip() and len(document.page_starts) == document.page_count
    assert list(document.page_starts) == sorted(document.page_starts)
    assert all(0 < page <= document.page_count for page in document.empty_pages)
    return document


@settings(FUZZ, max_examples=150)
@given(data=st.binary(max_size=4096), name=st.sampled_from([*NAMES, None]))
def test_random_bytes_never_raise_anything_but_rse_errors(data, name):
    load_or_refuse(data, name)


@settings(FUZZ, max_examples=80)
@given(
    header=st.sampled_from([b"%PDF-1.7\n", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", b"  %PDF-2.0\r\n", b"junk%PDF-1.5\n"]),
    body=st.binary(max_size=4096),
)
def test_random_bytes_behind_a_pdf_header_reach_the_parser_safely(header, body):
    load_or_refuse(header + body, "x.pdf")


def mutations(size: int):
    """Byte flips, truncations and inserted garbage at positions inside a file of ``size`` bytes."""
    flip = st.tuples(st.just("flip"), st.integers(0, size - 1), st.integers(0, 255))
    cut = st.tuples(st.just("cut"), st.integers(0, size), st.just(0))
    insert = st.tuples(st.just("insert"), st.integers(0, size), st.binary(min_size=1, max_size=300))
    repeat = st.tuples(st.just("repeat"), st.integers(0, size - 1), st.integers(1, 2000))  # duplicate a span
    return st.lists(st.one_of(flip, flip, cut, insert, repeat), min_size=1, max_size=25)


def mutate(data: bytes, operations) -> bytes:
    buffer = bytearray(data)
    for kind, position, argument in operations:
        position = min(position, len(buffer))
        if kind == "flip" and position < len(buffer):
            buffer[position] = argument
        elif kind == "cut":
            del buffer[position:]
        elif kind == "insert":
            buffer[position:position] = argument
        elif kind == "repeat":
            buffer[position:position] = buffer[position : position + argument]
    return bytes(buffer)


@settings(FUZZ, max_examples=40)
@given(operations=mutations(len(HANDBOOK)))
def test_mutated_sample_pdf_never_raises_anything_but_rse_errors(operations):
    load_or_refuse(mutate(HANDBOOK, operations), "handbook.pdf")


@settings(FUZZ, max_examples=120)
@given(operations=mutations(len(FACTORY_PDF)))
def test_mutated_small_pdf_never_raises_anything_but_rse_errors(operations):
    load_or_refuse(mutate(FACTORY_PDF, operations), "small.pdf")


# Drawing a code point that no font has makes PyMuPDF search for a fallback font, which takes
# seconds; page text is therefore drawn from the BMP up to U+2FFF plus CJK (controls, Latin,
# Greek, Cyrillic, Hebrew, Arabic, Indic, symbols ...). Titles are metadata and take anything.
PAGE_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=0x2FFF, exclude_categories=("Cs",)),
        st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
    ),
    max_size=300,
)


@settings(FUZZ, max_examples=40)
@given(
    pages=st.lists(PAGE_TEXT, min_size=1, max_size=4),
    title=st.text(max_size=40),
    operations=st.one_of(st.just([]), mutations(600)),
)
def test_generated_pdfs_with_any_text_load_or_fail_cleanly(pages, title, operations):
    """Arbitrary page text (control characters, RTL, CJK ...) and title, intact or mutated."""
    document = load_or_refuse(mutate(make_pdf(pages, title=title), operations), "generated.pdf")
    if document is not None and not operations:
        assert document.page_count == len(pages)
        assert "\x00" not in document.text and "\r" not in document.text and "\ufeff" not in document.text


# Any code point but surrogates, with control characters, BOMs, soft hyphens, ligatures and line
# breaks mixed in often enough to meet each other.
TRICKY = st.sampled_from(
    list("\x00\x07\x0b\x0c\x1b\x7f\x85\x9f\r\n\t \u00ad\ufeff\ufb01\ufb03\u2028\u2029\u200b\u05d0\u0627\u4e2d")
)
TEXT = st.lists(st.one_of(st.characters(exclude_categories=("Cs",)), TRICKY), max_size=2000).map("".join)


@settings(FUZZ, max_examples=300)
@given(text=TEXT, name=st.sampled_from(["t.txt", "t.md"]), chunk_size=st.integers(50, 900))
def test_random_unicode_text_loads_and_chunks_back_exactly(text, name, chunk_size):
    data = text.encode("utf-8")
    assume(not data[:1024].lstrip().startswith(b"%PDF"))
    cleaned = clean_text(text)
    if not data.strip() or not cleaned.strip():
        try:
            load_document(data, name=name)
        except EmptyDocumentError:
            return
        raise AssertionError("a blank file must be refused as empty")
    document = load_document(data, name=name)
    assert document.text == cleaned and clean_text(cleaned) == cleaned
    chunks = chunk_document(document, chunk_size)
    assert "".join(chunk.text for chunk in chunks) == document.text
    assert all(0 < len(chunk) <= chunk_size for chunk in chunks)
    assert all(chunk.text == document.text[chunk.start : chunk.end] for chunk in chunks)


@settings(FUZZ, max_examples=150)
@given(text=TEXT, junk=st.binary(min_size=1, max_size=8), where=st.floats(0, 1))
def test_text_with_invalid_utf8_bytes_never_crashes(text, junk, where):
    """A UTF-8 file with stray bytes: decoded (as UTF-8 with U+FFFD, or cp1252) or refused as binary."""
    data = text.encode("utf-8")
    position = int(len(data) * where)
    load_or_refuse(data[:position] + junk + data[position:], "broken.txt")
