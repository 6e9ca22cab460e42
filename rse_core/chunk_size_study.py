"""Chunk size as a study: RSE and the baselines on a golden set across chunk sizes.

The lesson's point is that RSE finds passages "without fixing the chunk size in advance": small
chunks let segments fit the answer closely, large ones make top-k send whole sections. This
module measures it: for each chunk size, evaluate every golden set (same scorer, same
parameters otherwise) and pool the queries into one row per method, with mean recall, full
coverage and characters sent.

Scoring is the slow part, so the caller can pass ``evaluate_at(chunk_size)`` that reads from a
cache (the app passes its score cache; the minilm scorer also caches embeddings on disk per
chunk text, so each size is embedded once).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import ParameterError
from .evaluate import METHODS, QueryEvaluation, evaluate, summarize
from .golden import GoldenSet
from .params import RSEParams
from .scoring import Scorer

DEFAULT_SIZES = (200, 400, 800, 1200, 1600)
"""The sizes the study runs by default: 200 to 1,600 characters, the app's 800 in the middle."""

EvaluateAt = Callable[[int], Sequence[QueryEvaluation]]
"""``evaluate_at(chunk_size) -> per-query evaluations`` of every golden set at that size."""


@dataclass(frozen=True)
class ChunkSizeRow:
    """One method at one chunk size, pooled over the queries (each query counts once)."""

    chunk_size: int
    kind: str
    method: str
    queries: int
    recall: float
    covered: float
    characters: float


def run_study(
    evaluate_at: EvaluateAt, sizes: Sequence[int] = DEFAULT_SIZES, *, kind: str = "all"
) -> list[ChunkSizeRow]:
    """Rows for every size in ``sizes`` (ascending) and every method, for query ``kind``.

    Raises:
        ParameterError: no sizes, a size that is not a positive whole number, or an unknown kind.
    """
    if not sizes:
        raise ParameterError("Give at least one chunk size for the study.")
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ParameterError(f"Chunk sizes must be whole numbers of characters; got {size!r}.")
    rows: list[ChunkSizeRow] = []
    for size in sorted(set(sizes)):
        summary = [row for row in summarize(list(evaluate_at(size))) if row["kind"] == kind]
        if not summary:
            raise ParameterError(f"No {kind!r} queries in the golden sets; choose another kind or 'all'.")
        rows += [
            ChunkSizeRow(
                chunk_size=size,
                kind=kind,
                method=str(row["method"]),
                queries=int(row["queries"]),
                recall=float(row["recall"]),
                covered=float(row["covered"]),
                characters=float(row["characters"]),
            )
            for row in summary
        ]
    return rows


def chunk_size_study(
    golden_sets: Sequence[GoldenSet],
    params: RSEParams,
    scorer: Scorer,
    sizes: Sequence[int] = DEFAULT_SIZES,
    *,
    kind: str = "all",
) -> list[ChunkSizeRow]:
    """The study with :func:`rse_core.evaluate.evaluate` (documents loaded from the golden sets)."""

    def evaluate_at(size: int) -> list[QueryEvaluation]:
        at_size = params.with_changes(chunk_size=size)
        return [q for golden in golden_sets for q in evaluate(golden, at_size, scorer).queries]

    return run_study(evaluate_at, sizes, kind=kind)


def methods_in(rows: Sequence[ChunkSizeRow]) -> list[str]:
    """The methods present in ``rows``, in :data:`rse_core.evaluate.METHODS` order."""
    present = {row.method for row in rows}
    return [method for method in METHODS if method in present]
