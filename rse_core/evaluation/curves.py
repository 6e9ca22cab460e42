"""Budget-aware evaluation: recall against characters sent, as curves and one area per method.

Recall alone rewards sending more. Here each method is an operating curve: RSE over a sweep of
the irrelevant-chunk penalty (everything else as given), top-k over k, and the fixed window
(each of the top k hits grown by ``params.window`` chunks on both sides) over k. Each point is one setting
applied to every query of a set: (mean characters sent per query, mean recall). A method is
summed up by the **normalised area under its curve up to 12,000 characters**::

    area = (1 / 12,000) * integral from 0 to 12,000 of R(c) dc

where R(c) is the best mean recall the method reaches with at most c characters per query: the
highest recall among the curve's points that send no more than c (0 below the cheapest point).
It is a step function, so a setting that sends more for less recall changes nothing, adding a
setting never lowers the area, and no recall is credited between settings that nobody can pick.
1.0 would be full recall at no cost; sending nothing scores 0.
12,000 characters is 15 chunks of 800: the top of what one would hand an LLM as context.

Every point is computed from cached raw scores with the sweep's machinery
(:class:`~rse_core.evaluation.sweep.ValueBasis` and :func:`~rse_core.search.find_best_segments`), with the
same operations as :func:`~rse_core.pipeline.run_rse`, so a point at the default penalty equals
the evaluation at ``RSEParams()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.evaluation.metrics import chunk_pieces, score_sent
from rse_core.evaluation.scored_sets import ScoredCase, ScoredSet
from rse_core.evaluation.sweep import ValueBasis, default_axis
from rse_core.param_specs import PENALTY
from rse_core.params import RSEParams
from rse_core.scoring import Calibration
from rse_core.search import find_best_segments
from rse_core.topk import ranked_chunks, window
from rse_core.values import rank_by_score

MAX_CHARACTERS = 12_000
PENALTIES = default_axis(PENALTY.name)  # 0 to 0.5 in steps of 0.025
TOP_KS = tuple(range(1, 21))
METHOD_NAMES = {"rse": "RSE (penalty sweep)", "top_k": "top-k (k = 1-20)", "window": "fixed window (k = 1-20)"}

__all__ = [
    "MAX_CHARACTERS",
    "Curve",
    "CurvePoint",
    "Outcome",
    "PreparedCase",
    "area_under",
    "budget_curves",
    "curve_areas",
    "prepare",
    "rse_curve",
    "rse_outcome",
    "top_k_curve",
    "top_k_outcome",
    "window_curve",
    "window_outcome",
]


@dataclass(frozen=True)
class Outcome:
    """What one method sent for one query: recall of the gold span, characters, first-segment hit."""

    recall: float
    characters: int
    first_hit: bool


class PreparedCase:
    """One scored case with what every setting shares precomputed (values basis, ranking)."""

    def __init__(self, item: ScoredCase, params: RSEParams, calibration: Calibration) -> None:
        corpus = item.corpus
        self.corpus = corpus
        self.kind = item.case.kind
        self.gold = item.case.span
        self.gold_document = item.case.doc_id
        self.basis = ValueBasis.from_raw(item.raw, params, calibration, corpus.lengths, corpus.document_splits)
        self.ranking = ranked_chunks([rank_by_score(item.raw)])  # across documents, as run_rse's top-k
        self.lengths = corpus.lengths
        self.splits = corpus.document_splits

    def judge(self, chunk_runs: Sequence[tuple[int, int]]) -> Outcome:
        """Score runs of chunks ``[start, end)``, best first, against the gold span."""
        pieces = chunk_pieces(self.corpus, chunk_runs)
        score = score_sent(pieces, self.gold, self.gold_document)
        first_hit = bool(pieces) and pieces[0][0] == self.gold_document
        return Outcome(score.recall, score.characters, first_hit)


def prepare(scored: ScoredSet, params: RSEParams) -> list[PreparedCase]:
    """Every case of ``scored`` ready for fast evaluation at settings that share ``params``' beta."""
    return [PreparedCase(item, params, scored.calibration) for item in scored.cases]


def rse_outcome(case: PreparedCase, params: RSEParams) -> Outcome:
    """RSE's answer to one case at ``params`` (equal to ``run_rse``'s segments)."""
    values = case.basis.values(params.irrelevant_chunk_penalty, params.decay_rate)
    search = find_best_segments(
        [values],
        max_length=params.max_length,
        overall_max_length=params.overall_max_length,
        minimum_value=params.minimum_value,
        document_splits=case.splits,
    )
    return case.judge([(segment.start, segment.end) for segment in search])


def top_k_outcome(case: PreparedCase, k: int) -> Outcome:
    """The k best-ranked chunks (as separate pieces, best first)."""
    return case.judge([(index, index + 1) for index in case.ranking[:k]])


