"""Gaps as the lesson means them: chunks that score low on their own, kept because their neighbours pay.

A chunk *scores low on its own* when its value is below zero: sent alone it costs more than it
gives, so the search never starts or ends a segment on it. It is a *gap* when a segment keeps it
anyway, because the chunks on both sides of it in that segment are worth more than it costs.
Each gap is reported with its own value and the two sums that pay for it, so a class can check
the claim by adding up the bars.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.search import Segment


@dataclass(frozen=True)
class Gap:
    """A chunk inside a segment whose own value is below zero.

    Attributes:
        index: chunk index (0-based).
        value: its own value (< 0).
        before: sum of the segment's values before it.
        after: sum of the segment's values after it.
        segment: the segment that keeps it.
    """

    index: int
    value: float
    before: float
    after: float
    segment: Segment

    @property
    def paid_for(self) -> bool:
        """Both sides outweigh it (always true for a segment the search picked)."""
        return self.before + self.value >= 0 or self.after + self.value >= 0


def segment_gaps(values: Sequence[float] | np.ndarray, segments: Sequence[Segment]) -> list[Gap]:
    """Every gap of ``segments`` over one query's ``values``, in document order."""
    array = np.asarray(values, dtype=np.float64)
    gaps = []
    for segment in segments:
        for index in range(segment.start, segment.end):
            if array[index] < 0:
                gaps.append(
                    Gap(
                        index=index,
                        value=float(array[index]),
                        before=float(array[segment.start : index].sum()),
                        after=float(array[index + 1 : segment.end].sum()),
                        segment=segment,
                    )
                )
    return sorted(gaps, key=lambda gap: gap.index)


def positive_count(values: Sequence[float] | np.ndarray, start: int, end: int) -> int:
    """How many of chunks ``start:end`` score above zero on their own (the lesson's "marked relevant")."""
    array = np.asarray(values, dtype=np.float64)
    return int((array[start:end] > 0).sum())


def window_by_position(gold_start: int, n: int, *, size: int = 20, lead: int = 3) -> tuple[int, int]:
    """``size`` chunks by position starting ``lead`` chunks before the answer, within ``0:n``.

    The lesson looks at chunks 320-339 of the 10-K: 20 chunks by position, the first 3 before the
    statements (323); this is the same window on another document.
    """
    start = max(0, min(gold_start - lead, n - size))
    return start, min(n, start + size)
