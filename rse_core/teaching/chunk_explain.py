"""Why one chunk of a real corpus is in or out of RSE's answer, and the penalty that flips it.

The threshold is bracketed on the penalty slider's grid (steps of 0.01), bisected to 1e-4 and
verified with ``run_rse``. Two numbers come out, and the message names both: the exact threshold
(to 1e-4) and the first value on the slider's grid past it, which is what a button applies.
Ranks count from 0 (best = rank 0), as in the value formula ``exp(-rank / decay)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.errors import ParameterError, RSEError
from rse_core.evaluation.sweep import ValueBasis
from rse_core.numerals import num
from rse_core.params import RSEParams
from rse_core.pipeline import Corpus, ExtractionResult, run_rse
from rse_core.scoring import Calibration
from rse_core.search import StopReason, find_best_segments

PENALTY_GRID_STEP = 0.01
"""Step of the penalty scan in :func:`explain_chunk` (before bisecting to 1e-4): the app's
penalty slider step, so the scan's first flipping point is a value the slider can hold."""

PENALTY_PRECISION = 1e-4

# --------------------------------------------------------------------------- explain one chunk


@dataclass(frozen=True)
class ChunkExplanation:
    """Why one chunk is in or out of RSE's answer, and the penalty at which that flips.

    Attributes:
        chunk_index: corpus index of the chunk.
        values: its value for each query at the current parameters.
        in_segment: whether a segment contains it.
        segment_label: ``"S1"``, ... of that segment (pick order, as in ``run_rse``).
        ranking_position: its position in the (merged) ranking, 0 = best.
        ranks: its rank for each query (0 = best), the ``rank`` of ``exp(-rank / decay)``.
        in_top_k: whether the top-k baseline sends it.
        penalty: the current irrelevant-chunk penalty.
        threshold: nearest penalty (to 1e-4) at which its status flips: for a chunk that is out,
            the largest penalty below the current one at which it is in (or, if lowering never
            helps, the smallest above); for a chunk that is in, the smallest penalty above the
            current one at which it is out (or, failing that, the largest below). ``None`` if
            no penalty in [0, 1] flips it. Verified with ``run_rse``.
        beyond: a penalty within 1e-4 of ``threshold``, on the current side, where the status
            is still the current one (also verified).
        applied: the first penalty on the slider's grid (:data:`PENALTY_GRID_STEP`) past the
            threshold, seen from the current penalty, at which the status is flipped (verified
            with ``run_rse``): the value to apply; the message names it.
        threshold_segment_label: the label of its segment at ``threshold`` when it joins one.
        holds_beyond_threshold: whether every scanned penalty past ``threshold`` (away from the
            current one) has the flipped status too ("0.14 or lower"); the answer can depend on
            the penalty non-monotonically, because segments compete for the budget.
        reason: why no penalty flips it (when ``threshold`` is ``None``).
        message: one line for the page.
    """

    chunk_index: int
    values: tuple[float, ...]
    in_segment: bool
    segment_label: str | None
    ranking_position: int
    in_top_k: bool
    penalty: float
    message: str
    ranks: tuple[int, ...] = ()
    threshold: float | None = None
    beyond: float | None = None
    applied: float | None = None
    threshold_segment_label: str | None = None
    holds_beyond_threshold: bool | None = None
    reason: str | None = None

    @property
    def value(self) -> float:
        """Its highest value over the queries (the only one with one query)."""
        return max(self.values)

    @property
    def applied_text(self) -> str | None:
        """``applied`` written exactly as the message writes it (for a button label)."""
        return None if self.applied is None else format_penalty(self.applied)


def _segment_label(result: ExtractionResult, chunk_index: int) -> str | None:
    for segment in result.segments:
        if segment.start <= chunk_index < segment.end:
            return segment.label
    return None