def window_outcome(case: PreparedCase, k: int, w: int) -> Outcome:
    """The fixed window: the k best hits each grown by ``w`` chunks, merged, sent best hit first."""
    segments = sorted(window(case.ranking, k, w, document_splits=case.splits), key=lambda s: s.best_rank)
    return case.judge([(segment.start, segment.end) for segment in segments])


@dataclass(frozen=True)
class CurvePoint:
    """One setting applied to every query: its mean characters per query and mean recall (and, over
    a knowledge base, the mean share of gold pages touched)."""

    setting: float
    characters: float
    recall: float
    page_hit: float | None = None


@dataclass(frozen=True)
class Curve:
    """A method's recall-vs-characters curve on one set (one kind, or "all")."""

    method: str
    kind: str
    parameter: str
    points: tuple[CurvePoint, ...]

    @property
    def area(self) -> float:
        return area_under([(p.characters, p.recall) for p in self.points])

    def recall_at(self, characters: float) -> float:
        """R(c): the best recall reachable with at most ``characters`` (see the module docstring)."""
        return self.best_within(characters)

    def best_within(self, characters: float, measure: str = "recall") -> float:
        """The best mean ``measure`` ("recall" or "page_hit") of a setting that sends at most
        ``characters`` a query on average (0 if none does)."""
        xs, ys = _steps([(p.characters, getattr(p, measure) or 0.0) for p in self.points])
        return float(ys[np.searchsorted(xs, characters, side="right") - 1])


def _steps(points: Iterable[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Breakpoints of R(c): (0, 0), then the points by characters with recall as a running maximum."""
    ordered = sorted((float(c), float(r)) for c, r in points if c >= 0)
    xs = np.array([0.0] + [c for c, _ in ordered])
    ys = np.maximum.accumulate(np.array([0.0] + [r for _, r in ordered]))
    return xs, ys


def area_under(points: Iterable[tuple[float, float]], limit: float = MAX_CHARACTERS) -> float:
    """Normalised area under R(c) from 0 to ``limit`` (formula in the module docstring).

    ``points`` are (characters, recall) pairs in any order; the step function's area is summed
    exactly, step by step.
    """
    xs, ys = _steps(points)
    inside = xs < limit
    edges = np.append(xs[inside], limit)
    return float(np.sum(np.diff(edges) * ys[inside]) / limit)


def _mean_point(setting: float, outcomes: Sequence[Outcome]) -> CurvePoint:
    return CurvePoint(
        setting,
        float(np.mean([o.characters for o in outcomes])) if outcomes else 0.0,
        float(np.mean([o.recall for o in outcomes])) if outcomes else 0.0,
    )


def rse_curve(
    cases: Sequence[PreparedCase], params: RSEParams, penalties: Sequence[float] = PENALTIES, kind: str = "all"
) -> Curve:
    """RSE at every penalty, the other parameters as in ``params``."""
    points = [
        _mean_point(penalty, [rse_outcome(c, params.with_changes(irrelevant_chunk_penalty=penalty)) for c in cases])
        for penalty in penalties
    ]
    return Curve("rse", kind, PENALTY.name, tuple(points))


def top_k_curve(cases: Sequence[PreparedCase], ks: Sequence[int] = TOP_KS, kind: str = "all") -> Curve:
    """Top-k at every k."""
    return Curve("top_k", kind, "k", tuple(_mean_point(k, [top_k_outcome(c, k) for c in cases]) for k in ks))


def window_curve(cases: Sequence[PreparedCase], w: int, ks: Sequence[int] = TOP_KS, kind: str = "all") -> Curve:
    """The fixed window (``w`` neighbours a side) at every k."""
    return Curve("window", kind, "k", tuple(_mean_point(k, [window_outcome(c, k, w) for c in cases]) for k in ks))


def budget_curves(scored: ScoredSet, params: RSEParams) -> dict[str, list[Curve]]:
    """Per kind (and "all"): the RSE, top-k and window curves of a scored set around ``params``.

    The penalty sweep always includes ``params``' own penalty, so the curve passes through the
    evaluation at ``params``.
    """
    prepared = prepare(scored, params)
    penalties = default_axis(PENALTY.name, params.irrelevant_chunk_penalty)
    kinds = list(dict.fromkeys(case.kind for case in prepared))
    curves: dict[str, list[Curve]] = {}
    for kind in [*kinds, "all"]:
        chosen = [case for case in prepared if kind in ("all", case.kind)]
        curves[kind] = [
            rse_curve(chosen, params, penalties, kind=kind),
            top_k_curve(chosen, kind=kind),
            window_curve(chosen, params.window, kind=kind),
        ]
    return curves


def curve_areas(curves: dict[str, list[Curve]]) -> list[dict[str, object]]:
    """One row per kind: each method's area up to 12,000 characters."""
    return [{"kind": kind, **{curve.method: curve.area for curve in group}} for kind, group in curves.items()]
