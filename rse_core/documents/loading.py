"""Load PDFs, text and Markdown files into :class:`Document` objects.

A document keeps its full cleaned text and the character offset where each page starts, so any
chunk or segment can say which pages it comes from. Its id is a hash of the file's bytes, which
makes it a stable cache key for embeddings and scores.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from rse_core.documents.cleaning import clean_text
from rse_core.documents.encoding import decode_text
from rse_core.documents.headings import Heading, markdown_headings, pdf_headings, text_headings
from rse_core.documents.layout import PageLayout, build_layout
from rse_core.documents.pdf_budget import ContentBudgetExceeded, ContentMeter
from rse_core.documents.pymupdf_import import import_pymupdf
from rse_core.errors import (
    CorruptDocumentError,
    DocumentTooLargeError,
    EmptyDocumentError,
    EncryptedDocumentError,
    NoTextLayerError,
    ParameterError,
    UnreadableFileError,
    UnsupportedFormatError,
)

TEXT_SUFFIXES = (".txt", ".md", ".markdown")
PDF_SUFFIXES = (".pdf",)
SUPPORTED_SUFFIXES = PDF_SUFFIXES + TEXT_SUFFIXES


_MB = 1_048_576
DOC_ID_DIGITS = 16
"""Hex digits of a document id: the first ones of its bytes' SHA-256 (:func:`document_id`)."""
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class LoadLimits:
    """Upper bounds that keep one upload from exhausting memory or time.

    File size and page count are known before any text is extracted, but a 2 KB PDF can draw
    the same text millions of times (see :mod:`rse_core.documents.pdf_budget`), so what the extraction
    will cost is bounded too: the content every page draws once reused XObjects are expanded
    (measured before extracting), the characters extracted, and the wall-clock time.

    Attributes:
        max_bytes: largest file accepted, in bytes (default 50 MB; ``RSE_MAX_FILE_MB``).
        max_pages: most PDF pages accepted (default 2,000; ``RSE_MAX_PAGES``).
        max_chars: most characters in one document (default 60 million, above what a 50 MB
            text file holds; ``RSE_MAX_CHARS``).
        max_page_chars: most characters from one PDF page (default 1 million, a hundred times a
            dense page; ``RSE_MAX_PAGE_CHARS``).
        max_page_content_bytes: most content one PDF page may draw, XObjects expanded (default
            8 MB, some 300 times a text-heavy page; ``RSE_MAX_PAGE_CONTENT_MB``).
        max_content_bytes: the same for the whole document (default 100 MB;
            ``RSE_MAX_CONTENT_MB``).
        max_seconds: wall-clock budget for extracting a PDF's text (default 60 s;
            ``RSE_MAX_EXTRACT_SECONDS``), checked after every page.
    """

    max_bytes: int = 50 * _MB
    max_pages: int = 2000
    max_chars: int = 60_000_000
    max_page_chars: int = 1_000_000
    max_page_content_bytes: int = 8 * _MB
    max_content_bytes: int = 100 * _MB
    max_seconds: float = 60.0

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ParameterError(f"LoadLimits.{name} must be a number above 0; got {value!r}.")

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> LoadLimits:
        """Limits from the ``RSE_MAX_*`` environment variables (defaults where unset).

        Raises:
            ParameterError: a variable is set but is not a finite number above 0.
        """
        environ = os.environ if environ is None else environ
        defaults = cls()

        def read(variable: str, default: float) -> float:
            raw = environ.get(variable)
            if raw is None or not raw.strip():
                return default
            try:
                number = float(raw)
            except ValueError:
                number = math.nan
            if not math.isfinite(number) or number <= 0:
                raise ParameterError(
                    f"The environment variable {variable}={raw!r} must be a number above 0; fix or unset it."
                )
            return number

        return cls(
            max_bytes=int(read("RSE_MAX_FILE_MB", defaults.max_bytes / _MB) * _MB),
            max_pages=max(1, int(read("RSE_MAX_PAGES", defaults.max_pages))),
            max_chars=max(1, int(read("RSE_MAX_CHARS", defaults.max_chars))),
            max_page_chars=max(1, int(read("RSE_MAX_PAGE_CHARS", defaults.max_page_chars))),
            max_page_content_bytes=int(read("RSE_MAX_PAGE_CONTENT_MB", defaults.max_page_content_bytes / _MB) * _MB),
            max_content_bytes=int(read("RSE_MAX_CONTENT_MB", defaults.max_content_bytes / _MB) * _MB),
            max_seconds=read("RSE_MAX_EXTRACT_SECONDS", defaults.max_seconds),
        )