def explain_chunk(
    corpus: Corpus,
    queries: Sequence[str],
    raw_scores: Sequence[np.ndarray],
    params: RSEParams,
    calibration: Calibration,
    chunk_index: int,
) -> ChunkExplanation:
    """Explain one chunk of ``run_rse(corpus, queries, raw_scores, params, calibration)``.

    The penalty threshold is found with everything else fixed: the penalty is scanned over
    [0, 1] in steps of :data:`PENALTY_GRID_STEP`, the flip nearest to the current penalty is
    bisected to :data:`PENALTY_PRECISION`, and both ends are checked with ``run_rse`` (the scan
    uses the same values, computed without redoing the beta transform).

    Raises:
        ParameterError: ``chunk_index`` is not a chunk of the corpus.
        RSEError: the verification failed (a bug: the scan and ``run_rse`` disagree).
    """
    n = len(corpus.chunks)
    if isinstance(chunk_index, bool) or not isinstance(chunk_index, (int, np.integer)) or not 0 <= chunk_index < n:
        raise ParameterError(f"chunk_index must be a chunk of the corpus, 0 to {n - 1}; got {chunk_index!r}.")
    chunk_index = int(chunk_index)
    result = run_rse(corpus, queries, raw_scores, params, calibration)
    label = _segment_label(result, chunk_index)
    current = label is not None
    p0 = float(params.irrelevant_chunk_penalty)
    scan = _PenaltyScan(
        corpus, params, [ValueBasis(values, params.chunk_length_adjustment) for values in result.values], chunk_index
    )
    grid = [round(k * PENALTY_GRID_STEP, 10) for k in range(round(1 / PENALTY_GRID_STEP) + 1)]
    profile = {p: scan.in_segment(p) for p in grid}
    profile[p0] = current
    found = _nearest_flip(profile, p0, current)
    head, common = _chunk_facts(result, chunk_index, label)
    if found is None:
        reason = _no_flip_reason(corpus, result, params, scan.bases, chunk_index, current, label)
        return ChunkExplanation(
            **common, message=f"{head}; no penalty in [0, 1] changes that: {reason}.", reason=reason
        )
    direction, flip = found
    threshold, beyond = _bisect(scan, profile, direction, flip, p0, current)

    def label_at(penalty: float) -> str | None:
        changed = params.with_changes(irrelevant_chunk_penalty=penalty)
        return _segment_label(run_rse(corpus, queries, raw_scores, changed, calibration), chunk_index)

    # Both ends of the bracket checked with run_rse itself, then the value to apply: the scan's
    # first grid point with the flipped status (at or past the threshold).
    new_label = label_at(threshold)
    if (new_label is not None) == current or (label_at(beyond) is not None) != current:
        raise RSEError(f"Internal error: the penalty scan and run_rse disagree for chunk {chunk_index}.")
    applied = flip
    if applied != threshold and (label_at(applied) is not None) == current:
        raise RSEError(f"Internal error: penalty {applied} does not flip chunk {chunk_index} as scanned.")
    exception = _counter_example(profile, threshold, direction, current)
    holds = exception is None
    message = head + "; " + _flip_text(current, direction, threshold, applied, new_label, p0, holds, exception)
    return ChunkExplanation(
        **common,
        message=message,
        threshold=threshold,
        beyond=beyond,
        applied=applied,
        threshold_segment_label=new_label,
        holds_beyond_threshold=holds,
    )


def _chunk_facts(result: ExtractionResult, chunk_index: int, label: str | None) -> tuple[str, dict]:
    """What every explanation starts with: the chunk's values, ranks and place, as a sentence
    and as the :class:`ChunkExplanation` fields they fill."""
    values_now = tuple(float(v.value[chunk_index]) for v in result.values)
    ranks = tuple(int(v.rank[chunk_index]) for v in result.values)
    in_top_k = chunk_index in result.top_k
    head = _chunk_head(values_now, ranks, len(result.corpus.chunks), in_top_k, result.params.top_k, label)
    common = {
        "chunk_index": chunk_index,
        "values": values_now,
        "in_segment": label is not None,
        "segment_label": label,
        "ranking_position": result.ranking.index(chunk_index),
        "ranks": ranks,
        "in_top_k": in_top_k,
        "penalty": float(result.params.irrelevant_chunk_penalty),
    }
    return head, common


