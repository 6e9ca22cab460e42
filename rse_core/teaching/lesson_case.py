"""The Lesson page's numbers: the lesson's gapped cluster mirrored on a sample document, and the
contextual-headers confound measured on it.

The lesson looks at chunks 320-339 of a 10-K *by position* (20 chunks around the consolidated
statements) and says 7 of them are relevant: a cluster with gaps, chunks that score low on their
own between chunks that score high. :func:`cluster_facts` builds the same statistic on a sample
document: the 20 chunks by position around the gold span, how many score above zero on their own,
and the gaps RSE keeps (:mod:`.gaps`), each with its value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rse_core.evaluation.metrics import score_result
from rse_core.numerals import num
from rse_core.pipeline import ExtractionResult
from rse_core.teaching.gaps import Gap, positive_count, segment_gaps, window_by_position

LESSON_WINDOW = 20  # the lesson's chunks 320-339
LESSON_LEAD = 3  # 320 is 3 chunks before the statements' 323


@dataclass(frozen=True)
class ClusterFacts:
    """The case's numbers on one sample document (chunk numbers within it).

    Attributes:
        gold: chunks ``start:end`` of the answer (the golden query's span), or ``None``.
        window: the 20 chunks by position ``start:end`` around the answer (the lesson's 320-339).
        window_positive: how many of them score above zero on their own (the lesson's "relevant").
        gaps: chunks RSE keeps although they score below zero on their own, with their values.
        rse_missed: answer chunks RSE does not send.
        kept_outside_gold: chunks RSE sends outside the answer.
        top_k_missed: answer chunks top-k does not send.
        window_missed: answer chunks the fixed window (top-k hits ± w) does not send.
        window_outside: chunks the fixed window sends outside the answer.
    """

    gold: tuple[int, int] | None
    window: tuple[int, int]
    window_positive: int
    gaps: tuple[Gap, ...]
    rse_missed: tuple[int, ...]
    kept_outside_gold: tuple[int, ...]
    top_k_missed: tuple[int, ...]
    window_missed: tuple[int, ...] = ()
    window_outside: tuple[int, ...] = ()

    @property
    def gaps_dropped_by_top_k(self) -> tuple[int, ...]:
        return tuple(gap.index for gap in self.gaps)


def cluster_facts(result: ExtractionResult, gold: tuple[int, int] | None) -> ClusterFacts:
    """The lesson's statistics on ``result`` (one document, one query) and its answer's chunks ``gold``."""
    values = result.values[0].value
    n = len(values)
    gold_set = set(range(*gold)) if gold else set()
    window = window_by_position(gold[0] if gold else 0, n, size=LESSON_WINDOW, lead=LESSON_LEAD)
    kept = set(result.rse_chunks)
    sent_by_window = {index for segment in result.window for index in range(segment.start, segment.end)}
    return ClusterFacts(
        gold=gold,
        window=window,
        window_positive=positive_count(values, *window),
        gaps=tuple(segment_gaps(values, [s for s in result.segments if s.query == 0])),
        rse_missed=tuple(sorted(gold_set - kept)),
        kept_outside_gold=tuple(sorted(kept - gold_set)),
        top_k_missed=tuple(sorted(gold_set - set(result.top_k))),
        window_missed=tuple(sorted(gold_set - sent_by_window)),
        window_outside=tuple(sorted(sent_by_window - gold_set)),
    )


def gap_sentence(gap: Gap) -> str:
    """One gap in the lesson's words, with the numbers that show its neighbours pay for it."""
    return (
        f"chunk {gap.index} scores {num(gap.value)} on its own; {num(gap.before)} before it and "
        f"{num(gap.after)} after it in the same segment pay for it"
    )


def runs_text(indices: Sequence[int]) -> str:
    """``"3-5, 9"``: sorted indices as inclusive runs."""
    runs: list[list[int]] = []
    for index in sorted(indices):
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


# --------------------------------------------------------------------------- the headers confound


@dataclass(frozen=True)
class HeadersRow:
    """One case with contextual headers on or off: what RSE and top-k send of the answer."""

    case: str
    headers: bool
    rse_recall: float
    top_k_recall: float
    rse_characters: int
    gaps: tuple[Gap, ...]
    segments: int


def headers_row(case: str, result: ExtractionResult, gold_span: tuple[int, int]) -> HeadersRow:
    """Recall of RSE and top-k against the answer's character span ``gold_span``, and RSE's gaps."""
    scores = score_result(result, gold_span)
    values = result.values[0].value
    return HeadersRow(
        case=case,
        headers=bool(result.params.chunk_headers),
        rse_recall=scores["rse"].recall,
        top_k_recall=scores["top_k"].recall,
        rse_characters=result.rse_characters,
        gaps=tuple(segment_gaps(values, list(result.segments))),
        segments=len(result.segments),
    )