@dataclass(frozen=True)
class Document:
    """One loaded document.

    Attributes:
        doc_id: first 16 hex digits of the SHA-256 of the source bytes.
        name: file name as given (shown to users, always escaped by the UI).
        title: PDF title metadata, the first Markdown heading, or the file name without extension.
        text: the cleaned full text; chunk and segment offsets index into it.
        page_starts: offset in ``text`` where each page begins (``(0,)`` for text files).
        kind: ``"pdf"``, ``"text"`` or ``"markdown"``.
        empty_pages: 1-based numbers of PDF pages that had no text (kept as zero-length pages).
        encoding: how a text file's bytes were decoded (``"utf-8"``, ``"utf-16"``,
            ``"gb18030"``...); ``""`` for a PDF. See :attr:`encoding_note`.
        source: the PDF's bytes (``None`` for text files), kept so the page view can draw pages.
        headings: section headings found in it (see :mod:`rse_core.documents.headings`), in text order;
            used for contextual chunk headers.
    """

    doc_id: str
    name: str
    title: str
    text: str
    page_starts: tuple[int, ...] = (0,)
    kind: str = "text"
    empty_pages: tuple[int, ...] = ()
    encoding: str = ""
    headings: tuple[Heading, ...] = ()

    @property
    def encoding_note(self) -> str | None:
        """A sentence for the user when the text was not plain UTF-8 (``None`` otherwise)."""
        if self.encoding in ("", "utf-8", "ascii"):
            return None
        return f"{self.name} was read as {self.encoding} text."

    source: bytes | None = field(default=None, compare=False, repr=False)

    @cached_property
    def layout(self) -> PageLayout | None:
        """For a PDF, the page, glyph and box of every character of ``text``; ``None`` otherwise.

        Nothing is read at load: each page's glyphs are read when the page view first needs them
        (reading glyphs costs about ten times the plain text extraction), and at most
        ``RSE_MAX_GLYPHS`` characters' worth are kept (see :class:`~rse_core.documents.layout.PageLayout`).
        """
        return None if self.source is None else build_layout(self.source, self.text, self.page_starts)

    @property
    def page_count(self) -> int:
        return len(self.page_starts)

    def page_of(self, char_index: int) -> int:
        """1-based page number of the character at ``char_index``."""
        return max(1, bisect.bisect_right(self.page_starts, char_index))

    def pages_of_span(self, start: int, end: int) -> tuple[int, int]:
        """First and last 1-based page of the characters ``start:end`` (end exclusive)."""
        return self.page_of(start), self.page_of(max(start, end - 1))

    def renamed(self, name: str) -> Document:
        """This document under another file name, titled as if it had been loaded under it.

        Why: a title that comes from the file name (no PDF title, no Markdown heading) is in every
        contextual chunk header, so the same bytes under another name score differently. A shared
        link names its uploads; a file given for it is renamed to the link's name so its scores are
        the link's. A title from the contents stays as it is.
        """
        if name == self.name:
            return self
        title = Path(name).stem if self.title == Path(self.name).stem else self.title
        return replace(self, name=name, title=title)

    def with_name_in_title(self) -> Document:
        """This document titled by its file name (without extension) first, then the title of its
        contents when that differs: ``3M_2018_10K | 10-K - 02/07/2019 - 3M Company``.

        Why: the title is in every contextual chunk header, and in a collection a file's name often
        says what the contents' title does not; FinanceBench's PDFs are titled with their filing
        date (2019), their names with the fiscal year their questions ask about (2018). dsRAG's
        AutoContext asks an LLM for such a title; a knowledge base can take the name instead
        (:attr:`rse_core.kb.catalog.Catalog.name_in_title`).
        """
        stem = Path(self.name).stem
        return self if self.title == stem else replace(self, title=f"{stem} | {self.title}")

    @classmethod
    def from_text(cls, text: str, name: str = "text.txt") -> Document:
        """Build a document from a string, as if it had been loaded from a UTF-8 file.

        A lone surrogate (half of a character pair, from a broken decode) cannot be stored in a
        file; each becomes U+FFFD, as an undecodable byte in a file would.
        """
        if not isinstance(text, str):
            raise UnsupportedFormatError(f"Document.from_text takes a string, not {type(text).__name__}.")
        text = _LONE_SURROGATE.sub("\ufffd", text)
        return load_document(text.encode("utf-8"), name=name)


