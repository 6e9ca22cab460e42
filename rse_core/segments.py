"""RSE's answer, one segment at a time: the record both pipelines return and the step that makes it.

A single document (:mod:`rse_core.pipeline`) and a knowledge base (:mod:`rse_core.kb.query`)
differ in where values come from and where chunk text is kept (a corpus in memory, a store on
disk), not in what a segment is. Both hand their chunk values to :func:`segments_from_values`:
the greedy search picks index ranges, and :func:`describe_segments` turns each range into a
:class:`ExtractedSegment` with its document, chunk numbers, characters, pages and exact text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import ClassVar, Protocol

import numpy as np

from rse_core.chunking import page_label
from rse_core.params import RSEParams
from rse_core.search import SearchResult, StopReason, find_best_segments
from rse_core.topk import split_negatives

_SEQUENCE_INDICES = {"sequence_indices": True}
"""Field metadata: indices into the searched sequence, printed as chunk numbers within the document."""


@dataclass(frozen=True)
class ExtractedSegment:
    """A segment as a reader sees it: where it comes from, its score and its exact text.

    ``start``/``end`` index the searched chunk sequence (end exclusive): the corpus for a single
    document's pipeline, the selected documents joined in selection order for a knowledge base.
    ``first_chunk``/``last_chunk`` are chunk numbers within the document (inclusive), and the
    text is ``document.text[start_char:end_char]``. The chunks whose value (for the segment's
    query) is negative come in two kinds (indices of the searched sequence, like ``start``):

    - ``inner_gaps``: between two non-negative chunks of the segment: the low-scored middle of
      a "gapped cluster", kept because the chunks on both sides outweigh it.
    - ``edge_padding``: before the first or after the last non-negative chunk. The greedy search
      starts and ends a segment on a non-negative chunk, so this is empty for RSE's own
      segments; the field is there so that every kind of segment is described alike.
    """

    number: int
    query: int
    start: int
    end: int
    doc_id: str
    doc_name: str
    first_chunk: int
    last_chunk: int
    start_char: int
    end_char: int
    first_page: int
    last_page: int
    score: float
    text: str
    inner_gaps: tuple[int, ...] = field(default=(), metadata=_SEQUENCE_INDICES)
    edge_padding: tuple[int, ...] = field(default=(), metadata=_SEQUENCE_INDICES)

    FORMER_KEYS: ClassVar[dict[str, str]] = {"doc": "doc_name", "document": "doc_name"}
    """JSON keys the single-document CLI (``doc``) and the knowledge-base CLI (``document``)
    printed before they shared this record, kept for scripts that read them."""

    @property
    def label(self) -> str:
        """``S1``, ``S2``, ...: the pick order, as context and pages name the segment."""
        return f"S{self.number}"

    @property
    def document(self) -> str:
        """The document's name (the knowledge base's former name for :attr:`doc_name`)."""
        return self.doc_name

    @property
    def pages(self) -> str:
        """Page label for display, as a chunk's: ``"p. 3"`` or ``"pp. 3-4"``."""
        return page_label(self.first_page, self.last_page)

    @property
    def gap_chunks(self) -> tuple[int, ...]:
        """Every negative chunk of the segment (inner gaps and edge padding), in document order.

        The name the app used before the two kinds were told apart; prefer the two fields.
        """
        return tuple(sorted(self.inner_gaps + self.edge_padding))

    @property
    def chunk_count(self) -> int:
        return self.end - self.start

    @property
    def characters(self) -> int:
        return self.end_char - self.start_char

    def chunk_number(self, index: int) -> int:
        """The chunk number within the document of ``index`` (an index of the searched sequence)."""
        return index - self.start + self.first_chunk

    def to_dict(self) -> dict[str, object]:
        """The JSON the CLIs print: every field (sequence indices of gaps as chunk numbers within
        the document, like ``first_chunk``), the ``label``, and the :attr:`FORMER_KEYS`."""
        row: dict[str, object] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if item.metadata.get("sequence_indices"):
                value = [self.chunk_number(index) for index in value]
            row[item.name] = list(value) if isinstance(value, tuple) else value
        row["label"] = self.label
        row.update({former: row[name] for former, name in self.FORMER_KEYS.items()})
        return row


