"""Load PDFs, text and Markdown files into :class:`Document` objects.

A document keeps its full cleaned text and the character offset where each page starts, so any
chunk or segment can say which pages it comes from. Its id is a hash of the file's bytes, which
makes it a stable cache key for embeddings and scores.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .errors import (
    CorruptDocumentError,
    DocumentTooLargeError,
    EmptyDocumentError,
    EncryptedDocumentError,
    NoTextLayerError,
    ParameterError,
    UnsupportedFormatError,
)
from .text_cleaning import clean_text

TEXT_SUFFIXES = (".txt", ".md", ".markdown")
PDF_SUFFIXES = (".pdf",)
SUPPORTED_SUFFIXES = PDF_SUFFIXES + TEXT_SUFFIXES


@dataclass(frozen=True)
class LoadLimits:
    """Upper bounds that keep one upload from exhausting memory or time.

    Attributes:
        max_bytes: largest file accepted, in bytes (default 50 MB).
        max_pages: most PDF pages accepted (default 2,000).
    """

    max_bytes: int = 50 * 1024 * 1024
    max_pages: int = 2000

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> LoadLimits:
        """Limits from ``RSE_MAX_FILE_MB`` and ``RSE_MAX_PAGES`` (defaults where unset).

        Raises:
            ParameterError: a variable is set but is not a positive number.
        """
        environ = os.environ if environ is None else environ
        limits = cls()
        try:
            megabytes = float(environ.get("RSE_MAX_FILE_MB", limits.max_bytes / 1_048_576))
            pages = int(environ.get("RSE_MAX_PAGES", limits.max_pages))
        except ValueError as error:
            raise ParameterError(f"RSE_MAX_FILE_MB and RSE_MAX_PAGES must be numbers ({error}).") from error
        if megabytes <= 0 or pages <= 0:
            raise ParameterError("RSE_MAX_FILE_MB and RSE_MAX_PAGES must be above 0.")
        return cls(max_bytes=int(megabytes * 1_048_576), max_pages=pages)


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
    """

    doc_id: str
    name: str
    title: str
    text: str
    page_starts: tuple[int, ...] = (0,)
    kind: str = "text"
    empty_pages: tuple[int, ...] = ()

    @property
    def page_count(self) -> int:
        return len(self.page_starts)

    def page_of(self, char_index: int) -> int:
        """1-based page number of the character at ``char_index``."""
        return max(1, bisect.bisect_right(self.page_starts, char_index))

    def pages_of_span(self, start: int, end: int) -> tuple[int, int]:
        """First and last 1-based page of the characters ``start:end`` (end exclusive)."""
        return self.page_of(start), self.page_of(max(start, end - 1))

    @classmethod
    def from_text(cls, text: str, name: str = "text.txt") -> Document:
        """Build a document from a string, as if it had been loaded from a UTF-8 file."""
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
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise UnsupportedFormatError(f"No such file: {path}")
        size = path.stat().st_size
        _check_size(size, path.name, limits)
        data = path.read_bytes()
        name = name or path.name
    else:
        data = bytes(source)
        _check_size(len(data), name or "the upload", limits)
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
    doc_id = hashlib.sha256(data).hexdigest()[:16]
    if suffix in PDF_SUFFIXES:
        if not looks_like_pdf:
            raise UnsupportedFormatError(
                f"{name} is not a PDF: its content does not start with '%PDF'. "
                "Check the file, or rename it if it is plain text."
            )
        return _load_pdf(data, name, doc_id, limits)
    if is_pdf:
        raise UnsupportedFormatError(f"{name} is a PDF file with a {suffix} extension; rename it to .pdf.")
    kind = "text" if suffix == ".txt" else "markdown"
    text = clean_text(_decode_text(data, name))
    if not text.strip():
        raise EmptyDocumentError(f"{name} has no text.")
    return Document(doc_id=doc_id, name=name, title=_text_title(text, kind, name), text=text, kind=kind)


def _check_size(size: int, name: str, limits: LoadLimits) -> None:
    if size > limits.max_bytes:
        size_text, limit_text = _format_size(size), _format_size(limits.max_bytes)
        if size_text == limit_text:  # "50.0 MB; the limit is 50.0 MB" would not say why
            size_text, limit_text = f"{size:,} bytes", f"{limits.max_bytes:,} bytes"
        raise DocumentTooLargeError(f"{name} is {size_text}; the limit is {limit_text}.")


def _format_size(size: int) -> str:
    if size < 1024:
        return f"{size:,} bytes"
    if size < 1_048_576:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1_048_576:.1f} MB"