def load_document(
    source: str | Path | bytes,
    name: str | None = None,
    *,
    limits: LoadLimits = LoadLimits(),
) -> Document:
    """Load a PDF, ``.txt`` or ``.md`` file from a path or from bytes.

    Args:
        source: a file path, or the file's bytes (an upload).
        name: the file name; required to know the format when ``source`` is bytes
            (default ``"document.txt"`` when the bytes are not a PDF).
        limits: size and page limits.

    Raises:
        DocumentError: a subclass naming the problem: empty, unsupported or mislabelled file,
            corrupt or encrypted PDF, no text layer, or over a limit.
    """
    data, name = _read_source(source, name, limits)
    if name is not None:
        name = _printable_name(name)
    head = data[:1024]
    starts_as_pdf = head.lstrip().startswith(b"%PDF")
    looks_like_pdf = starts_as_pdf or b"%PDF-" in head
    # A text file may mention "%PDF-" in its first lines: call it a PDF only if it starts with the
    # header, or has the header after a few stray bytes and a PDF trailer too.
    is_pdf = starts_as_pdf or (looks_like_pdf and b"startxref" in data)
    name = name or ("document.pdf" if is_pdf else "document.txt")
    suffix = Path(name).suffix.lower()
    if not data.strip():
        raise EmptyDocumentError(f"{name} is empty.")
    if suffix not in SUPPORTED_SUFFIXES:
        raise UnsupportedFormatError(
            f"{name}: unsupported file type {suffix or '(no extension)'}; use one of {', '.join(SUPPORTED_SUFFIXES)}."
        )
    doc_id = document_id(data)
    if suffix in PDF_SUFFIXES:
        if not looks_like_pdf:
            raise UnsupportedFormatError(
                f"{name} is not a PDF: its content does not start with '%PDF'. "
                "Check the file, or rename it if it is plain text."
            )
        return _load_pdf(data, name, doc_id, limits)
    if is_pdf:
        raise UnsupportedFormatError(f"{name} is a PDF file with a {suffix} extension; rename it to .pdf.")
    return _load_text(data, name, doc_id, "text" if suffix == ".txt" else "markdown", limits)


def document_id(data: bytes) -> str:
    """The id ``load_document`` gives a document of these bytes: their SHA-256, :data:`DOC_ID_DIGITS` hex digits."""
    return hashlib.sha256(data).hexdigest()[:DOC_ID_DIGITS]