class SpanOfText(Protocol):
    """What describing a segment reads of a chunk (a corpus's chunk or a store's)."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def first_page(self) -> int: ...
    @property
    def last_page(self) -> int: ...


@dataclass(frozen=True)
class ChunkRun:
    """The consecutive chunks of one document a segment covers, starting at chunk number ``first_chunk``."""

    doc_id: str
    doc_name: str
    first_chunk: int
    chunks: Sequence[SpanOfText]


class ChunkSource(Protocol):
    """Where segment text is read: a corpus in memory or a knowledge base's store."""

    def runs(self, ranges: Sequence[tuple[int, int]]) -> list[ChunkRun]:
        """The chunks of each ``(start, end)`` range of the searched sequence (end exclusive),
        read all at once (a store reads one range per document)."""
        ...


def search_values(values: Sequence[np.ndarray], params: RSEParams, document_splits: Sequence[int]) -> SearchResult:
    """RSE's greedy segment search over chunk values (one array a query) with ``params``' lengths and minimum."""
    return find_best_segments(
        list(values),
        max_length=params.max_length,
        overall_max_length=params.overall_max_length,
        minimum_value=params.minimum_value,
        document_splits=document_splits,
    )


def describe_segments(
    search: SearchResult, values: Sequence[np.ndarray], source: ChunkSource
) -> tuple[ExtractedSegment, ...]:
    """Each segment the search found, numbered in pick order, with its text, pages and characters
    (a document's chunks tile its text, so a run's chunk texts joined are its characters)."""
    runs = source.runs([(found.start, found.end) for found in search])
    segments = []
    for number, (found, run) in enumerate(zip(search, runs, strict=True), 1):
        first, last = run.chunks[0], run.chunks[-1]
        inner_gaps, edge_padding = split_negatives(values[found.query], found.start, found.end)
        segments.append(
            ExtractedSegment(
                number=number,
                query=found.query,
                start=found.start,
                end=found.end,
                doc_id=run.doc_id,
                doc_name=run.doc_name,
                first_chunk=run.first_chunk,
                last_chunk=run.first_chunk + len(run.chunks) - 1,
                start_char=first.start,
                end_char=last.end,
                first_page=first.first_page,
                last_page=last.last_page,
                score=float(found.score),
                text="".join(chunk.text for chunk in run.chunks),
                inner_gaps=inner_gaps,
                edge_padding=edge_padding,
            )
        )
    return tuple(segments)


def segments_from_values(
    values: Sequence[np.ndarray], params: RSEParams, document_splits: Sequence[int], source: ChunkSource
) -> tuple[SearchResult, tuple[ExtractedSegment, ...]]:
    """Chunk values -> greedy search -> described segments: RSE's second half, whatever scored the
    chunks. Returns the search (its steps, why it stopped) and the segments it found, described."""
    search = search_values(values, params, document_splits)
    return search, describe_segments(search, values, source)


def why_empty(search: SearchResult, params: RSEParams) -> str | None:
    """Why a search found no segment, with what to change; ``None`` if it found one.

    Said once for a document and for a knowledge base: the best candidate's worth against the
    minimum segment value, or every chunk negative after the penalty.
    """
    if len(search):
        return None
    if search.stop_reason is StopReason.BELOW_MINIMUM:
        best = max((step.best.score for step in search.steps if step.best), default=0.0)
        return (
            f"No segment reached the minimum segment value {params.minimum_value:g} "
            f"(the best was worth {best:.2f}). Lower the minimum or the penalty."
        )
    return (
        f"Every chunk's value is negative after the penalty of {params.irrelevant_chunk_penalty:g}, "
        "so no segment can start anywhere. Lower the penalty, or try another query or scorer."
    )