def _decode_text(data: bytes, name: str) -> str:
    """Decode UTF-8 (with or without BOM); refuse binary files instead of showing mojibake."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    sample = data[:4096]
    binary_bytes = sum(byte < 9 or 13 < byte < 32 for byte in sample)
    if b"\x00" in sample or binary_bytes > len(sample) * 0.05:
        raise UnsupportedFormatError(f"{name} does not look like a text file (it contains binary data).")
    # Mostly UTF-8 with a few broken bytes (a damaged copy, a cut multi-byte character): keep the
    # UTF-8 and show each broken byte as U+FFFD. Otherwise it is a legacy Windows (cp1252) file.
    as_utf8 = data.decode("utf-8-sig", errors="replace")
    broken = as_utf8.count("\ufffd")
    non_ascii = len(as_utf8) - len(as_utf8.encode("ascii", errors="ignore"))
    if non_ascii - broken > broken:
        return as_utf8
    return data.decode("cp1252", errors="replace")


def _text_title(text: str, kind: str, name: str) -> str:
    if kind == "markdown":
        for line in text.splitlines():
            if line.startswith("# "):
                return line[2:].strip()[:120] or Path(name).stem
    return Path(name).stem


# Optional add-ons that ``import pymupdf`` pulls in when installed. Plain text extraction never uses
# them, they cost ~1.5 s of import, and pymupdf.layout loads onnxruntime, whose telemetry looks up
# and contacts a Microsoft host: this library must run offline.
_PYMUPDF_ADDONS = ("pymupdf.layout", "pymupdf4llm")


def import_pymupdf():
    """``pymupdf`` without its layout and LLM add-ons (and so without onnxruntime).

    If pymupdf is not imported yet, the add-ons are marked as unavailable in ``sys.modules``
    (pymupdf itself treats a failed import of them as "not installed"); ``get_text("text")``
    gives the same text either way (tested). If onnxruntime is loaded anyway, its telemetry is
    switched off.
    """
    if "pymupdf" not in sys.modules:
        for name in _PYMUPDF_ADDONS:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]
    import pymupdf

    onnxruntime = sys.modules.get("onnxruntime")
    if onnxruntime is not None and hasattr(onnxruntime, "disable_telemetry_events"):
        onnxruntime.disable_telemetry_events()
    return pymupdf


def _load_pdf(data: bytes, name: str, doc_id: str, limits: LoadLimits) -> Document:
    pymupdf = import_pymupdf()

    try:
        pdf = pymupdf.open(stream=data, filetype="pdf")
    except Exception as error:  # PyMuPDF raises several types for damaged files
        raise CorruptDocumentError(
            f"{name} could not be opened as a PDF ({error}). It may be damaged or truncated."
        ) from error
    with pdf:
        if pdf.needs_pass:
            raise EncryptedDocumentError(f"{name} is password protected; remove the password and upload it again.")
        try:
            page_count = pdf.page_count
        except Exception as error:  # a truncated file whose page tree cannot be rebuilt
            raise CorruptDocumentError(
                f"{name}: its list of pages could not be read ({error}). It may be damaged or truncated."
            ) from error
        if page_count == 0:
            raise CorruptDocumentError(f"{name} has no pages; it may be damaged or truncated.")
        if page_count > limits.max_pages:
            raise DocumentTooLargeError(f"{name} has {page_count} pages; the limit is {limits.max_pages} pages.")
        page_texts: list[str] = []
        failed = 0
        for number in range(page_count):
            try:  # loading a page can fail too (a malformed or cyclic page tree)
                page_text = clean_text(pdf.load_page(number).get_text("text"))
            except Exception:  # a damaged page: keep the others
                page_text, failed = "", failed + 1
            if page_text and not page_text.endswith("\n"):
                page_text += "\n"  # keep words on either side of a page break apart
            page_texts.append(page_text)
        try:
            metadata_title = (pdf.metadata or {}).get("title") or ""
        except Exception:  # damaged metadata is no reason to refuse the text
            metadata_title = ""
    if failed == len(page_texts):
        raise CorruptDocumentError(f"{name}: no page could be read; the file may be damaged.")
    if not any(page_text.strip() for page_text in page_texts):
        raise NoTextLayerError(
            f"{name} has {len(page_texts)} page(s) but no text layer; it looks like a scan. "
            "Run OCR on it first (for example with ocrmypdf) and upload the result."
        )
    page_starts, offset = [], 0
    for page_text in page_texts:
        page_starts.append(offset)
        offset += len(page_text)
    empty_pages = tuple(number for number, page_text in enumerate(page_texts, 1) if not page_text.strip())
    title = clean_text(metadata_title).strip()[:120] or Path(name).stem
    return Document(
        doc_id=doc_id,
        name=name,
        title=title,
        text="".join(page_texts),
        page_starts=tuple(page_starts),
        kind="pdf",
        empty_pages=empty_pages,
    )