def _read_source(source: str | Path | bytes, name: str | None, limits: LoadLimits) -> tuple[bytes, str | None]:
    """The bytes to load and the file's name, refusing what is not a readable file within the size limit."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        _check_size(len(data), _printable_name(name or "the upload"), limits)
        return data, name
    if not isinstance(source, (str, Path)):
        raise UnsupportedFormatError(
            f"load_document takes a file path or the file's bytes, not {type(source).__name__}; "
            "for a string of text use Document.from_text(text)."
        )
    path = Path(source)
    shown = _printable_name(str(path))
    try:
        if path.is_dir():
            raise UnsupportedFormatError(f"{shown} is a folder, not a file; give the files inside it.")
        if not path.exists():
            raise UnsupportedFormatError(f"No such file: {shown}")
        if not path.is_file():
            raise UnsupportedFormatError(f"{shown} is not a regular file; give a PDF, .txt or .md file.")
        _check_size(path.stat().st_size, _printable_name(path.name), limits)
        data = path.read_bytes()
    except OSError as error:  # no permission, a broken disk, a name the system refuses
        raise UnreadableFileError(
            f"{shown} could not be read ({error.strerror or error}); check that it exists and you may read it."
        ) from None
    return data, name or path.name


def _load_text(data: bytes, name: str, doc_id: str, kind: str, limits: LoadLimits) -> Document:
    """A text or Markdown file: decoded, cleaned, within the character limit, with its headings."""
    decoded, encoding = decode_text(data, name)
    text = clean_text(decoded)
    if not text.strip():
        raise EmptyDocumentError(f"{name} has no text.")
    if len(text) > limits.max_chars:
        raise DocumentTooLargeError(
            f"{name} has {len(text):,} characters; the limit is {limits.max_chars:,}. "
            "Raise it with RSE_MAX_CHARS (or LoadLimits(max_chars=...)), or split the file."
        )
    headings = markdown_headings(text) if kind == "markdown" else text_headings(text)
    return Document(
        doc_id=doc_id,
        name=name,
        title=_text_title(text, kind, name),
        text=text,
        kind=kind,
        encoding=encoding,
        headings=headings,
    )


def _printable_name(name: str) -> str:
    """``name`` with what no output can show replaced: control characters (a newline would
    split a one-line message) by ``?``, undecodable bytes and lone surrogates by U+FFFD."""
    if not isinstance(name, str):
        name = str(name)
    name = "".join(
        chr(0xFFFD) if 0xD800 <= ord(c) <= 0xDFFF else c  # a byte the file system name could not decode
        for c in name
    )
    return "".join("?" if (ord(c) < 32 or 127 <= ord(c) < 160 or c in "\u2028\u2029") else c for c in name)


def _check_size(size: int, name: str, limits: LoadLimits) -> None:
    if size > limits.max_bytes:
        size_text, limit_text = _format_size(size), _format_size(limits.max_bytes)
        if size_text == limit_text:  # "50.0 MB; the limit is 50.0 MB" would not say why
            size_text, limit_text = f"{size:,} bytes", f"{limits.max_bytes:,} bytes"
        raise DocumentTooLargeError(
            f"{name} is {size_text}; the limit is {limit_text}. "
            "Raise it with RSE_MAX_FILE_MB (or LoadLimits(max_bytes=...)), or split the file."
        )


def _format_size(size: int) -> str:
    if size < 1024:
        return f"{size:,} bytes"
    if size < 1_048_576:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1_048_576:.1f} MB"


def _text_title(text: str, kind: str, name: str) -> str:
    if kind == "markdown":
        for line in text.splitlines():
            if line.startswith("# "):
                return line[2:].strip()[:120] or Path(name).stem
    return Path(name).stem


def _load_pdf(data: bytes, name: str, doc_id: str, limits: LoadLimits) -> Document:
    with _open_pdf(data, name) as pdf:
        page_count = _page_count(pdf, name, limits)
        deadline = time.monotonic() + limits.max_seconds
        _check_content(pdf, name, page_count, limits, deadline)
        page_texts, failed = _page_texts(pdf, name, page_count, limits, deadline)
        try:
            metadata_title = (pdf.metadata or {}).get("title") or ""
        except Exception:  # damaged metadata is no reason to refuse the text
            metadata_title = ""
        page_starts = _page_starts(page_texts)
        try:
            headings = pdf_headings(pdf, page_texts, page_starts)
        except Exception:  # headings only help scoring: never refuse a document over them
            headings = ()
    if failed == len(page_texts):
        raise CorruptDocumentError(f"{name}: no page could be read; the file may be damaged.")
    if not any(page_text.strip() for page_text in page_texts):
        raise NoTextLayerError(
            f"{name} has {len(page_texts)} page(s) but no text layer; it looks like a scan. "
            "Run OCR on it first (for example with ocrmypdf) and upload the result."
        )
    empty_pages = tuple(number for number, page_text in enumerate(page_texts, 1) if not page_text.strip())
    title = clean_text(metadata_title).strip()[:120] or Path(name).stem
    return Document(
        doc_id=doc_id,
        name=name,
        title=title,
        text="".join(page_texts),
        page_starts=page_starts,
        kind="pdf",
        empty_pages=empty_pages,
        headings=headings,
        source=data,
    )


def _open_pdf(data: bytes, name: str):
    """The PDF opened by PyMuPDF, or a CorruptDocumentError/EncryptedDocumentError that says why not."""
    pymupdf = import_pymupdf()
    try:
        pdf = pymupdf.open(stream=data, filetype="pdf")
    except Exception as error:  # PyMuPDF raises several types for damaged files
        raise CorruptDocumentError(
            f"{name} could not be opened as a PDF ({error}). It may be damaged or truncated."
        ) from error
    if pdf.needs_pass:
        pdf.close()
        raise EncryptedDocumentError(f"{name} is password protected; remove the password and upload it again.")
    return pdf


def _page_count(pdf, name: str, limits: LoadLimits) -> int:
    try:
        page_count = pdf.page_count
    except Exception as error:  # a truncated file whose page tree cannot be rebuilt
        raise CorruptDocumentError(
            f"{name}: its list of pages could not be read ({error}). It may be damaged or truncated."
        ) from error
    if page_count == 0:
        raise CorruptDocumentError(f"{name} has no pages; it may be damaged or truncated.")
    if page_count > limits.max_pages:
        raise DocumentTooLargeError(
            f"{name} has {page_count:,} pages; the limit is {limits.max_pages:,} pages. "
            "Raise it with RSE_MAX_PAGES (or LoadLimits(max_pages=...)), or split the file."
        )
    return page_count


def _page_texts(pdf, name: str, page_count: int, limits: LoadLimits, deadline: float) -> tuple[list[str], int]:
    """Each page's cleaned text (ending in a newline), and how many pages failed to load."""
    page_texts: list[str] = []
    failed = characters = 0
    for number in range(page_count):
        try:  # loading a page can fail too (a malformed or cyclic page tree)
            page_text = clean_text(pdf.load_page(number).get_text("text"))
        except Exception:  # a damaged page: keep the others
            page_text, failed = "", failed + 1
        if page_text and not page_text.endswith("\n"):
            page_text += "\n"  # keep words on either side of a page break apart
        page_texts.append(page_text)
        characters += len(page_text)
        _check_extraction(name, number + 1, page_count, len(page_text), characters, limits, deadline)
    return page_texts, failed