@dataclass(frozen=True)
class _PenaltyScan:
    """Whether a chunk is in a segment at a given penalty, everything else fixed.

    The beta transform is done once (:class:`ValueBasis`); each penalty only redoes the search.
    """

    corpus: Corpus
    params: RSEParams
    bases: list[ValueBasis]
    chunk_index: int

    def in_segment(self, penalty: float) -> bool:
        params = self.params
        search = find_best_segments(
            [basis.values(penalty, params.decay_rate) for basis in self.bases],
            max_length=params.max_length,
            overall_max_length=params.overall_max_length,
            minimum_value=params.minimum_value,
            document_splits=self.corpus.document_splits,
        )
        return any(segment.start <= self.chunk_index < segment.end for segment in search)


def _nearest_flip(profile: dict[float, bool], p0: float, current: bool) -> tuple[str, float] | None:
    """The scanned penalty nearest ``p0`` with the other status, and its direction ("down"/"up").

    The direction the question asks is searched first: down for a chunk that is out, up for one
    that is in.
    """
    for direction in ("down", "up") if not current else ("up", "down"):
        flips = sorted(
            (p for p, state in profile.items() if state != current and (p < p0 if direction == "down" else p > p0)),
            reverse=direction == "down",
        )
        if flips:
            return direction, flips[0]
    return None


def _bisect(
    scan: _PenaltyScan, profile: dict[float, bool], direction: str, flip: float, p0: float, current: bool
) -> tuple[float, float]:
    """``(threshold, beyond)``: the flip narrowed to :data:`PENALTY_PRECISION` between the scanned
    flip and the nearest scanned point on the current side; ``threshold`` flips the chunk."""
    if direction == "down":
        lo, hi = flip, min([p for p in profile if p > flip and profile[p] == current] + [p0])
    else:
        lo, hi = max([p for p in profile if p < flip and profile[p] == current] + [p0]), flip
    status_lo = profile[lo]
    while hi - lo > PENALTY_PRECISION + 1e-12:
        mid = round((lo + hi) / 2, 4)
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        if scan.in_segment(mid) == status_lo:
            lo = mid
        else:
            hi = mid
    return (lo, hi) if direction == "down" else (hi, lo)


def _counter_example(profile: dict[float, bool], threshold: float, direction: str, current: bool) -> float | None:
    """A scanned penalty past the threshold where the chunk is back to its current status (the
    flip does not hold all the way), the one nearest the threshold; ``None`` if it holds."""
    past = [p for p in profile if (p < threshold if direction == "down" else p > threshold)]
    back = [p for p in past if profile[p] == current]
    if not back:
        return None
    return min(back) if direction == "up" else max(back)


def format_penalty(p: float) -> str:
    """A penalty to 4 decimals without trailing zeros (``0.5001``, ``0.51``, ``0.5``)."""
    text = f"{p:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _chunk_head(values, ranks, n, in_top_k, k, label) -> str:
    if len(values) == 1:
        value_text = f"value {num(values[0])}"
        rank_text = f"rank {ranks[0]} of {n}, best = rank 0"
    else:
        value_text = "values " + ", ".join(f"{num(v)} (query {q})" for q, v in enumerate(values, 1))
        rank_text = "ranks " + ", ".join(f"{r} (query {q})" for q, r in enumerate(ranks, 1)) + f" of {n}, best = rank 0"
    top = f"in the top {k}" if in_top_k else f"not in the top {k}"
    where = f"in segment {label}" if label else "not in any segment"
    return f"{value_text} ({rank_text}; {top}); {where}"


