"""Chunk size as a study: RSE and the baselines on a golden set across chunk sizes.

The lesson's claim is that RSE works "without fixing the chunk size in advance": segments grow
to what the query needs, so the chunk size matters less to RSE than to top-k or a fixed window,
whose context is a fixed number of chunks. This module measures it: for each chunk size the
golden set's documents are chunked and scored again (the MiniLM scorer caches embeddings per
chunk size on disk) and every method is judged as in :mod:`rse_core.evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rse_core.evaluation.golden import GoldenSet
from rse_core.evaluation.metrics import METHODS, summarize
from rse_core.evaluation.runs import evaluate
from rse_core.params import RSEParams
from rse_core.scoring import Scorer, ScorerName, get_scorer

DEFAULT_CHUNK_SIZES = (200, 400, 800, 1200, 1600)
"""From a sentence or two to a long paragraph: the range the issue asks for (200-1,600)."""


@dataclass(frozen=True)
class ChunkSizeRow:
    """Mean scores of one method on one kind of query at one chunk size."""

    chunk_size: int
    kind: str
    method: str
    queries: int
    recall: float
    precision: float
    covered: float
    characters: float


def chunk_size_study(
    golden_sets: Sequence[GoldenSet],
    params: RSEParams | None = None,
    scorer: Scorer | str | None = None,
    chunk_sizes: Sequence[int] = DEFAULT_CHUNK_SIZES,
    progress: Callable[[float, str], None] | None = None,
) -> list[ChunkSizeRow]:
    """Evaluate RSE and the baselines on ``golden_sets`` at every chunk size (all sets pooled).

    Args:
        golden_sets: the golden sets; each query counts once.
        params: every other parameter (default ``RSEParams()``); only the chunk size changes.
        scorer: a scorer or its name (default minilm).
        chunk_sizes: the sizes to try, in characters.
        progress: called with (fraction, label) before each (size, golden set).

    Returns:
        One row per chunk size, query kind (then "all") and method (:data:`~rse_core.evaluate.METHODS`).
    """
    params = params or RSEParams()
    scorer = get_scorer(scorer or ScorerName.MINILM) if scorer is None or isinstance(scorer, str) else scorer
    rows: list[ChunkSizeRow] = []
    steps = max(1, len(chunk_sizes) * len(golden_sets))
    for size_number, size in enumerate(chunk_sizes):
        sized = params.with_changes(chunk_size=int(size))
        queries = []
        for set_number, golden in enumerate(golden_sets):
            if progress is not None:
                progress((size_number * len(golden_sets) + set_number) / steps, f"{golden.document_name} at {size}")
            queries.extend(evaluate(golden, sized, scorer).queries)
        for row in summarize(queries):
            rows.append(
                ChunkSizeRow(
                    chunk_size=int(size),
                    kind=str(row["kind"]),
                    method=str(row["method"]),
                    queries=int(row["queries"]),
                    recall=float(row["recall"]),
                    precision=float(row["precision"]),
                    covered=float(row["covered"]),
                    characters=float(row["characters"]),
                )
            )
    return rows


def format_study(rows: Sequence[ChunkSizeRow], kind: str = "all") -> str:
    """Recall and characters per chunk size and method, for one kind, as a Markdown table."""
    from rse_core.evaluation.metrics import METHOD_LABELS

    sizes = sorted({row.chunk_size for row in rows})
    by_key = {(row.chunk_size, row.method): row for row in rows if row.kind == kind}
    header = "| chunk size | " + " | ".join(f"{METHOD_LABELS[m]} recall / characters" for m in METHODS) + " |"
    lines = [header, "| ---: |" + " ---: |" * len(METHODS)]
    for size in sizes:
        cells = []
        for method in METHODS:
            row = by_key.get((size, method))
            cells.append("" if row is None else f"{row.recall:.2f} / {row.characters:,.0f}")
        lines.append(f"| {size:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