def _check_content(pdf, name: str, page_count: int, limits: LoadLimits, deadline: float) -> None:
    """Refuse a PDF whose pages would draw too much, before extracting any text.

    See :mod:`rse_core.documents.pdf_budget`: the check reads each stream once, so it takes milliseconds
    where the extraction it prevents would take minutes.
    """
    meter = ContentMeter(pdf, limits.max_page_content_bytes)
    total = 0
    for number in range(page_count):
        try:
            total += meter.page_bytes(number)
        except ContentBudgetExceeded as error:
            raise DocumentTooLargeError(
                f"{name}: page {number + 1} asks for more than {_format_size(limits.max_page_content_bytes)} of "
                "content once its reused parts (forms, patterns, Type3 glyphs) and the links between them are "
                "expanded (at least "
                f"{_format_size(error.counted)}); opening and extracting it could take minutes. "
                "If you trust the file, raise RSE_MAX_PAGE_CONTENT_MB (or LoadLimits(max_page_content_bytes=...))."
            ) from None
        except Exception:  # a damaged page: extraction will skip it too
            continue
        if total > limits.max_content_bytes:
            raise DocumentTooLargeError(
                f"{name}: its first {number + 1} of {page_count} pages already draw more than "
                f"{_format_size(limits.max_content_bytes)} of content once reused parts are expanded; extracting "
                "them could take minutes. If you trust the file, raise RSE_MAX_CONTENT_MB "
                "(or LoadLimits(max_content_bytes=...)), or split it."
            )
        if time.monotonic() > deadline:
            _out_of_time(name, number + 1, page_count, limits)


def _check_extraction(
    name: str, page: int, page_count: int, page_chars: int, characters: int, limits: LoadLimits, deadline: float
) -> None:
    """The character and time budgets, checked after each page is extracted."""
    if page_chars > limits.max_page_chars:
        raise DocumentTooLargeError(
            f"{name}: page {page} has {page_chars:,} characters; the limit is {limits.max_page_chars:,} per page. "
            "If you trust the file, raise RSE_MAX_PAGE_CHARS (or LoadLimits(max_page_chars=...))."
        )
    if characters > limits.max_chars:
        raise DocumentTooLargeError(
            f"{name}: its first {page} of {page_count} pages already hold {characters:,} characters; the limit is "
            f"{limits.max_chars:,}. Raise it with RSE_MAX_CHARS (or LoadLimits(max_chars=...)), or split the file."
        )
    if time.monotonic() > deadline:
        _out_of_time(name, page, page_count, limits)


def _out_of_time(name: str, page: int, page_count: int, limits: LoadLimits) -> None:
    raise DocumentTooLargeError(
        f"{name}: reading its text took more than {limits.max_seconds:g} s (stopped at page {page} of "
        f"{page_count}). Raise RSE_MAX_EXTRACT_SECONDS (or LoadLimits(max_seconds=...)) to wait longer, "
        "or split the file."
    )


def _page_starts(page_texts: list[str]) -> tuple[int, ...]:
    starts, offset = [], 0
    for page_text in page_texts:
        starts.append(offset)
        offset += len(page_text)
    return tuple(starts)
