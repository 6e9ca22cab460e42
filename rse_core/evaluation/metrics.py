"""The span judge every evaluation shares: what a method sent, scored against a gold span.

Every place that scores retrieval (one golden set, a scored set at new parameters, the sweep's
cells, the recall-vs-characters curves, the demo's narration) asks :func:`span_score` or
:func:`score_result`, so a number means the same thing on every page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from rse_core.errors import RSEError
from rse_core.evaluation.golden import QUERY_KINDS
from rse_core.pipeline import ExtractedSegment, ExtractionResult
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


def score_result(result: ExtractionResult, gold: tuple[int, int], doc_id: str | None = None) -> dict[str, SpanScore]:
    """Judge RSE and the baselines (top-k, window, each also at RSE's budget) against a gold span.

    ``gold`` are offsets into the document ``doc_id`` (default: the corpus' only document).
    Characters sent from other documents of the corpus count as sent, never as gold.
    """
    corpus = result.corpus
    if doc_id is None:
        if len(corpus.documents) != 1:
            raise RSEError("The corpus holds several documents; say which one the gold span is in (doc_id).")
        doc_id = corpus.documents[0].doc_id

    def judge(ranges: list[tuple[str, int, int]], pieces: int) -> SpanScore:
        inside = [(start, end) for owner, start, end in ranges if owner == doc_id]
        # Offsets are per document: overlaps are merged within each other document, never across.
        others = {owner for owner, _, _ in ranges if owner != doc_id}
        outside = sum(
            end - start for other in others for start, end in merge_ranges([(s, e) for o, s, e in ranges if o == other])
        )
        return span_score(inside, gold, pieces=pieces, other_characters=outside)

    def chunk_ranges(indices: Sequence[int]) -> list[tuple[str, int, int]]:
        return [(corpus.chunks[i].doc_id, corpus.chunks[i].start, corpus.chunks[i].end) for i in indices]

    def window_ranges(segments: Sequence[WindowSegment]) -> list[tuple[str, int, int]]:
        return [
            (corpus.chunks[s.start].doc_id, corpus.chunks[s.start].start, corpus.chunks[s.end - 1].end)
            for s in segments
        ]

    return {
        "rse": judge([(s.doc_id, s.start_char, s.end_char) for s in result.segments], len(result.segments)),
        "top_k": judge(chunk_ranges(result.top_k), len(result.top_k)),
        "top_k_equal_budget": judge(chunk_ranges(result.top_k_equal_budget), len(result.top_k_equal_budget)),
        "window": judge(window_ranges(result.window), len(result.window)),
        "window_equal_budget": judge(window_ranges(result.window_equal_budget), len(result.window_equal_budget)),
    }
