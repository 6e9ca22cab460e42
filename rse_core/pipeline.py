"""The whole pipeline in one call, split so the app can rerun only the cheap part.

``extract`` = ``build_corpus`` (chunking) -> ``score_corpus`` (the slow step: a model or an API)
-> ``run_rse`` (values, segment search, top-k baseline, context: milliseconds). The app caches
the first two and calls ``run_rse`` on every slider move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from rse_core.chunking import DEFAULT_CHUNK_HEADERS, Chunk, chunk_document
from rse_core.context import ContextOrder, ContextPiece, format_context
from rse_core.documents import Document
from rse_core.errors import InvalidScoresError, ParameterError, QueryError, RSEError
from rse_core.handoff import HandOff
from rse_core.params import RSEParams
from rse_core.scoring import Calibration, ProgressCallback, Scorer, ScorerName, clean_query, get_scorer
from rse_core.search import SearchResult, StopReason
from rse_core.segments import ChunkRun, ExtractedSegment, segments_from_values, why_empty
from rse_core.topk import (
    WindowSegment,
    ranked_chunks,
    top_k,
    top_k_within_budget,
    window,
    window_within_budget,
)
from rse_core.validation import finite_scores
from rse_core.values import ChunkValues, chunk_values, rank_by_score


@dataclass(frozen=True)
class Corpus:
    """One or more documents chunked into a single sequence (dsRAG's "meta-document").

    Attributes:
        documents: the documents, in order, without duplicates.
        chunks: all chunks, document after document.
        document_splits: index of the first chunk of every document but the first; segments
            never cross one.
        chunk_size: the chunk size used.
        aliases: ``(doc_id, name)`` of every document given again under another name (same
            bytes): it is kept once, under its first name, and :attr:`notices` says so.
        headers: whether chunks carry contextual headers for scoring.
    """

    documents: tuple[Document, ...]
    chunks: tuple[Chunk, ...]
    document_splits: tuple[int, ...]
    chunk_size: int
    headers: bool = DEFAULT_CHUNK_HEADERS
    aliases: tuple[tuple[str, str], ...] = ()

    @property
    def notices(self) -> tuple[str, ...]:
        """Sentences for the user: duplicates dropped, text files not read as UTF-8."""
        notes = [
            f"{name} has the same content as {self.documents_by_id[doc_id].name}; it is used once, "
            f"as {self.documents_by_id[doc_id].name}."
            for doc_id, name in self.aliases
        ]
        notes += [document.encoding_note for document in self.documents if document.encoding_note]
        return tuple(notes)

    def other_names(self, doc_id: str) -> list[str]:
        """The other names the document ``doc_id`` was given under (see :attr:`aliases`)."""
        return [name for alias_id, name in self.aliases if alias_id == doc_id]

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.array([len(chunk) for chunk in self.chunks], dtype=np.int64)

    @cached_property
    def documents_by_id(self) -> dict[str, Document]:
        return {document.doc_id: document for document in self.documents}

    @property
    def key(self) -> str:
        """Identifies the chunking: document contents, chunk size and headers (a cache key)."""
        return (
            "+".join(document.doc_id for document in self.documents)
            + f"@{self.chunk_size}"
            + ("+headers" if self.headers else "")
        )

    def document_of(self, chunk_index: int) -> Document:
        return self.documents_by_id[self.chunks[chunk_index].doc_id]

    def runs(self, ranges: Sequence[tuple[int, int]]) -> list[ChunkRun]:
        """Chunks ``start:end`` of each range (a :class:`~rse_core.segments.ChunkSource`)."""
        return [self._run(start, end) for start, end in ranges]

    def _run(self, start: int, end: int) -> ChunkRun:
        first = self.chunks[start]
        return ChunkRun(first.doc_id, self.document_of(start).name, first.index, self.chunks[start:end])

    def source_label(self, start: int, end: int) -> str:
        """``"Title, pp. 3-4, chunks 5-9"`` for chunks ``start:end`` of one document."""
        first, last = self.chunks[start], self.chunks[end - 1]
        pages = (
            f"p. {first.first_page}"
            if first.first_page == last.last_page
            else f"pp. {first.first_page}-{last.last_page}"
        )
        chunk_label = f"chunk {first.index}" if start == end - 1 else f"chunks {first.index}-{last.index}"
        return f"{self.document_of(start).title}, {pages}, {chunk_label}"


def build_corpus(
    documents: Document | Sequence[Document], chunk_size: int, headers: bool = DEFAULT_CHUNK_HEADERS
) -> Corpus:
    """Chunk every document and join them, remembering where each one starts.

    With ``headers``, chunks carry contextual headers for scorers (``RSEParams.chunk_headers``).
    """
    if isinstance(documents, Document):
        documents = [documents]
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence):
        raise ParameterError(
            f"Expected a Document or a list of them, got {type(documents).__name__}. Load files with "
            "load_document(path), or wrap a string with Document.from_text(text)."
        )
    for item in documents:
        if not isinstance(item, Document):
            raise ParameterError(
                f"Expected Document objects, got a {type(item).__name__}. Load files with load_document(path), "
                "or wrap a string with Document.from_text(text)."
            )
    by_id: dict[str, Document] = {}
    aliases = []
    for document in documents:
        first = by_id.setdefault(document.doc_id, document)
        if first is not document and document.name != first.name and (document.doc_id, document.name) not in aliases:
            aliases.append((document.doc_id, document.name))
    unique = list(by_id.values())
    if not unique:
        raise RSEError("No documents: load or pick at least one document.")
    chunks: list[Chunk] = []
    splits: list[int] = []
    for document in unique:
        if chunks:
            splits.append(len(chunks))
        chunks.extend(chunk_document(document, chunk_size, headers=headers))
    return Corpus(tuple(unique), tuple(chunks), tuple(splits), chunk_size, headers=headers, aliases=tuple(aliases))


def normalize_queries(query_or_queries: str | Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Clean the queries; return them and notes for the user (e.g. a query was cut)."""
    raw = [query_or_queries] if isinstance(query_or_queries, str) else list(query_or_queries)
    if not raw:
        raise QueryError("No query given; type a question.")
    cleaned, notes = [], []
    for query in raw:
        text, note = clean_query(query)
        cleaned.append(text)
        if note:
            notes.append(note)
    return tuple(cleaned), tuple(notes)


def score_corpus(
    corpus: Corpus, queries: Sequence[str], scorer: Scorer, progress: ProgressCallback | None = None
) -> list[np.ndarray]:
    """Raw scores, one array per query (the slow step; cache its result)."""
    return [scorer.score(query, corpus.chunks, progress) for query in queries]


@dataclass(frozen=True)
class ExtractionResult:
    """Everything RSE decided for one set of queries, with what is needed to show why."""

    corpus: Corpus
    queries: tuple[str, ...]
    params: RSEParams
    scorer: str
    model: str
    calibration: Calibration
    values: tuple[ChunkValues, ...]
    search: SearchResult
    segments: tuple[ExtractedSegment, ...]
    ranking: tuple[int, ...]
    top_k: tuple[int, ...]
    top_k_equal_budget: tuple[int, ...]
    window: tuple[WindowSegment, ...] = ()
    window_equal_budget: tuple[WindowSegment, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def stop_reason(self) -> StopReason:
        return self.search.stop_reason

    @property
    def settings_key(self) -> tuple:
        """What this result depends on (documents, chunking, queries, scorer, parameters): a
        hashable key for caching anything derived from it."""
        return (self.corpus.key, self.queries, self.scorer, self.model, self.calibration, self.params)

    def handoff(self) -> HandOff:
        """This result as code to take away (rse_core, the ``rse`` command, dsRAG), all from one record."""
        names = [document.name for document in self.corpus.documents]
        return HandOff.of(self.params, self.scorer, names, self.queries, self.model)

    @property
    def rse_chunks(self) -> list[int]:
        """Corpus indices of all chunks in segments, in document order."""
        return sorted(index for segment in self.segments for index in range(segment.start, segment.end))

    @property
    def rse_characters(self) -> int:
        return sum(segment.characters for segment in self.segments)

    def characters(self, chunk_indices: Sequence[int]) -> int:
        return int(self.corpus.lengths[list(chunk_indices)].sum()) if len(chunk_indices) else 0

    def window_characters(self, segments: Sequence[WindowSegment] | None = None) -> int:
        """Characters the fixed-window baseline sends (default: ``window``)."""
        segments = self.window if segments is None else segments
        return sum(self.corpus.chunks[s.end - 1].end - self.corpus.chunks[s.start].start for s in segments)

    def _order(self, order: ContextOrder | str | None) -> ContextOrder:
        return self.params.context_order if order is None else ContextOrder.parse(order)

    def rse_context(self, order: ContextOrder | str | None = None) -> str:
        """The segments as an LLM would get them.

        Args:
            order: ``"document"`` (as they stand in the documents, the lesson's order) or
                ``"score"`` (pick order, most relevant first); default ``params.context_order``.
                Labels S1, S2, ... always name the pick order.
        """
        segments = list(self.segments)
        if self._order(order) is ContextOrder.DOCUMENT:
            segments.sort(key=lambda segment: segment.start)
        return format_context(
            [
                ContextPiece(segment.label, self.corpus.source_label(segment.start, segment.end), segment.text)
                for segment in segments
            ]
        )

    def top_k_context(self, chunk_indices: Sequence[int] | None = None, order: ContextOrder | str | None = None) -> str:
        """Top-k chunks (default: ``top_k``) as an LLM would get them.

        Each piece is labelled with its rank ("rank 0" = the best chunk); ``order`` as in
        :meth:`rse_context` ("score" = rank order).
        """
        indices = list(self.top_k if chunk_indices is None else chunk_indices)
        ranked = list(enumerate(indices))
        if self._order(order) is ContextOrder.DOCUMENT:
            ranked.sort(key=lambda pair: pair[1])
        return format_context(
            [
                ContextPiece(f"rank {rank}", self.corpus.source_label(index, index + 1), self.corpus.chunks[index].text)
                for rank, index in ranked
            ]
        )

    def window_context(
        self, segments: Sequence[WindowSegment] | None = None, order: ContextOrder | str | None = None
    ) -> str:
        """The fixed-window baseline (default: ``window``) as an LLM would get it.

        Pieces are labelled W1, W2, ... in document order; ``order="score"`` sends the window of
        the best hit first.
        """
        segments = list(self.window if segments is None else segments)
        labelled = list(enumerate(segments, 1))
        if self._order(order) is ContextOrder.SCORE:
            labelled.sort(key=lambda pair: pair[1].best_rank)
        pieces = []
        for number, segment in labelled:
            first, last = self.corpus.chunks[segment.start], self.corpus.chunks[segment.end - 1]
            text = self.corpus.document_of(segment.start).text[first.start : last.end]
            pieces.append(ContextPiece(f"W{number}", self.corpus.source_label(segment.start, segment.end), text))
        return format_context(pieces)

    def empty_reason(self) -> str | None:
        """Why no segment came back, with what to change; ``None`` if there are segments."""
        return None if self.segments else why_empty(self.search, self.params)

    def to_dict(self) -> dict[str, object]:
        """The JSON the CLI prints: parameters, segments, both baselines (top-k chunks, window
        segments; each also at RSE's character budget) and every chunk."""
        corpus = self.corpus
        return {
            "queries": list(self.queries),
            "scorer": self.scorer,
            "model": self.model,
            "calibration": self.calibration.describe(),
            "parameters": self.params.to_dict(),
            "documents": [_document_row(corpus, document) for document in corpus.documents],
            "stop_reason": self.stop_reason.value,
            "segments": [segment.to_dict() for segment in self.segments],
            "top_k": [self._chunk_ref(index) for index in self.top_k],
            "top_k_equal_budget": [self._chunk_ref(index) for index in self.top_k_equal_budget],
            "window": [_window_row(corpus, segment) for segment in self.window],
            "window_equal_budget": [_window_row(corpus, segment) for segment in self.window_equal_budget],
            "chunks": [self._chunk_row(index) for index in range(len(corpus.chunks))],
            "notes": list(self.notes),
        }

    def _chunk_row(self, index: int) -> dict[str, object]:
        """One chunk with every stage of its value (the first query's; ``per_query`` for more)."""
        chunk = self.corpus.chunks[index]
        first = self.values[0]
        row: dict[str, object] = {
            "doc": self.corpus.documents_by_id[chunk.doc_id].name,
            "doc_id": chunk.doc_id,
            "index": chunk.index,
            "start_char": chunk.start,
            "end_char": chunk.end,
            "first_page": chunk.first_page,
            "last_page": chunk.last_page,
            "score": float(first.raw[index]),
            "calibrated": float(first.calibrated[index]),
            "transformed": float(first.transformed[index]),
            "rank": int(first.rank[index]),
            "value": float(first.value[index]),
        }
        if len(self.values) > 1:
            row["per_query"] = [
                {
                    "score": float(values.raw[index]),
                    "value": float(values.value[index]),
                    "rank": int(values.rank[index]),
                }
                for values in self.values
            ]
        return row

    def _chunk_ref(self, index: int) -> dict[str, object]:
        """A top-k chunk: where it is, its raw score and its text."""
        chunk = self.corpus.chunks[index]
        return {
            "doc": self.corpus.documents_by_id[chunk.doc_id].name,
            "index": chunk.index,
            "start_char": chunk.start,
            "end_char": chunk.end,
            "score": float(self.values[0].raw[index]),
            "text": chunk.text,
        }


def _document_row(corpus: Corpus, document: Document) -> dict[str, object]:
    return {
        "doc": document.name,
        "doc_id": document.doc_id,
        "title": document.title,
        "pages": document.page_count,
        "characters": len(document.text),
        "encoding": document.encoding or None,
        "also_named": corpus.other_names(document.doc_id),
    }


def _window_row(corpus: Corpus, segment: WindowSegment) -> dict[str, object]:
    first, last = corpus.chunks[segment.start], corpus.chunks[segment.end - 1]
    return {
        "doc": corpus.documents_by_id[first.doc_id].name,
        "first_chunk": first.index,
        "last_chunk": last.index,
        "start_char": first.start,
        "end_char": last.end,
        "hits": [corpus.chunks[hit].index for hit in segment.hits],
        "text": corpus.document_of(segment.start).text[first.start : last.end],
    }


SMALL_DOCUMENT_CHUNKS = 3
"""A document of this many chunks or fewer is too short for its own score percentile to mean much."""
MANY_DOCUMENTS = 10
MANY_SMALL_DOCUMENTS_NOTE = (
    "{count} documents are loaded and most have 3 chunks or fewer. Each is calibrated on its own, so "
    "their best chunks do not compete on one scale and many segments come back. Calibrating over the "
    "collection (the app's 'Calibrate each document alone' off, --calibrate-over-collection, "
    "per_document_calibration=False) ranks them against each other: on FinanceBench's 145 one-page "
    "documents it sent 4,903 characters per question instead of 13,929 for about the same recall "
    "(0.83 vs 0.85), but a "
    "document's values then change when others are loaded."
)


def _many_small_documents(corpus: Corpus) -> bool:
    """Many documents, most of them a few chunks long: where per-document calibration is weakest."""
    if len(corpus.documents) < MANY_DOCUMENTS:
        return False
    sizes = np.diff([0, *corpus.document_splits, len(corpus.chunks)])
    return float(np.median(sizes)) <= SMALL_DOCUMENT_CHUNKS


def run_rse(
    corpus: Corpus,
    queries: Sequence[str],
    raw_scores: Sequence[np.ndarray],
    params: RSEParams,
    calibration: Calibration,
    *,
    scorer: str = "",
    model: str = "",
    notes: Sequence[str] = (),
) -> ExtractionResult:
    """Values, segments, top-k and context from cached raw scores (the fast step)."""
    raw_scores = _checked_scores(corpus, queries, raw_scores, params)
    lengths = corpus.lengths
    splits = corpus.document_splits
    scope = splits if params.per_document_calibration else ()  # calibrate and rank per document, or over all
    values = tuple(
        chunk_values(
            calibration.per_document(raw, scope), params, chunk_lengths=lengths, raw=raw, document_splits=scope
        )
        for raw in raw_scores
    )
    search, segments = segments_from_values([query_values.value for query_values in values], params, splits, corpus)
    # Top-k ranks across documents by the scorer's own score (the values rank within a document).
    ranking = ranked_chunks([rank_by_score(v.raw) if splits else v.rank for v in values])
    rse_characters = sum(segment.characters for segment in segments)
    return ExtractionResult(
        corpus=corpus,
        queries=tuple(queries),
        params=params,
        scorer=scorer,
        model=model,
        calibration=calibration,
        values=values,
        search=search,
        segments=segments,
        ranking=tuple(ranking),
        top_k=tuple(top_k(ranking, params.top_k)),
        top_k_equal_budget=tuple(top_k_within_budget(ranking, lengths, rse_characters)),
        window=tuple(window(ranking, params.top_k, params.window, document_splits=splits)),
        window_equal_budget=tuple(
            window_within_budget(ranking, lengths, rse_characters, params.window, document_splits=splits)
        ),
        notes=_result_notes(corpus, values, params, notes),
    )


def _checked_scores(
    corpus: Corpus, queries: Sequence[str], raw_scores: Sequence[np.ndarray], params: RSEParams
) -> list[np.ndarray]:
    """The raw scores, refused if they were computed for other chunks or are not one finite score a chunk."""
    if params.chunk_size != corpus.chunk_size:
        raise RSEError(
            f"The scores were computed for chunk size {corpus.chunk_size}, not {params.chunk_size}; rescore first."
        )
    if params.chunk_headers != corpus.headers:
        state = "with" if corpus.headers else "without"
        raise RSEError(f"The scores were computed {state} chunk headers, unlike the parameters; rescore first.")
    if len(raw_scores) != len(queries):
        raise InvalidScoresError(f"{len(raw_scores)} score arrays for {len(queries)} queries; score every query.")
    return [
        finite_scores(raw, source=f"The scorer (query {number})", expected=len(corpus.chunks))
        for number, raw in enumerate(raw_scores)
    ]


def _result_notes(
    corpus: Corpus, values: Sequence[ChunkValues], params: RSEParams, notes: Sequence[str]
) -> tuple[str, ...]:
    """The caller's notes, the corpus's, and what this result's scores say about themselves."""
    all_notes = list(notes) + [notice for notice in corpus.notices if notice not in notes]
    if len(values[0]) > 1 and np.ptp(values[0].raw) == 0:
        all_notes.append("All chunks got the same score, so the ranking is just document order.")
    if params.per_document_calibration and _many_small_documents(corpus):
        all_notes.append(MANY_SMALL_DOCUMENTS_NOTE.format(count=len(corpus.documents)))
    return tuple(all_notes)


def extract(
    documents: Document | Sequence[Document],
    query_or_queries: str | Sequence[str],
    params: RSEParams | None = None,
    scorer: Scorer | str | None = None,
    progress: ProgressCallback | None = None,
) -> ExtractionResult:
    """Run RSE end to end: chunk, score, value, search, and build the top-k baseline.

    Args:
        documents: one document or several (segments never cross documents).
        query_or_queries: a query, or several (they take turns picking segments).
        params: RSE parameters (default ``RSEParams()``, tuned for the default scorer).
        scorer: a scorer or its name (default ``"minilm"``, offline).
        progress: called with (fraction, label) during scoring.
    """
    if params is None:
        params = RSEParams()
    elif not isinstance(params, RSEParams):
        raise ParameterError(
            f"params must be an RSEParams, not a {type(params).__name__}; "
            "build one with RSEParams(...), RSEParams.from_dict({...}) or preset(name)."
        )
    scorer = get_scorer(scorer or ScorerName.MINILM) if scorer is None or isinstance(scorer, str) else scorer
    queries, notes = normalize_queries(query_or_queries)
    corpus = build_corpus(documents, params.chunk_size, headers=params.chunk_headers)
    raw_scores = score_corpus(corpus, queries, scorer, progress)
    return run_rse(
        corpus, queries, raw_scores, params, scorer.calibration, scorer=scorer.name, model=scorer.model, notes=notes
    )
