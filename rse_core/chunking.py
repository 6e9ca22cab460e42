"""Cut a document into chunks with no overlap.

RSE rebuilds segments by joining neighbouring chunks, so chunks must tile the text exactly:
``"".join(chunk.text for chunk in chunks) == document.text`` for every document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rse_core.documents import Document
from rse_core.documents.headings import HeaderIndex
from rse_core.errors import ParameterError

DEFAULT_CHUNK_SIZE = 800
DEFAULT_CHUNK_HEADERS = True
"""Score chunks with their contextual header unless told otherwise (see ``RSEParams.chunk_headers``)."""
MIN_CHUNK_SIZE = 50
# A cut is placed after one of these; earlier patterns are preferred when they fall in the
# second half of the window, so chunks end on paragraph or sentence boundaries when they can.
_PARAGRAPH_END = re.compile(r"\n\s*\n\s*")
_SENTENCE_END = re.compile(r"[.!?;:][\"')\]]*\s+|[。！？]\s*")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Chunk:
    """A contiguous span ``document.text[start:end]``.

    Attributes:
        doc_id: id of the document the chunk belongs to.
        index: position of the chunk within its document (0-based).
        start: offset of the first character in the document text.
        end: offset after the last character (exclusive).
        text: the characters themselves.
        first_page: 1-based page of the first character.
        last_page: 1-based page of the last character.
        header: a contextual header (document title and section heading) that scorers read in
            front of the text; empty when headers are off. Never part of ``text``, so segments
            still rebuild the exact document text.
    """

    doc_id: str
    index: int
    start: int
    end: int
    text: str
    first_page: int = 1
    last_page: int = 1
    header: str = ""

    def __len__(self) -> int:
        return self.end - self.start

    @property
    def pages(self) -> str:
        """Page label for display: ``"p. 3"`` or ``"pp. 3-4"``."""
        return page_label(self.first_page, self.last_page)


def page_label(first_page: int, last_page: int) -> str:
    """``"p. 3"`` for one page, ``"pp. 3-4"`` for a range."""
    return f"p. {first_page}" if first_page == last_page else f"pp. {first_page}-{last_page}"


def scoring_text(chunk: Chunk) -> str:
    """What a scorer reads for ``chunk``: its header (if any) on a line of its own, then its text."""
    return f"{chunk.header}\n\n{chunk.text}" if chunk.header else chunk.text


def chunk_document(
    document: Document, chunk_size: int = DEFAULT_CHUNK_SIZE, headers: bool = DEFAULT_CHUNK_HEADERS
) -> list[Chunk]:
    """Split ``document`` into chunks of at most ``chunk_size`` characters.

    With ``headers``, each chunk carries its contextual header (document title and section
    heading path, see :func:`rse_core.documents.headings.header_for`; built once per document
    by :class:`~rse_core.documents.headings.HeaderIndex`) for scorers to read.

    Each cut is placed, in order of preference, after a paragraph break or a sentence end in the
    second half of the window, after the last whitespace in the window, or hard at ``chunk_size``
    when the window has no whitespace at all (a very long token). Whitespace stays at the end of
    the chunk before the cut, so the next chunk starts on a word.

    Raises:
        ParameterError: ``chunk_size`` is below :data:`MIN_CHUNK_SIZE`.
    """
    if not isinstance(chunk_size, int) or chunk_size < MIN_CHUNK_SIZE:
        raise ParameterError(
            f"chunk_size must be a whole number of at least {MIN_CHUNK_SIZE} characters "
            f"(a chunk must hold a sentence); got {chunk_size!r}."
        )
    text = document.text
    index = HeaderIndex.build(document.title, document.headings) if headers else None
    chunks: list[Chunk] = []
    start = 0
    while start < len(text):
        end = _cut_position(text, start, chunk_size)
        first_page, last_page = document.pages_of_span(start, end)
        chunks.append(
            Chunk(
                doc_id=document.doc_id,
                index=len(chunks),
                start=start,
                end=end,
                text=text[start:end],
                first_page=first_page,
                last_page=last_page,
                header=index.header(start, end) if index is not None else "",
            )
        )
        start = end
    return chunks


def _cut_position(text: str, start: int, chunk_size: int) -> int:
    """Offset at which the chunk beginning at ``start`` ends."""
    limit = start + chunk_size
    if limit >= len(text):
        return len(text)
    # Look one character past the window so whitespace that straddles the limit still counts;
    # a match is used only if its end lies inside the window.
    window = text[start : limit + 1]
    half = chunk_size // 2
    for pattern in (_PARAGRAPH_END, _SENTENCE_END):
        cut = _last_match_end(pattern, window, chunk_size)
        if cut is not None and cut >= half:
            return start + cut
    cut = _last_match_end(_WHITESPACE, window, chunk_size)
    # No whitespace inside the window: a token longer than the window; cut hard.
    return start + cut if cut is not None else limit


def _last_match_end(pattern: re.Pattern[str], window: str, chunk_size: int) -> int | None:
    """End of the last match of ``pattern`` that ends within ``chunk_size`` characters."""
    best = None
    for match in pattern.finditer(window):
        end = min(match.end(), chunk_size)
        if end > 0 and match.start() < chunk_size:
            best = end
    return best
