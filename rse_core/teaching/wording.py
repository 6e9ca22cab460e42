"""Shared wording for the teaching aids: chunk ranges and lists as a teacher writes them.

Chunk numbers are 0-based corpus indices, as in the course's worked examples; ranges are
inclusive in words ("chunks 2-4") and end-exclusive in :class:`~rse_core.search.Segment`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rse_core.errors import ParameterError
from rse_core.numerals import num

MINIMUM_RULE = (
    "A segment worth exactly the minimum segment value is kept: dsRAG's rule is value >= minimum "
    '(one course text says "greater than", which differs only on that boundary).'
)
"""One sentence for wherever the minimum segment value is explained."""


def chunk_range(start: int, end: int) -> str:
    """``"chunk 3"`` or ``"chunks 2-4"`` for chunks ``start:end`` (end exclusive)."""
    return f"chunk {start}" if end - start == 1 else f"chunks {start}-{end - 1}"


def is_are(start: int, end: int) -> str:
    """``"chunk 3 is"`` or ``"chunks 2-4 are"``."""
    return f"{chunk_range(start, end)} {'is' if end - start == 1 else 'are'}"


def chunk_set(indices: Sequence[int]) -> str:
    """Indices as runs: ``"chunk 2 and chunks 5-6"``."""
    runs: list[list[int]] = []
    for index in sorted(indices):
        if runs and index == runs[-1][1]:
            runs[-1][1] += 1
        else:
            runs.append([index, index + 1])
    if len(runs) > 1 and all(end - start == 1 for start, end in runs):
        return "chunks " + join_and([str(start) for start, _ in runs])
    return join_and([chunk_range(start, end) for start, end in runs])


def join_and(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def valued(values: np.ndarray, indices: Sequence[int]) -> str:
    """``"chunk 4 (-0.1)"``, ``"chunks 1 (-0.6) and 4 (-0.1)"``."""
    indices = list(indices)
    word = "chunk" if len(indices) == 1 else "chunks"
    return f"{word} " + join_and([f"{i} ({num(values[i])})" for i in indices])


def nearly_equal(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def single_query(values: Sequence[float] | np.ndarray) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ParameterError(f"values must be one list of numbers ({error}).") from error
    if array.ndim != 1:
        raise ParameterError("values must be one list of numbers (one query) here.")
    if not np.isfinite(array).all():
        raise ParameterError("values must be finite numbers.")
    return array


def split_points(document_splits: Sequence[int], n: int) -> list[int]:
    return sorted({int(split) for split in document_splits if 0 < int(split) < n})


def splits_crossed(splits: Sequence[int], start: int, end: int) -> list[int]:
    return [split for split in splits if start < split < end]
