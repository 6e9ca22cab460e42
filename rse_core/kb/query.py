"""RSE over a knowledge base, as dsRAG's ``KnowledgeBase.query`` runs it, with its flaw fixed.

Per query: the first stage finds the best ``top_n`` chunks of the whole base; the documents of
its best ``documents_selected`` hits are selected. A second search within the selected documents
(``selected_top_n``, the store's document filter) scores more of their chunks. Every chunk of
every selected document gets a value from the core's :func:`rse_core.values.chunk_values`: a hit
starts from its calibrated score, any other chunk from 0 (so it is worth minus the penalty). The
selected documents are joined into one sequence with document splits and handed to the core's
:func:`rse_core.segments.segments_from_values` (the single-document pipeline's own search and
describe step), so segments of all documents compete for the one overall budget, several queries
take turns as in the core, and each segment is the same :class:`~rse_core.segments.ExtractedSegment`
record. Segment text is read back with one range read per document.

dsRAG takes a document's length as its highest first-stage hit index + 1, so chunks after a
document's last hit can never join a segment; here each selected document is valued over its
*whole* chunk sequence (its chunk count is in the catalog), and a segment may run past the
document's last first-stage hit.

With a reranker (:mod:`rse_core.kb.rerank`, dsRAG's production setup) the first stage's best
candidates across the base are scored again, the documents are selected from the reranked order
(as dsRAG does), and the reranker's relevance replaces the first-stage scores the values start
from; everything after is the same code path.
:attr:`KBResult.values_from` says which stage produced the values.

The dense map's constants are the base's own fit (``rse-kb calibrate``, :mod:`rse_core.kb.fit_calibration`)
when it was fitted for the base's embedder, else the built-in ones fitted on MiniLM; ``calibration="builtin"``
takes the built-in ones anyway. :attr:`KBResult.calibration` says which.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from rse_core.errors import ParameterError, RSEError
from rse_core.kb.base import KnowledgeBase
from rse_core.kb.calibration import BM25_SOURCE, CalibrationChoice, DenseCalibration, choose_calibration, read_fit
from rse_core.kb.first_stage import QueryProbe, ScoredHit, hit_rank, scored_search
from rse_core.kb.named import NAMED_AGREEMENT, Naming, named_documents
from rse_core.kb.params import FirstStage, KBQueryParams
from rse_core.kb.rerank import Reranker, rerank_hits
from rse_core.params import RSEParams
from rse_core.pipeline import normalize_queries
from rse_core.search import StopReason
from rse_core.segments import ChunkRun, ExtractedSegment, search_values, segments_from_values, why_empty
from rse_core.values import chunk_values

KBSegment = ExtractedSegment
"""The knowledge base's former name for :class:`~rse_core.segments.ExtractedSegment`, the one segment record."""


