"""The top-k baseline RSE is compared with, computed from the same scores."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


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