def _flip_text(current, direction, threshold, applied, new_label, p0, holds, exception) -> str:
    p = format_penalty(threshold)
    rest = f"{' or lower' if direction == 'down' else ' or higher'}" if holds else ""
    now = f" (now {format_penalty(p0)})"
    caveat = (
        ""
        if holds
        else f", though not at every {'lower' if direction == 'down' else 'higher'} penalty "
        f"(at {format_penalty(exception)} it is {'in' if current else 'out'} again)"
    )
    step = (
        ""
        if applied == threshold
        else f"; on the slider (steps of {PENALTY_GRID_STEP:g}) the first value that does it is "
        f"{format_penalty(applied)}"
    )
    if not current:
        return f"it would join a segment ({new_label}) if the penalty were {p}{rest}{now}{caveat}{step}"
    return f"it would drop out if the penalty were {p}{rest}{now}{caveat}{step}"


def _no_flip_reason(corpus, result, params, bases, chunk_index, current, label) -> str:
    if current:
        at_one = run_rse(
            corpus,
            result.queries,
            [v.raw for v in result.values],
            params.with_changes(irrelevant_chunk_penalty=1.0),
            result.calibration,
        )
        segment = next(s for s in at_one.segments if s.start <= chunk_index < s.end)
        return (
            f"even at penalty 1 it stays in {segment.label}, worth {num(segment.score)} "
            f">= minimum {num(params.minimum_value)}"
        )
    # Out at every penalty: look at penalty 0, where every value is at its highest.
    zero = [basis.values(0.0, params.decay_rate) for basis in bases]
    limit = min(params.max_length, params.overall_max_length)
    bounds = [0, *corpus.document_splits, len(corpus.chunks)]
    document = int(np.searchsorted(bounds, chunk_index, side="right")) - 1
    low, high = bounds[document], bounds[document + 1]
    best = -math.inf
    for values in zero:
        for start in range(max(low, chunk_index - limit + 1), chunk_index + 1):
            for end in range(chunk_index + 1, min(high, start + limit) + 1):
                if values[start] >= 0 and values[end - 1] >= 0:
                    best = max(best, float(values[start:end].sum()))
    own = max(float(values[chunk_index]) for values in zero)
    rank = min(int(v.rank[chunk_index]) for v in result.values)
    if best < params.minimum_value:
        why = _low_reason(result, chunk_index, rank, params.decay_rate)
        return (
            f"{why}: even with penalty 0 its value is only {num(own)}, and the best segment through it "
            f"(at most {limit} chunks) is worth {num(best)} < minimum {num(params.minimum_value)}"
        )
    at_zero = find_best_segments(
        zero,
        max_length=params.max_length,
        overall_max_length=params.overall_max_length,
        minimum_value=params.minimum_value,
        document_splits=corpus.document_splits,
    )
    if at_zero.stop_reason is StopReason.BUDGET_SPENT:
        return (
            f"even with penalty 0, where a segment through it would be worth up to {num(best)}, the chunk budget "
            f"({params.overall_max_length}) is spent on better segments first"
        )
    return (
        f"even with penalty 0 no pick covers it (a segment through it would be worth up to {num(best)}); "
        f"the search stops because {at_zero.stop_reason.explanation}"
    )


def _low_reason(result: ExtractionResult, chunk_index: int, rank: int, decay_rate: float) -> str:
    """Why a chunk's own value is low: a calibrated score of 0 (no rank can help), or its rank when the
    decay takes more of it than the beta transform does; otherwise the minimum is simply out of reach."""
    transformed = max(float(values.transformed[chunk_index]) for values in result.values)
    calibrated = max(float(values.calibrated[chunk_index]) for values in result.values)
    kept = math.exp(-rank / decay_rate)
    if calibrated <= 0.0:
        zeros = sum(1 for score in result.values[0].calibrated if score <= 0.0)
        return (
            f"its calibrated score is 0, the document's lowest ({zeros} of {len(result.corpus.chunks)} chunks share "
            "it), so the beta transform gives 0 and no penalty or rank can lift it"
        )
    if kept < transformed and kept < 0.5:
        return (
            f"its rank is too low (rank {rank}, best = rank 0: the decay keeps "
            f"exp(-{rank}/{decay_rate:g}) = {kept:.3f} of its beta-transformed score {transformed:.3f})"
        )
    return "the minimum segment value is out of reach"
