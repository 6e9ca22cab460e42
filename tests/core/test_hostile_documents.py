"""Hostile and unusual documents: every one is refused with a typed error saying why, or loads.

Each table row is one case. test_documents.py has the basic cases (one row each); the rows here
are the variants around them: other containers behind a wrong extension, damaged page trees,
other encryption methods, size messages at small limits, every kind of odd character, HTML
in the text, documents shorter than one chunk.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path

import pymupdf
import pytest

from rse_core import (
    CorruptDocumentError,
    Document,
    DocumentTooLargeError,
    EmptyDocumentError,
    EncryptedDocumentError,
    LoadLimits,
    NoTextLayerError,
    RSEParams,
    UnsupportedFormatError,
    chunk_document,
    extract,
    load_document,
)
from rse_core.documents.cleaning import clean_text
from tests.support.pdf_factory import (
    make_encrypted_pdf_with,
    make_font_pdf,
    make_mixed_scan_pdf,
    make_ocr_layer_pdf,
    make_owner_only_encrypted_pdf,
    make_pdf,
    make_pdf_with_javascript,
    unicode_font_file,
)

HANDBOOK = Path(__file__).resolve().parents[2] / "sample_docs" / "employee_handbook.pdf"


def rebuilds(document: Document, chunk_size: int = 200) -> bool:
    return "".join(chunk.text for chunk in chunk_document(document, chunk_size)) == document.text


def png_bytes() -> bytes:
    return pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), False).tobytes("png")


def zip_bytes(member: str, content: bytes, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        archive.writestr(member, content)
    return buffer.getvalue()


# --- empty files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (b"", "empty.txt", "empty.txt is empty"),
        (b"", "empty.md", "empty.md is empty"),
        (b"\t\r\n \x0c", "blank.md", "is empty"),
        (b"\xef\xbb\xbf", "bom-only.txt", "bom-only.txt has no text"),  # a UTF-8 BOM and nothing else
        (b"\xef\xbb\xbf \r\n", "bom-blank.txt", "has no text"),
        ("\u00ad\ufeff\x07\x00".encode(), "invisible.txt", "has no text"),  # all removed by cleaning
        ("\u3000\u00a0\u2028".encode(), "unicode-spaces.txt", "has no text"),
        (b"", None, "document.txt is empty"),
    ],
)
def test_empty_or_blank_files_are_refused(data, name, message):
    with pytest.raises(EmptyDocumentError, match=message):
        load_document(data, name=name)


@pytest.mark.parametrize("name", ["empty.pdf", "empty.txt"])
def test_empty_file_on_disk_is_refused(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(EmptyDocumentError, match=f"{name} is empty"):
        load_document(path)


# --- content that is not what the extension says ----------------------------------------------


@pytest.mark.parametrize(
    ("make_data", "name", "message"),
    [
        (lambda: make_pdf(["A real PDF."]), "report.md", r"report\.md is a PDF file with a \.md extension"),
        (lambda: make_pdf(["A real PDF."]), "report.markdown", r"rename it to \.pdf"),
        (lambda: b"  \n" + make_pdf(["x"]), "padded.txt", "is a PDF file"),  # header after blank lines
        (lambda: b"# Notes\n\nPlain **markdown**.", "notes.pdf", "notes.pdf is not a PDF"),
        (lambda: png_bytes(), "photo.pdf", "photo.pdf is not a PDF: its content does not start with '%PDF'"),
        (lambda: b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(64), "scan.pdf", "not a PDF"),
        (lambda: b"GIF89a\x01\x00\x01\x00" + bytes(32), "anim.pdf", "not a PDF"),
        (lambda: zip_bytes("a.txt", b"hello"), "archive.pdf", "archive.pdf is not a PDF"),
        (lambda: zip_bytes("word/document.xml", b"<w:document/>" * 50), "letter.pdf", "not a PDF"),
        (lambda: png_bytes(), "photo.txt", "does not look like a text file"),
        (lambda: zip_bytes("a.txt", b"hello"), "archive.txt", "does not look like a text file"),
        (lambda: zip_bytes("a.txt", b"hello"), "archive.zip", r"unsupported file type \.zip"),
        (lambda: b"Plain words.", "README", r"unsupported file type \(no extension\)"),
    ],
)
def test_content_that_does_not_match_the_extension_is_called_out(make_data, name, message):
    with pytest.raises(UnsupportedFormatError, match=message):
        load_document(make_data(), name=name)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Every PDF file starts with the bytes %PDF-1.7 and ends with %%EOF.\n", "pdf-notes.txt"),
        ("# The PDF header\n\nA PDF begins with `%PDF-2.0` on its first line.\n", "pdf-notes.md"),
    ],
)
def test_text_that_mentions_the_pdf_header_is_still_text(text, name):
    """Only a file that starts with ``%PDF`` (or also has a PDF trailer) is a mislabelled PDF."""
    document = load_document(text.encode(), name=name)
    assert document.text == text and document.kind in {"text", "markdown"}
    assert load_document(text.encode()).kind == "text"  # no name given: not guessed to be a PDF


def test_pdf_with_stray_bytes_before_its_header_still_loads():
    """Readers accept the header anywhere in the first 1024 bytes; so does the loader."""
    data = b"\r\n-- attachment --\r\n" + make_pdf(["Offset header text."])
    assert "Offset header text." in load_document(data, name="offset.pdf").text
    with pytest.raises(UnsupportedFormatError, match=r"is a PDF file with a \.txt extension"):
        load_document(data, name="offset.txt")


# --- damaged PDFs -------------------------------------------------------------------------------


def check_damaged(data: bytes, name: str = "damaged.pdf") -> Document | None:
    """Load ``data``: a typed document error, or a document that chunks back exactly."""
    try:
        document = load_document(data, name=name)
    except (CorruptDocumentError, NoTextLayerError, EmptyDocumentError, UnsupportedFormatError) as error:
        assert str(error).startswith(name), error
        return None
    assert document.text.strip() and rebuilds(document)
    assert len(document.page_starts) == document.page_count >= 1
    return document


@pytest.mark.parametrize("source", ["factory", "handbook"])
def test_truncated_pdfs_at_many_cut_points(source):
    data = (
        make_pdf(["Page one words. " * 20, "", "Page three words. " * 20])
        if source == "factory"
        else (HANDBOOK.read_bytes())
    )
    cuts = sorted({*range(1, 64, 7), *range(64, len(data), max(1, len(data) // 40)), len(data) - 1})
    outcomes = [check_damaged(data[:cut]) for cut in cuts]
    assert any(outcome is None for outcome in outcomes)  # some cuts are refused ...
    assert any(outcome is not None for outcome in outcomes)  # ... and others repaired


def test_truncated_handbook_whose_page_list_cannot_be_rebuilt():
    """MuPDF raises on ``page_count`` for these; the loader turns it into a typed error."""
    data = HANDBOOK.read_bytes()
    with pytest.raises(CorruptDocumentError, match=r"handbook\.pdf: its list of pages could not be read.*truncated"):
        load_document(data[: len(data) // 2], name="handbook.pdf")


@pytest.mark.parametrize("seed", range(6))
def test_pdfs_with_flipped_and_inserted_bytes(seed):
    rng = random.Random(seed)
    base = make_pdf(["Alpha words on page one. " * 10, "Beta words on page two. " * 10])
    for _ in range(25):
        data = bytearray(base)
        for _ in range(rng.randint(1, 30)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        position = rng.randrange(len(data))
        data[position:position] = rng.randbytes(rng.randint(0, 50))
        check_damaged(bytes(data))


PAGE_TREE = b"/Kids[4 0 R 8 0 R]"


@pytest.mark.parametrize(
    ("old", "new", "error", "message"),
    [
        (b"/Count 2", b"/Count 1000000", CorruptDocumentError, "list of pages could not be read"),
        (b"/Count 2", b"/Count -1", CorruptDocumentError, "list of pages could not be read"),
        (PAGE_TREE, b"/Kids[2 0 R]", CorruptDocumentError, "no page could be read"),  # the tree is its own child
        (b"/Pages 2 0 R", b"/Pages 9 0 R", CorruptDocumentError, "has no pages"),  # points nowhere
        (b"/Root", b"/Rooo", CorruptDocumentError, "has no pages"),
    ],
)
def test_damaged_page_trees_raise_typed_errors(old, new, error, message):
    base = make_pdf(["one words", "two words"])
    assert old in base
    with pytest.raises(error, match=message):
        load_document(base.replace(old, new, 1), name="tree.pdf")


def test_a_page_in_a_cycle_is_skipped_and_the_others_are_kept():
    """Page 2 is the page tree itself: loading it raises inside MuPDF; page 1 is kept."""
    base = make_pdf(["one words", "two words"])
    document = load_document(base.replace(PAGE_TREE, b"/Kids[4 0 R 2 0 R]"), name="cycle.pdf")
    assert document.text == "one words\n" and document.empty_pages == (2,) and document.page_count == 2


def test_a_page_whose_text_extraction_fails_is_kept_empty(monkeypatch):
    original = pymupdf.Page.get_text

    def failing_on_page_two(page, *args, **kwargs):
        if page.number == 1:
            raise RuntimeError("damaged content stream")
        return original(page, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_text", failing_on_page_two)
    document = load_document(make_pdf(["first page", "second page", "third page"]), name="one-bad-page.pdf")
    assert document.text == "first page\nthird page\n" and document.empty_pages == (2,)
    monkeypatch.setattr(pymupdf.Page, "get_text", lambda *args, **kwargs: 1 / 0)
    with pytest.raises(CorruptDocumentError, match="no page could be read"):
        load_document(make_pdf(["first page"]), name="all-bad.pdf")


# --- encryption, scans, empty pages ------------------------------------------------------------


@pytest.mark.parametrize(
    "method",
    [pymupdf.PDF_ENCRYPT_RC4_40, pymupdf.PDF_ENCRYPT_RC4_128, pymupdf.PDF_ENCRYPT_AES_128],
    ids=["rc4-40", "rc4-128", "aes-128"],
)
def test_pdfs_that_need_a_password_are_refused_for_every_method(method):
    with pytest.raises(EncryptedDocumentError, match=r"locked\.pdf is password protected; remove the password"):
        load_document(make_encrypted_pdf_with(method), name="locked.pdf")


def test_pdf_encrypted_with_an_owner_password_only_loads():
    """Permissions-only encryption needs no password to read; refusing it would be wrong."""
    assert load_document(make_owner_only_encrypted_pdf("open to all"), name="perm.pdf").text == "open to all\n"


@pytest.mark.parametrize(
    ("pages", "count"),
    [([None], 1), ([None] * 5, 5), (["", None, "   "], 3)],
    ids=["one-page-scan", "five-page-scan", "scan-and-blank-pages"],
)
def test_pdfs_without_a_text_layer_suggest_ocr(pages, count):
    with pytest.raises(NoTextLayerError, match=rf"scan\.pdf has {count} page\(s\) but no text layer.*OCR"):
        load_document(make_mixed_scan_pdf(pages), name="scan.pdf")


def test_scan_with_an_invisible_ocr_layer_loads():
    assert load_document(make_ocr_layer_pdf("recognised words"), name="ocr.pdf").text == "recognised words\n"


@pytest.mark.parametrize(
    ("pages", "empty"),
    [
        (["", "Middle text.", ""], (1, 3)),
        (["Start.", "", "", "End."], (2, 3)),
        ([None, "Text after a scanned page."], (1,)),  # an image-only page in a text PDF
        (["Text.", "   \n  "], (2,)),  # whitespace only counts as empty
    ],
)
def test_empty_pages_are_kept_reported_and_never_claim_a_chunk(pages, empty):
    document = load_document(make_mixed_scan_pdf(pages), name="gaps.pdf")
    assert document.page_count == len(pages) and document.empty_pages == empty
    for number, text in enumerate(pages, 1):
        if text and text.strip():
            assert document.page_of(document.text.index(text)) == number
    for chunk in chunk_document(document, 50):
        assert chunk.first_page not in empty and chunk.last_page not in empty


# --- limits -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "limit", "message"),
    [
        (2_000, 1_000, "is 2.0 KB; the limit is 1,000 bytes"),
        (5_000, 4_096, "is 4.9 KB; the limit is 4.0 KB"),
        (1_048_577, 1_048_576, "is 1,048,577 bytes; the limit is 1,048,576 bytes"),  # same when rounded
        (3 * 1_048_576, 2 * 1_048_576, "is 3.0 MB; the limit is 2.0 MB"),
    ],
)
def test_size_limit_message_names_both_sizes_readably(size, limit, message):
    with pytest.raises(DocumentTooLargeError, match=f"big.txt {message}"):
        load_document(b"x" * size, name="big.txt", limits=LoadLimits(max_bytes=limit))


def test_limits_are_inclusive():
    assert load_document(b"x" * 1000, name="ok.txt", limits=LoadLimits(max_bytes=1000)).text == "x" * 1000
    assert load_document(make_pdf(["a", "b", "c"]), name="ok.pdf", limits=LoadLimits(max_pages=3)).page_count == 3


def test_huge_file_on_disk_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.pdf"
    with path.open("wb") as handle:  # sparse: 60 MB on paper, nothing on disk
        handle.truncate(60 * 1_048_576)
    monkeypatch.setattr(type(path), "read_bytes", lambda self: pytest.fail("read a file over the limit"))
    with pytest.raises(DocumentTooLargeError, match=r"huge\.pdf is 60\.0 MB; the limit is 50\.0 MB"):
        load_document(path)


def test_uploaded_bytes_without_a_name_are_called_the_upload():
    with pytest.raises(DocumentTooLargeError, match=r"the upload is 2\.0 KB"):
        load_document(b"y" * 2048, limits=LoadLimits(max_bytes=1024))


# --- unusual text -------------------------------------------------------------------------------


CJK = "冷却系统使用液体。日本語のテキスト。한국어 텍스트."
KEPT = "e\u0301t\u00e9 \U0001f600 \u200bzero\u200dwidth"  # combining accent, emoji, zero-width characters


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("co\u00adoper\u00adate", "cooperate", id="soft-hyphens"),
        pytest.param("\ufb00 \ufb01 \ufb02 \ufb03 \ufb04 \ufb05 \ufb06", "ff fi fl ffi ffl st st", id="ligatures"),
        pytest.param("שלום עולם, זה מסמך.", "שלום עולם, זה מסמך.", id="hebrew-unchanged"),
        pytest.param("مرحبا بالعالم، هذا مستند.", "مرحبا بالعالم، هذا مستند.", id="arabic-unchanged"),
        pytest.param(CJK, CJK, id="cjk-unchanged"),
        pytest.param("a\x00b\x01c\x08d\x1be\x7ff\x80g\x9fh", "abcdefgh", id="nul-and-controls"),
        pytest.param("col1\tcol2\n", "col1\tcol2\n", id="tab-and-newline-kept"),
        pytest.param("one\r\ntwo\rthree\n", "one\ntwo\nthree\n", id="windows-and-old-mac-line-ends"),
        pytest.param("page\x0cnext\x0bline\u2028sep\u2029para", "page\nnext\nline\nsep\npara", id="other-breaks"),
        pytest.param("first line\x85second line", "first line\nsecond line", id="nel-is-a-line-break"),
        pytest.param("\ufeffStarts with a BOM, \ufeffand one inside.", "Starts with a BOM, and one inside.", id="bom"),
        pytest.param(KEPT, KEPT, id="combining-emoji-zero-width-unchanged"),
    ],
)
def test_unusual_text_in_a_txt_file(raw, expected):
    document = load_document(raw.encode("utf-8"), name="odd.txt")
    assert document.text == expected
    assert clean_text(expected) == expected  # cleaning is idempotent
    assert rebuilds(document, 50)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # mostly UTF-8 with one broken byte: keep the UTF-8, mark the byte with U+FFFD
        pytest.param(
            "café naïve déjà vu ".encode() + b"\xff fin.", "café naïve déjà vu \ufffd fin.", id="utf8-with-a-stray-byte"
        ),
        pytest.param("Größe: 5 €".encode()[:-1], "Größe: 5 \ufffd", id="utf8-cut-mid-character"),
        # a legacy Windows file: decoded as cp1252, not as mojibake
        pytest.param("Café “quoted” – 5 €".encode("cp1252"), "Café “quoted” – 5 €", id="cp1252"),
        pytest.param("naïve résumé".encode("latin-1"), "naïve résumé", id="latin-1"),
        pytest.param(
            b"undefined \x81\x8d\x8f\x90\x9d bytes",
            "undefined \ufffd\ufffd\ufffd\ufffd\ufffd bytes",
            id="cp1252-undefined-bytes",
        ),
    ],
)
def test_invalid_utf8_in_a_txt_file_is_decoded_without_mojibake(data, expected):
    document = load_document(data, name="legacy.txt")
    assert document.text == expected and "Ã" not in document.text


def test_binary_data_in_a_txt_file_is_refused():
    with pytest.raises(UnsupportedFormatError, match=r"data\.txt does not look like a text file"):
        load_document(bytes(range(256)) * 4, name="data.txt")


def test_markdown_title_after_a_bom():
    assert load_document("\ufeff# Título\n\nTexto.".encode(), name="t.md").title == "Título"


@pytest.mark.parametrize("length", [801, 20_000])
def test_very_long_line_without_whitespace_is_cut_hard(length):
    token = "".join(random.Random(length).choice("abcdef0123456789") for _ in range(length))
    document = load_document(f"hash: {token} end".encode(), name="long.txt")
    chunks = chunk_document(document, 800)
    assert rebuilds(document, 800) and all(len(chunk) <= 800 for chunk in chunks) and len(chunks) >= 2


@pytest.mark.parametrize(
    ("lines", "expected", "needs_font"),
    [
        pytest.param(
            ["\ufb01nance of\ufb02ow", "co\u00adoperate"],
            "finance offlow\ncooperate\n",
            True,
            id="ligatures-and-soft-hyphen",
        ),
        # drawn in visual order (right to left), extracted in logical order
        pytest.param(["שלום עולם"[::-1], "مرحبا بالعالم"[::-1]], "שלום עולם\nمرحبا بالعالم\n", True, id="rtl"),
        pytest.param(["中文文本测试。冷却系统", "日本語"], "中文文本测试。冷却系统\n日本語\n", False, id="cjk"),
    ],
)
def test_unusual_text_in_a_pdf_text_layer(lines, expected, needs_font):
    font = unicode_font_file()
    if needs_font and font is None:
        pytest.skip("no TrueType font with Hebrew, Arabic and ligatures on this machine")
    data = make_font_pdf(lines, fontname="uni", fontfile=font) if needs_font else make_font_pdf(lines)
    document = load_document(data, name="unicode.pdf")
    assert document.text == expected and rebuilds(document, 50)


# --- documents shorter than one chunk -----------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "name", "query"),
    [
        (b"Refunds take five days.", "tiny.txt", "refunds"),
        (b"# Refunds\n\nFive days.", "tiny.md", "how many days?"),
        (b"ok", "two-chars.txt", "ok"),
        (make_pdf(["Refunds take five days."]), "tiny.pdf", "refunds"),
    ],
)
def test_document_shorter_than_one_chunk_is_one_chunk_and_extracts(data, name, query):
    document = load_document(data, name=name)
    chunks = chunk_document(document, 800)
    assert len(chunks) == 1 and chunks[0].text == document.text and chunks[0].pages == "p. 1"
    result = extract(document, query, RSEParams(minimum_value=0.1), scorer="bm25")
    assert [(segment.start, segment.end, segment.text) for segment in result.segments] == [(0, 1, document.text)]
    assert result.top_k == (0,) and result.empty_reason() is None


# --- HTML and scripts inside documents ----------------------------------------------------------

SCRIPT = "<script>alert(1)</script>"
IMAGE = "<img src=x onerror=alert(1)>"


@pytest.mark.parametrize(
    ("make_data", "name"),
    [
        (lambda: make_pdf([f"Before {SCRIPT} middle {IMAGE} after."], title=f"{SCRIPT}"), "xss.pdf"),
        (lambda: make_pdf_with_javascript(f"Before {SCRIPT} middle {IMAGE} after."), "open-action.pdf"),
        (lambda: f"Before {SCRIPT} middle {IMAGE} after.".encode(), "xss.txt"),
        (lambda: f"# {SCRIPT}\n\nBefore {SCRIPT} middle {IMAGE} after.".encode(), "xss.md"),
        (lambda: f"Before {SCRIPT} middle {IMAGE} after.".encode(), f"{IMAGE}.txt"),
    ],
)
def test_html_in_a_document_is_kept_verbatim_as_plain_text(make_data, name):
    """The core neither strips nor escapes markup (the UI escapes it), and runs nothing."""
    document = load_document(make_data(), name=name)
    assert f"Before {SCRIPT} middle {IMAGE} after." in document.text
    assert "&lt;" not in document.text and document.name == name
    if name in {"xss.pdf", "xss.md"}:
        assert document.title == SCRIPT
    result = extract(document, "alert onerror", RSEParams(minimum_value=0.1), scorer="bm25")
    assert result.segments and result.segments[0].text == document.text
    dumped = json.loads(json.dumps(result.to_dict()))
    assert dumped["documents"][0]["doc"] == name and dumped["segments"][0]["text"] == document.text
