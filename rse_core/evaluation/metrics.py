"""The span judge every evaluation shares: what a method sent, scored against a gold span.

Every place that scores retrieval (one golden set, a scored set at new parameters, the sweep's
cells, the recall-vs-characters curves, the auto-tuner, the demo's narration) turns what a method
sent into :data:`Piece` s and asks :func:`score_sent`, and every :class:`QueryEvaluation` is built
by :func:`query_evaluation`, so a number means the same thing on every page.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass

from rse_core.errors import RSEError
from rse_core.evaluation.golden import QUERY_KINDS
from rse_core.pipeline import Corpus, ExtractedSegment, ExtractionResult
from rse_core.topk import WindowSegment

METHODS = ("rse", "top_k", "top_k_equal_budget", "window", "window_equal_budget")


METHOD_LABELS = {
    "rse": "RSE",
    "top_k": "top-k",
    "top_k_equal_budget": "top-k, RSE's budget",
    "window": "window",
    "window_equal_budget": "window, RSE's budget",
}


SCORE_FIELDS = ("recall", "precision", "covered", "characters", "pieces")


@dataclass(frozen=True)
class SpanScore:
    """How well a set of character ranges covers a gold span."""

    recall: float
    precision: float
    covered: bool
    characters: int
    pieces: int


def merge_ranges(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping ranges (adjacent ones joined, empty ones dropped)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def span_score(
    selected: Sequence[tuple[int, int]],
    gold: tuple[int, int],
    pieces: int | None = None,
    other_characters: int = 0,
) -> SpanScore:
    """Character recall/precision of ``selected`` ranges against the ``gold`` range.

    recall = |selected ∩ gold| / |gold|; precision = |selected ∩ gold| / |selected|, where
    overlapping selected ranges count once. ``other_characters`` were sent from other documents:
    they add to what is sent, never to the overlap.

    Precision of an empty selection is 0: sending nothing is not precise, it is useless.
    """
    merged = merge_ranges(selected)
    gold_start, gold_end = gold
    overlap = sum(max(0, min(end, gold_end) - max(start, gold_start)) for start, end in merged)
    sent = sum(end - start for start, end in merged) + other_characters
    gold_length = gold_end - gold_start
    return SpanScore(
        recall=overlap / gold_length if gold_length else 0.0,
        precision=overlap / sent if sent else 0.0,
        covered=gold_length > 0 and overlap == gold_length,
        characters=sent,
        pieces=len(merged) if pieces is None else pieces,
    )


Piece = tuple[Hashable, int, int]
"""One piece a method sent: (document id, start, end), character offsets within that document."""


def chunk_pieces(corpus: Corpus, runs: Iterable[tuple[int, int]]) -> list[Piece]:
    """The pieces sent by runs of corpus chunks ``[start, end)`` (a run never crosses documents)."""
    chunks = corpus.chunks
    return [(chunks[start].doc_id, chunks[start].start, chunks[end - 1].end) for start, end in runs]


def score_sent(pieces: Sequence[Piece], gold: tuple[int, int], gold_document: Hashable) -> SpanScore:
    """Judge what a method sent against the ``gold`` span of ``gold_document``.

    Offsets are per document, so only pieces of the gold's document can overlap it, and overlaps
    are merged within each document, never across. Characters sent from other documents count
    as sent (against precision), never as gold. ``pieces`` counts the pieces as sent, before
    merging: ten adjacent top-k chunks are ten pieces.
    """
    inside: list[tuple[int, int]] = []
    elsewhere: dict[Hashable, list[tuple[int, int]]] = {}
    for document, start, end in pieces:
        if document == gold_document:
            inside.append((start, end))
        else:
            elsewhere.setdefault(document, []).append((start, end))
    other = sum(end - start for ranges in elsewhere.values() for start, end in merge_ranges(ranges))
    return span_score(inside, gold, pieces=len(pieces), other_characters=other)


@dataclass(frozen=True)
class QueryEvaluation:
    """One golden query: what each method sent and how it scored.

    ``segments`` are RSE's segments; ``top_k`` and ``top_k_equal_budget`` are corpus chunk
    indices, best first (``Evaluation.corpus`` turns them into chunks); ``window`` and
    ``window_equal_budget`` are the fixed-window baseline's segments, in document order.
    """

    id: str
    query: str
    kind: str
    gold: tuple[int, int]
    scores: dict[str, SpanScore]
    segments: tuple[ExtractedSegment, ...] = ()
    top_k: tuple[int, ...] = ()
    top_k_equal_budget: tuple[int, ...] = ()
    window: tuple[WindowSegment, ...] = ()
    window_equal_budget: tuple[WindowSegment, ...] = ()

    def row(self) -> dict[str, object]:
        """id, kind, query and ``<method>_<field>`` for every method and score field."""
        row: dict[str, object] = {"id": self.id, "kind": self.kind, "query": self.query}
        for method, score in self.scores.items():
            for field, value in asdict(score).items():
                row[f"{method}_{field}"] = value
        return row


def summarize(queries: Sequence[QueryEvaluation]) -> list[dict[str, object]]:
    """Mean of every score field per query kind (in :data:`QUERY_KINDS` order, then "all") and method.

    Kinds outside :data:`QUERY_KINDS` (FinanceBench's question types) follow in order of appearance.
    Each query counts once, so pooling several golden sets weights them by their query counts.
    """
    rows = []
    kinds = [kind for kind in QUERY_KINDS if any(q.kind == kind for q in queries)]
    kinds += [*dict.fromkeys(q.kind for q in queries if q.kind not in QUERY_KINDS), "all"]
    for kind in kinds:
        chosen = [q for q in queries if kind in ("all", q.kind)]
        for method in METHODS:
            scores = [q.scores[method] for q in chosen]
            rows.append(
                {
                    "kind": kind,
                    "method": method,
                    "queries": len(scores),
                    "recall": _mean(s.recall for s in scores),
                    "precision": _mean(s.precision for s in scores),
                    "covered": _mean(float(s.covered) for s in scores),
                    "characters": _mean(s.characters for s in scores),
                    "pieces": _mean(s.pieces for s in scores),
                }
            )
    return rows


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def sent_pieces(result: ExtractionResult) -> dict[str, list[Piece]]:
    """What each method of :data:`METHODS` sent in ``result``, as pieces in the order sent."""
    corpus = result.corpus
    return {
        "rse": [(s.doc_id, s.start_char, s.end_char) for s in result.segments],
        "top_k": chunk_pieces(corpus, ((i, i + 1) for i in result.top_k)),
        "top_k_equal_budget": chunk_pieces(corpus, ((i, i + 1) for i in result.top_k_equal_budget)),
        "window": chunk_pieces(corpus, ((s.start, s.end) for s in result.window)),
        "window_equal_budget": chunk_pieces(corpus, ((s.start, s.end) for s in result.window_equal_budget)),
    }


def score_result(result: ExtractionResult, gold: tuple[int, int], doc_id: str | None = None) -> dict[str, SpanScore]:
    """Judge RSE and the baselines (top-k, window, each also at RSE's budget) against a gold span.

    ``gold`` are offsets into the document ``doc_id`` (default: the corpus' only document).
    Characters sent from other documents of the corpus count as sent, never as gold.
    """
    if doc_id is None:
        documents = result.corpus.documents
        if len(documents) != 1:
            raise RSEError("The corpus holds several documents; say which one the gold span is in (doc_id).")
        doc_id = documents[0].doc_id
    return {method: score_sent(pieces, gold, doc_id) for method, pieces in sent_pieces(result).items()}


def query_evaluation(
    result: ExtractionResult, *, id: str, query: str, kind: str, gold: tuple[int, int], doc_id: str
) -> QueryEvaluation:
    """One golden query's :class:`QueryEvaluation`: ``result`` judged against ``gold`` in ``doc_id``.

    The one place a :class:`QueryEvaluation` is built from a run, so a golden set evaluated from
    scratch and a scored set evaluated at new parameters keep the same fields.
    """
    return QueryEvaluation(
        id=id,
        query=query,
        kind=kind,
        gold=gold,
        scores=score_result(result, gold, doc_id),
        segments=result.segments,
        top_k=result.top_k,
        top_k_equal_budget=result.top_k_equal_budget,
        window=result.window,
        window_equal_budget=result.window_equal_budget,
    )
