"""The baselines RSE is compared with, computed from the same scores: top-k and a fixed window.

- **top-k**: the ``k`` best-ranked chunks.
- **fixed window** (the lesson's own baseline): each of the top-k hits grown by ``w`` neighbouring
  chunks on both sides, overlapping or touching windows merged, never across a document boundary.
  Every hit gets the same padding whatever the query needs, which is the lesson's point: a
  fixed window pads a one-sentence answer and still cuts a long section.

Both have an equal-budget variant that sends as many characters as RSE at most, so a comparison
is not won by sending more text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.errors import ParameterError

DEFAULT_WINDOW = 1
"""Neighbours added on each side of a hit: one, the smallest window that grows a hit. At k = 5
and 800-character chunks it sends at most 15 chunks (about 12,000 characters), half of RSE's
default 30-chunk budget; ``docs/evaluation.md`` compares w = 1 and w = 2."""


def ranked_chunks(ranks: Sequence[np.ndarray]) -> list[int]:
    """Chunk indices best first; with several queries their rankings take turns (no repeats).

    Args:
        ranks: per query, the rank of every chunk (0 = best), as in
            :class:`~rse_core.values.ChunkValues`.
    """
    orders = [np.argsort(rank, kind="stable") for rank in ranks]
    if len(orders) == 1:
        return orders[0].tolist()
    seen: set[int] = set()
    merged: list[int] = []
    for position in range(len(orders[0]) if orders else 0):
        for order in orders:
            chunk = int(order[position])
            if chunk not in seen:
                seen.add(chunk)
                merged.append(chunk)
    return merged


def top_k(ranking: Sequence[int], k: int) -> list[int]:
    """The first ``k`` chunks of ``ranking``, in rank order."""
    return list(ranking[:k])


def top_k_within_budget(ranking: Sequence[int], lengths: Sequence[int], budget: int) -> list[int]:
    """Chunks in rank order while their characters add up to at most ``budget``.

    This is top-k with the same context size as RSE's answer: it stops at the first chunk that
    would overflow the budget rather than skipping ahead to smaller, lower-ranked chunks.
    """
    chosen: list[int] = []
    used = 0
    for chunk in ranking:
        if used + lengths[chunk] > budget:
            break
        chosen.append(chunk)
        used += lengths[chunk]
    return chosen


@dataclass(frozen=True)
class WindowSegment:
    """Chunks ``start:end`` (end exclusive) sent by the fixed-window baseline.

    Attributes:
        start, end: corpus chunk indices, within one document.
        hits: the ranked hits the window was grown around, best first (corpus indices).
        best_rank: position of its best hit in the ranking (0 = best): the order "score" sends it in.
    """

    start: int
    end: int
    hits: tuple[int, ...]
    best_rank: int

    def __len__(self) -> int:
        return self.end - self.start

    @property
    def padding(self) -> tuple[int, ...]:
        """The chunks that are not hits: what the window added around them."""
        hits = set(self.hits)
        return tuple(index for index in range(self.start, self.end) if index not in hits)


def _document_bounds(index: int, bounds: np.ndarray) -> tuple[int, int]:
    position = int(np.searchsorted(bounds, index, side="right"))
    return int(bounds[position - 1]), int(bounds[position])


def _bounds(n: int, document_splits: Sequence[int]) -> np.ndarray:
    return np.array(sorted({0, n} | {int(split) for split in document_splits if 0 < int(split) < n}))


def _check_window(w: object) -> int:
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or w < 0:
        raise ParameterError(f"the window must be a whole number of neighbouring chunks, 0 or more; got {w!r}.")
    return int(w)


def _merge(grown: list[tuple[int, int, int, int]], bounds: np.ndarray) -> list[WindowSegment]:
    """Merge (start, end, hit, rank) windows that overlap or touch within one document."""
    segments: list[list] = []
    for start, end, hit, rank in sorted(grown):
        if segments:
            last = segments[-1]
            same_document = _document_bounds(start, bounds) == _document_bounds(last[1] - 1, bounds)
            if start <= last[1] and same_document:
                last[1] = max(last[1], end)
                last[2].append((rank, hit))
                continue
        segments.append([start, end, [(rank, hit)]])
    return [
        WindowSegment(start, end, tuple(hit for _, hit in sorted(hits)), min(rank for rank, _ in hits))
        for start, end, hits in segments
    ]


def _grow(hit: int, w: int, bounds: np.ndarray) -> tuple[int, int]:
    low, high = _document_bounds(hit, bounds)
    return max(low, hit - w), min(high, hit + w + 1)


def window(
    ranking: Sequence[int], k: int, w: int = DEFAULT_WINDOW, *, document_splits: Sequence[int] = ()
) -> list[WindowSegment]:
    """The fixed-window baseline: the top-``k`` hits, each grown by ``w`` chunks on both sides.

    A window stops at its document's edge (it is cut, not shifted). Windows that overlap or
    touch within one document are merged into one segment.

    Args:
        ranking: chunk indices best first (every chunk of the corpus).
        k: hits to grow.
        w: neighbouring chunks added on each side (0 = top-k in document order).
        document_splits: chunk indices where a new document starts.

    Returns:
        The segments in document order.
    """
    w = _check_window(w)
    bounds = _bounds(len(ranking), document_splits)
    grown = [(*_grow(hit, w, bounds), hit, rank) for rank, hit in enumerate(ranking[:k])]
    return _merge(grown, bounds)


def window_within_budget(
    ranking: Sequence[int],
    lengths: Sequence[int],
    budget: int,
    w: int = DEFAULT_WINDOW,
    *,
    document_splits: Sequence[int] = (),
) -> list[WindowSegment]:
    """The fixed window with RSE's character budget: hits in rank order, each with its window,
    while the chunks sent add up to at most ``budget`` characters.

    Like :func:`top_k_within_budget` it stops at the first hit whose window would overflow the
    budget (only the chunks it adds count; a hit already inside a window adds nothing).

    Returns:
        The segments in document order.
    """
    w = _check_window(w)
    bounds = _bounds(len(lengths), document_splits)
    sent: set[int] = set()
    used = 0
    grown = []
    for rank, hit in enumerate(ranking):
        start, end = _grow(hit, w, bounds)
        new = [index for index in range(start, end) if index not in sent]
        extra = int(sum(lengths[index] for index in new))
        if used + extra > budget:
            break
        sent.update(new)
        used += extra
        grown.append((start, end, hit, rank))
    return _merge(grown, bounds)


def split_negatives(values: np.ndarray, start: int, end: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The negative chunks of ``start:end``, as (inner gaps, edge padding).

    An inner gap lies between two non-negative chunks of the run: the low-scored middle of a
    relevant cluster (a table inside a section). Edge padding lies before the run's first or
    after its last non-negative chunk: text added at an end. RSE's own segments start and end on
    a non-negative chunk of their query, so under that query's values all their negative chunks
    are inner gaps; a fixed window's negative chunks are often edge padding.
    """
    segment = np.asarray(values[start:end])
    non_negative = np.flatnonzero(segment >= 0)
    negative = [start + int(i) for i in np.flatnonzero(segment < 0)]
    if not len(non_negative):
        return (), tuple(negative)
    first, last = start + int(non_negative[0]), start + int(non_negative[-1])
    inner = tuple(i for i in negative if first < i < last)
    edge = tuple(i for i in negative if i < first or i > last)
    return inner, edge