@dataclass(frozen=True)
class KBHit:
    """A first-stage chunk listed beside the segments (the top-k baseline)."""

    document: str
    doc_id: str
    chunk_index: int
    start_char: int
    end_char: int
    score: float

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class KBResult:
    """RSE's answer for one set of queries over a knowledge base."""

    queries: tuple[str, ...]
    segments: tuple[ExtractedSegment, ...]
    top_k: tuple[KBHit, ...]
    selected_documents: tuple[str, ...]
    stop_reason: StopReason | None
    first_stage: FirstStage
    timings: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    values: dict[str, tuple[np.ndarray, ...]] = field(default_factory=dict, repr=False)
    """Per selected document, its chunk values for each query (what the segment search added up)."""
    selected_names: tuple[str, ...] = ()
    """The selected documents' file names, in ``selected_documents``' order."""
    empty_reason: str | None = None
    """Why no segment came back (``None`` when one did): the best value against the minimum, and
    which documents were considered."""
    values_from: str = ""
    """Which stage produced the chunk values: e.g. ``dense first stage`` or
    ``rerank cohere:rerank-v3.5 over 60 first-stage candidates`` (see :attr:`FirstStageResult.values_from`)."""
    calibration: str = ""
    """Which calibration scored the first stage (see :attr:`FirstStageResult.calibration`)."""
    searched_within: tuple[str, ...] = ()
    """The file names of the only documents searched (``within``); empty: the whole base."""
    named_documents: tuple[str, ...] = ()
    """The file names of the documents the query named, when it was searched within them alone
    (:attr:`KBQueryParams.named_documents`); empty: it named none, or names were not looked for."""

    @property
    def characters(self) -> int:
        return sum(segment.characters for segment in self.segments)

    def to_dict(self) -> dict[str, object]:
        """The CLI's JSON: ``query`` is the query (a list when several were given together)."""
        return {
            "query": self.queries[0] if len(self.queries) == 1 else list(self.queries),
            "queries": list(self.queries),
            "first_stage": self.first_stage.value,
            "values_from": self.values_from,
            "calibration": self.calibration,
            "segments": [segment.to_dict() for segment in self.segments],
            "characters": self.characters,
            "top_k": [hit.to_dict() for hit in self.top_k],
            "selected_documents": list(self.selected_names),
            "selected_doc_ids": list(self.selected_documents),
            "searched_within": list(self.searched_within),
            "named_documents": list(self.named_documents),
            "stop_reason": None if self.stop_reason is None else self.stop_reason.value,
            "empty_reason": self.empty_reason,
            "timings_ms": {name: round(seconds * 1000, 2) for name, seconds in self.timings.items()},
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class FirstStageResult:
    """What the first stage found for a set of queries: everything a query needs before RSE's
    own parameters come in. An app keeps it and reruns :func:`rse_from_first_stage` as RSE's
    sliders move, without searching the base again."""

    queries: tuple[str, ...]
    kb_params: KBQueryParams
    hits: tuple[tuple[ScoredHit, ...], ...]
    """Per query, the base-wide best ``top_n`` hits, best first."""
    valued: tuple[tuple[ScoredHit, ...], ...]
    """Per query, those hits plus the search within the selected documents (what values start
    from); with a reranker, its candidates scored by the reranker instead."""
    selected: tuple[str, ...]
    timings: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    reranker: str | None = None
    """The reranker's name when one produced ``valued``."""
    reranked: int = 0
    """How many first-stage candidates the reranker scored, over all queries."""
    calibration: str = ""
    """Which constants the first stage's dense map used, in words: ``calibrated for minilm on 36
    queries of samples-kb (spread 0.2, ceiling 0.45)`` or ``built-in (fitted on MiniLM)`` (with why a
    base's fit was set aside); BM25's fixed map for ``bm25``."""
    within: tuple[str, ...] = ()
    """The hashes of the only documents searched (:func:`search_first_stage`'s ``within``); empty:
    the whole base."""
    named: tuple[str, ...] = ()
    """The hashes of the documents the queries named, searched alone (:attr:`KBQueryParams.named_documents`;
    among ``within`` when given); empty: none named, or names not looked for."""

    @property
    def searched(self) -> tuple[str, ...]:
        """The hashes of the only documents searched, whichever narrowed the search; empty: the whole base."""
        return self.named or self.within

    @property
    def values_from(self) -> str:
        """Which stage the values start from, in words (what a result and its chart say)."""
        if self.reranker is None:
            return f"{self.kb_params.first_stage.value} first stage"
        queries = f" for {len(self.queries)} queries" if len(self.queries) > 1 else ""
        return f"rerank {self.reranker} over {self.reranked} first-stage candidates{queries}"

    def reused_with(self, kb_params: KBQueryParams) -> FirstStageResult:
        """This search under settings that differ only after the search (e.g. how ranks are
        taken), so a caller keeps one search per :attr:`KBQueryParams.search_key`.

        Raises:
            ParameterError: ``kb_params`` would search differently.
        """
        if kb_params.search_key != self.kb_params.search_key:
            raise ParameterError("These knowledge-base settings need a new first-stage search.")
        return dataclasses.replace(self, kb_params=kb_params)


@dataclass(frozen=True)
class DocumentHits:
    """One document the first stage hit, and why it was (not) selected: its best hit's rank
    (1 = a query's best hit) decides; documents whose best rank is within ``documents_selected``
    are selected, ordered by their best score."""

    doc_id: str
    hits: int
    best_score: float
    best_rank: int
    selected: bool


def search_first_stage(
    kb: KnowledgeBase,
    query_or_queries: str | Sequence[str],
    kb_params: KBQueryParams | None = None,
    reranker: Reranker | None = None,
    calibration: str | CalibrationChoice = CalibrationChoice.FITTED,
    within: Sequence[str] | None = None,
) -> FirstStageResult:
    """Run the first stage (and the search within the selected documents) for the queries; with
    a ``reranker``, rerank the first stage's best ``kb_params.rerank_candidates`` hits across the
    base instead and select the documents from the reranked order (the second stage), the values
    then starting from the reranker's relevance. ``calibration``:
    ``fitted`` (the base's fit for its embedder if any) or ``builtin`` (:class:`CalibrationChoice`).

    ``within``: search only these documents (file names or hashes, as :meth:`KnowledgeBase.find`
    takes them), the way dsRAG's metadata filter narrows a query to documents the caller already
    knows are the right ones (a filing's company and year); the dense map is then anchored on the
    best hit among them. With ``kb_params.named_documents``, the documents the queries name
    (:mod:`rse_core.kb.named`, among ``within`` when given) narrow the search the same way.

    Raises:
        KnowledgeBaseError: a name in ``within`` matches no document, or several.
    """
    kb_params = kb_params or KBQueryParams()
    queries, notes = normalize_queries(query_or_queries)
    allowed = kb.documents.keys()
    only: list[str] | None = None
    if within is not None:
        within = (within,) if isinstance(within, str) else within
        only = list(dict.fromkeys(kb.find(key).doc_id for key in within))
        if not only:
            raise ParameterError("Give at least one document to search within, or none to search the whole base.")
        allowed = set(only)
    choice = CalibrationChoice.parse(calibration)
    if kb_params.first_stage is FirstStage.BM25:
        chosen, source = None, BM25_SOURCE
    else:
        chosen = choose_calibration(kb.catalog.embedder, read_fit(kb.path), choice)
        source = chosen.source
    constants = {} if chosen is None else {"dense_constants": chosen.dense}
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    embedder = kb.embedder if kb_params.first_stage is not FirstStage.BM25 else None
    probes = [QueryProbe.make(query, kb_params.first_stage, embedder, kb_params.fusion_weight) for query in queries]

    def search(documents: list[str] | None, among: Collection[str]) -> list[tuple[list[ScoredHit], float | None]]:
        return [scored_search(kb.store, probe, kb_params.top_n, among, documents, **constants) for probe in probes]

    naming = named_documents(kb.documents, queries, allowed) if kb_params.named_documents else Naming()
    named = naming.documents if naming.firm else ()  # a one-word naming waits for the content's word
    searched = search(list(named), set(named)) if named else search(only, allowed)
    if naming.documents and not naming.firm:
        disagreement = _content_disagrees(kb, naming.documents, probes, searched, constants)
        if disagreement:
            notes += (disagreement,)
        else:
            named = naming.documents
            searched = search(list(named), set(named))
    hits = [query_hits for query_hits, _ in searched]
    anchors = tuple(anchor for _, anchor in searched)
    timings["first_stage"] = time.perf_counter() - clock

    if not any(hits):
        notes += ("The first stage found no chunk for the query.",)
    clock = time.perf_counter()
    count = 0
    if reranker is not None:  # dsRAG's second stage: documents selected from the reranked order
        reranked, count = rerank_hits(kb, queries, hits, reranker, kb_params.rerank_candidates)
        selected = select_documents(reranked, kb_params.documents_selected)
        chosen = set(selected)
        valued = [[hit for hit in query_hits if hit.doc_id in chosen] for query_hits in reranked]
        timings["rerank"] = time.perf_counter() - clock
    else:
        selected = select_documents(hits, kb_params.documents_selected)
        valued = hits
        if kb_params.selected_top_n and selected:
            valued = []
            for probe, query_hits, anchor in zip(probes, hits, anchors, strict=True):
                limit = kb_params.selected_top_n
                inside, _ = scored_search(kb.store, probe, limit, allowed, selected, anchor, **constants)
                valued.append(_union(query_hits, inside))
        timings["selected_search"] = time.perf_counter() - clock
    return FirstStageResult(
        queries,
        kb_params,
        tuple(tuple(query_hits) for query_hits in hits),
        tuple(tuple(query_hits) for query_hits in valued),
        tuple(selected),
        timings,
        notes,
        calibration=source,
        reranker=None if reranker is None else reranker.name,
        reranked=count,
        within=tuple(only or ()),
        named=named,
    )


NOTE_NAMES = 3
"""At most this many file names in a note (a year alone can name hundreds)."""


def _content_disagrees(
    kb: KnowledgeBase,
    named: tuple[str, ...],
    probes: Sequence[QueryProbe],
    searched: Sequence[tuple[list[ScoredHit], float | None]],
    constants: dict[str, DenseCalibration],
) -> str | None:
    """Why a one-word naming is set aside (a note), or None when, for every query, the named
    documents' best chunk scores at least :data:`NAMED_AGREEMENT` of the best in ``searched`` (the
    base-wide search), on that search's scale (its anchor)."""
    for probe, (hits, anchor) in zip(probes, searched, strict=True):
        best = hits[0].score if hits else 0.0
        inside, _ = scored_search(kb.store, probe, 1, set(named), list(named), anchor, **constants)
        own = inside[0].score if inside else 0.0
        if own < NAMED_AGREEMENT * best:
            shown = _file_names(kb, named[:NOTE_NAMES])
            names = ", ".join(shown) + (f" and {len(named) - len(shown)} more" if len(named) > len(shown) else "")
            return (
                f"The question names {names} by one word, but the best chunk there scores {own:.2f} against "
                f"{best:.2f} in the base (below {NAMED_AGREEMENT:g} of it), so the name was set aside."
            )
    return None


def query_kb(
    kb: KnowledgeBase,
    query_or_queries: str | Sequence[str],
    params: RSEParams | None = None,
    kb_params: KBQueryParams | None = None,
    reranker: Reranker | None = None,
    calibration: str | CalibrationChoice = CalibrationChoice.FITTED,
    within: Sequence[str] | None = None,
) -> KBResult:
    """Run RSE for one query (or several together) over the whole knowledge base, its values
    from the first stage or, given a ``reranker`` (:func:`rse_core.kb.rerank.reranker_from_name`),
    from the reranker's relevance of the first stage's candidates; ``calibration`` and ``within``
    (only these documents) as :func:`search_first_stage`'s."""
    params = params or RSEParams()
    _check_chunking(kb, params)
    first = search_first_stage(kb, query_or_queries, kb_params, reranker, calibration, within)
    return rse_from_first_stage(kb, first, params)


@dataclass(frozen=True)
class PlannedSegment:
    """A segment found by the search, located in its document (chunk indices, no text yet)."""

    doc_id: str
    query: int
    first_chunk: int
    last_chunk: int
    score: float


@dataclass(frozen=True)
class SegmentPlan:
    """What RSE chose from a first stage, before any text is read: enough to judge it
    (evaluation sweeps run many settings and need only chunk spans, never the text)."""

    segments: tuple[PlannedSegment, ...]
    stop_reason: StopReason | None
    values: dict[str, tuple[np.ndarray, ...]]
    timings: dict[str, float]


def plan_segments(kb: KnowledgeBase, first: FirstStageResult, params: RSEParams | None = None) -> SegmentPlan:
    """RSE's values and segment search over the selected documents' whole chunk sequences (no text read)."""
    params = params or RSEParams()
    joined, timings = _timed_values(kb, first, params)
    if not joined.chunks:
        return SegmentPlan((), None, joined.per_document, timings)
    clock = time.perf_counter()
    search = search_values(joined.values, params, joined.splits)
    timings["search"] = time.perf_counter() - clock
    planned = []
    for segment in search:
        doc_id, first_chunk = joined.locate(segment.start)
        planned.append(
            PlannedSegment(doc_id, segment.query, first_chunk, first_chunk + len(segment) - 1, float(segment.score))
        )
    return SegmentPlan(tuple(planned), search.stop_reason, joined.per_document, timings)


def rse_from_first_stage(kb: KnowledgeBase, first: FirstStageResult, params: RSEParams | None = None) -> KBResult:
    """RSE's values, segment search and texts from a first stage already run: what changes when
    only RSE's parameters do (no embedding, no base-wide search)."""
    params = params or RSEParams()
    joined, own_timings = _timed_values(kb, first, params)
    timings = {**first.timings, **own_timings}
    segments: tuple[ExtractedSegment, ...] = ()
    stop_reason = None
    names = _file_names(kb, first.selected)
    empty = "The first stage found no chunk for the query, so no document was selected."
    if joined.chunks:
        clock = time.perf_counter()
        source = _StoreChunks(kb, joined)
        search, segments = segments_from_values(joined.values, params, joined.splits, source)
        stop_reason = search.stop_reason
        timings["search"] = time.perf_counter() - clock - source.seconds
        if segments:
            timings["read"] = source.seconds
        empty = why_empty(search, params)
        if empty is not None:
            empty += f" Documents considered: {', '.join(names)}."
    characters = sum(segment.characters for segment in segments)
    top_k = _top_k(kb, first.hits, first.kb_params.top_k_minimum, 2 * characters)
    return KBResult(
        first.queries,
        segments,
        top_k,
        first.selected,
        stop_reason,
        first.kb_params.first_stage,
        timings,
        first.notes,
        joined.per_document,
        names,
        empty,
        first.values_from,
        first.calibration,
        _file_names(kb, first.within),
        _file_names(kb, first.named),
    )


def _file_names(kb: KnowledgeBase, doc_ids: Sequence[str]) -> tuple[str, ...]:
    """The documents' file names (a hash when the base no longer lists it)."""
    return tuple(kb.documents[doc_id].name if doc_id in kb.documents else doc_id for doc_id in doc_ids)


def document_hits(first: FirstStageResult) -> tuple[DocumentHits, ...]:
    """Every document the base-wide first stage hit, selected ones first (in selection order),
    then the others by best rank: the "which and why" of document selection."""
    counts: dict[str, int] = {}
    best_score: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    for query_hits in first.hits:
        for rank, hit in enumerate(query_hits, start=1):
            counts[hit.doc_id] = counts.get(hit.doc_id, 0) + 1
            best_score[hit.doc_id] = max(best_score.get(hit.doc_id, -1.0), hit.score)
            best_rank[hit.doc_id] = min(best_rank.get(hit.doc_id, rank), rank)
    order = {doc_id: number for number, doc_id in enumerate(first.selected)}
    ranked = sorted(counts, key=lambda doc_id: (order.get(doc_id, len(order)), best_rank[doc_id], doc_id))
    return tuple(
        DocumentHits(doc_id, counts[doc_id], best_score[doc_id], best_rank[doc_id], doc_id in order)
        for doc_id in ranked
    )


def select_documents(hits: Sequence[Sequence[ScoredHit]], per_query: int) -> list[str]:
    """Documents of each query's best ``per_query`` hits, in order of their best hit, without repeats."""
    best: dict[str, float] = {}
    for query_hits in hits:
        for hit in query_hits[:per_query]:
            best[hit.doc_id] = max(best.get(hit.doc_id, -1.0), hit.score)
    return sorted(best, key=lambda doc_id: -best[doc_id])


def _union(first: Sequence[ScoredHit], more: Sequence[ScoredHit]) -> list[ScoredHit]:
    """Hits of both searches, once each (the scores agree: both searches use the same anchor)."""
    seen = {(hit.doc_id, hit.chunk_index) for hit in first}
    return [*first, *(hit for hit in more if (hit.doc_id, hit.chunk_index) not in seen)]


@dataclass(frozen=True)
class _SelectedValues:
    """Every query's chunk values over the selected documents, joined in selection order (the
    sequence the segment search runs on; ``offsets`` are where each document starts, then the end)."""

    doc_ids: tuple[str, ...]
    offsets: np.ndarray
    values: tuple[np.ndarray, ...]

    @property
    def chunks(self) -> int:
        return int(self.offsets[-1])

    @property
    def splits(self) -> list[int]:
        return [int(offset) for offset in self.offsets[1:-1]]

    @property
    def per_document(self) -> dict[str, tuple[np.ndarray, ...]]:
        return {
            doc_id: tuple(query_values[self.offsets[number] : self.offsets[number + 1]] for query_values in self.values)
            for number, doc_id in enumerate(self.doc_ids)
        }

    def locate(self, index: int) -> tuple[str, int]:
        """The document and chunk number of ``index`` in the joined sequence."""
        number = int(np.searchsorted(self.offsets, index, side="right")) - 1
        return self.doc_ids[number], index - int(self.offsets[number])


def _timed_values(
    kb: KnowledgeBase, first: FirstStageResult, params: RSEParams
) -> tuple[_SelectedValues, dict[str, float]]:
    """Values of every chunk of the selected documents (from the catalog's chunk ends and the
    hits), and the time they took; refused if ``params`` chunk otherwise than the base."""
    _check_chunking(kb, params)
    clock = time.perf_counter()
    selected = tuple(first.selected)
    ends = [kb.chunk_ends(doc_id) for doc_id in selected]
    offsets = np.cumsum([0] + [len(e) for e in ends])
    lengths = np.concatenate([np.diff(e, prepend=0) for e in ends]) if ends else np.zeros(0, dtype=np.int64)
    rank_splits = () if first.kb_params.rank_across_documents else [int(offset) for offset in offsets[1:-1]]
    values = tuple(_values(hits, selected, offsets, lengths, rank_splits, params) for hits in first.valued)
    return _SelectedValues(selected, offsets, values), {"values": time.perf_counter() - clock}


def _values(
    hits: Sequence[ScoredHit],
    selected: Sequence[str],
    offsets: np.ndarray,
    lengths: np.ndarray,
    rank_splits: Sequence[int],
    params: RSEParams,
) -> np.ndarray:
    """One query's values over every chunk of the selected documents (joined in order), ranked
    within each part ``rank_splits`` makes (none: across all of them)."""
    position = {doc_id: int(offset) for doc_id, offset in zip(selected, offsets, strict=False)}
    calibrated = np.zeros(len(lengths))
    order = np.full(len(lengths), np.nan)
    for hit in hits:
        if hit.doc_id in position:
            index = position[hit.doc_id] + hit.chunk_index
            calibrated[index] = hit.score
            order[index] = hit.order
    absent = np.isnan(order)
    if absent.any():  # rank after every hit (their value is the penalty alone either way)
        order[absent] = (np.nanmin(order) if not absent.all() else 0.0) - 1.0
    return chunk_values(calibrated, params, chunk_lengths=lengths, raw=order, document_splits=rank_splits).value


class _StoreChunks:
    """The selected documents' chunks as the store keeps them (a :class:`~rse_core.segments.ChunkSource`):
    one range read per document, covering all of its segments; ``seconds`` is the time spent reading."""

    def __init__(self, kb: KnowledgeBase, joined: _SelectedValues) -> None:
        self.kb = kb
        self.joined = joined
        self.seconds = 0.0

    def runs(self, ranges: Sequence[tuple[int, int]]) -> list[ChunkRun]:
        clock = time.perf_counter()
        located = [(*self.joined.locate(start), end - start) for start, end in ranges]
        read = self.kb.read_chunks((doc_id, first, first + count - 1) for doc_id, first, count in located)
        runs = []
        for doc_id, first, count in located:
            run = [read[doc_id].get(index) for index in range(first, first + count)]
            if any(chunk is None for chunk in run) or any(a.end != b.start for a, b in pairwise(run)):
                missing = f"chunks {first}-{first + count - 1} of document {doc_id}"
                raise RSEError(f"The store is missing {missing}; rebuild that document.")
            runs.append(ChunkRun(doc_id, self.kb.documents[doc_id].name, first, run))
        self.seconds += time.perf_counter() - clock
        return runs


def _top_k(kb: KnowledgeBase, hits: Sequence[Sequence[ScoredHit]], minimum: int, characters: int) -> tuple[KBHit, ...]:
    """The first stage's best chunks over all queries, best first: at least ``minimum`` of them,
    and more until they hold ``characters`` (twice RSE's), as far as the hits go."""
    best: dict[tuple[str, int], ScoredHit] = {}
    for query_hits in hits:
        for hit in query_hits:
            key = (hit.doc_id, hit.chunk_index)
            if key not in best or (hit.score, hit.order) > (best[key].score, best[key].order):
                best[key] = hit
    ranked = sorted(best.values(), key=hit_rank)
    listed: list[KBHit] = []
    total = 0
    for hit in ranked:
        if len(listed) >= minimum and total >= characters:
            break
        start, end = kb.characters_of(hit.doc_id, hit.chunk_index, hit.chunk_index)
        listed.append(KBHit(kb.documents[hit.doc_id].name, hit.doc_id, hit.chunk_index, start, end, hit.score))
        total += end - start
    return tuple(listed)


def _check_chunking(kb: KnowledgeBase, params: RSEParams) -> None:
    """RSE's chunking parameters must be the ones the base was built with."""
    if params.chunk_size != kb.catalog.chunk_size or params.chunk_headers != kb.catalog.headers:
        raise RSEError(
            f"The knowledge base was chunked at {kb.catalog.chunk_size} characters "
            f"{'with' if kb.catalog.headers else 'without'} headers; query it with those RSE parameters."
        )
