"""Retrieval over a knowledge base, judged on gold pages and gold characters.

Each question is searched once (the first stage: :func:`rse_core.kb.search_first_stage`); every
setting after that reuses it (:func:`rse_core.kb.query.plan_segments` needs no search and reads
no text), so a penalty sweep or a tuning grid costs milliseconds per question.

Three methods send pieces of filings, each judged the same way:

- **RSE**: its segments at the given parameters;
- **top-k at RSE's characters**: the first stage's hits, best first, while their characters fit
  in what RSE sent for that question (it stops at the first hit that would overflow);
- **the window at RSE's characters**: each hit grown by ``params.window`` chunks on both sides,
  in hit order, while the characters it adds fit.

Judged per question: **page hit** (the share of its evidence pages that a piece touches),
**text recall** (the share of its evidence excerpts' characters sent), **first piece in the
right filing**, and **characters** sent. Curves: RSE over the penalty, top-k and the window over k,
as mean (characters, text recall) points; their areas up to 12,000 characters as in
:mod:`rse_core.evaluation.curves`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from rse_core.evaluation.curves import PENALTIES, TOP_KS, Curve, CurvePoint
from rse_core.evaluation.metrics import merge_ranges
from rse_core.kb import FirstStageResult, KBQueryParams, KnowledgeBase, search_first_stage
from rse_core.kb.first_stage import ScoredHit
from rse_core.kb.query import SegmentPlan, plan_segments
from rse_core.param_specs import PENALTY
from rse_core.params import RSEParams
from rse_core.topk import top_k_within_budget, window, window_within_budget

METHODS = ("rse", "top_k", "window")
Piece = tuple[str, int, int]
"""(doc_id, start, end): characters of one filing sent, in the order sent."""

__all__ = [
    "GoldItem",
    "HitSpace",
    "KBCase",
    "KBEvaluation",
    "MethodScore",
    "average",
    "evaluate_kb",
    "kb_curves",
    "prepare_cases",
]


@dataclass(frozen=True)
class GoldItem:
    """One evidence item: its page's characters and its excerpt's, in one document."""

    doc_id: str
    page_start: int
    page_end: int
    start: int
    end: int


@dataclass(frozen=True)
class HitSpace:
    """Every chunk of the documents a question's first stage hit, numbered as one corpus, so the
    core's baselines (:mod:`rse_core.topk`) rank and grow the hits as they do for one document set.

    ``ranking`` holds the hits' numbers, best first; ``lengths`` and ``splits`` cover every chunk.
    """

    doc_ids: tuple[str, ...]
    offsets: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    ranking: tuple[int, ...]

    @classmethod
    def of(cls, kb: KnowledgeBase, hits: Sequence[ScoredHit]) -> HitSpace:
        doc_ids = tuple(dict.fromkeys(hit.doc_id for hit in hits))
        ends = [np.asarray(kb.chunk_ends(doc_id), dtype=np.int64) for doc_id in doc_ids]
        offsets = np.cumsum([0] + [len(e) for e in ends])
        position = {doc_id: int(offset) for doc_id, offset in zip(doc_ids, offsets, strict=False)}
        return cls(
            doc_ids,
            offsets,
            np.concatenate([np.concatenate(([0], e[:-1])) for e in ends]) if ends else np.zeros(0, np.int64),
            np.concatenate(ends) if ends else np.zeros(0, np.int64),
            tuple(position[hit.doc_id] + hit.chunk_index for hit in hits),
        )

    @property
    def lengths(self) -> np.ndarray:
        return self.ends - self.starts

    @property
    def splits(self) -> list[int]:
        return [int(offset) for offset in self.offsets[1:-1]]

    def pieces(self, runs: Iterable[tuple[int, int]]) -> list[Piece]:
        """The characters sent by runs ``[start, end)`` of this space (a run never crosses documents)."""
        located = []
        for start, end in runs:
            number = int(np.searchsorted(self.offsets, start, side="right")) - 1
            located.append((self.doc_ids[number], int(self.starts[start]), int(self.ends[end - 1])))
        return located


@dataclass(frozen=True)
class KBCase:
    """A question, its gold, the filing it is about, and its first stage (searched once), with
    the hits' documents laid out for the baselines."""

    id: str
    question: str
    kind: str
    doc_id: str
    gold: tuple[GoldItem, ...]
    first: FirstStageResult
    space: HitSpace | None = None


@dataclass(frozen=True)
class MethodScore:
    page_hit: float
    recall: float
    first_in_document: bool
    characters: int


BUDGETS = (4_000, 8_000, 16_000)
"""Characters a question for the equal-characters comparison of the methods."""
METHOD_LABELS = {"rse": "RSE (any penalty)", "top_k": "top-k (any k)", "window": "window (any k)"}
"""The methods as the equal-characters table names them (each over its own setting)."""


def budget_cell(row: dict[str, object], budget: int) -> str:
    """One cell of the equal-characters table: ``page hit / recall`` of an :meth:`KBEvaluation.at_budgets` row."""
    return f"{row[f'page_hit_{budget}']:.2f} / {row[f'recall_{budget}']:.2f}"


@dataclass(frozen=True)
class KBEvaluation:
    """Every case scored for every method at one setting."""

    params: RSEParams
    kb_params: KBQueryParams
    cases: tuple[KBCase, ...]
    scores: dict[str, tuple[MethodScore, ...]]
    curves: dict[str, list[Curve]] = field(default_factory=dict)

    def kinds(self) -> list[str]:
        return list(dict.fromkeys(case.kind for case in self.cases))

    def summary(self, kind: str = "all") -> dict[str, object]:
        chosen = [n for n, case in enumerate(self.cases) if kind in ("all", case.kind)]
        row: dict[str, object] = {"kind": kind, "questions": len(chosen)}
        for method in METHODS:
            scores = [self.scores[method][n] for n in chosen]
            row[f"{method}_page_hit"] = average(s.page_hit for s in scores)
            row[f"{method}_recall"] = average(s.recall for s in scores)
            row[f"{method}_first_in_document"] = average(float(s.first_in_document) for s in scores)
            row[f"{method}_characters"] = average(s.characters for s in scores)
        row["empty"] = sum(1 for n in chosen if not self.scores["rse"][n].characters)
        for curve in self.curves.get(kind, []):
            row[f"area_{curve.method}"] = curve.area
        return row

    def rows(self) -> list[dict[str, object]]:
        return [self.summary(kind) for kind in [*self.kinds(), "all"]]

    def at_budgets(self, budgets: Sequence[int] = BUDGETS, kind: str = "all") -> list[dict[str, object]]:
        """Each method at equal characters: per budget, its best page hit and recall among its
        settings (RSE's penalty, top-k's and the window's k) that send at most that many
        characters a question on average (0 where none does)."""
        return [
            {
                "method": curve.method,
                **{f"page_hit_{budget}": curve.best_within(budget, "page_hit") for budget in budgets},
                **{f"recall_{budget}": curve.best_within(budget) for budget in budgets},
            }
            for curve in self.curves.get(kind, [])
        ]

    def to_dict(self) -> dict[str, object]:
        """Parameters, the summary per type, every question's scores and the curves (``--json``)."""
        return {
            "params": self.params.to_dict(),
            "kb_params": asdict(self.kb_params),
            "summary": self.rows(),
            "questions": self.per_question(),
            "curves": {
                kind: [{"method": c.method, "area": c.area, "points": [asdict(p) for p in c.points]} for c in curves]
                for kind, curves in self.curves.items()
            },
        }

    def per_question(self) -> list[dict[str, object]]:
        rows = []
        for number, case in enumerate(self.cases):
            row: dict[str, object] = {"id": case.id, "kind": case.kind}
            for method in METHODS:
                score = self.scores[method][number]
                row.update(
                    {
                        f"{method}_page_hit": score.page_hit,
                        f"{method}_recall": score.recall,
                        f"{method}_first_in_document": score.first_in_document,
                        f"{method}_characters": score.characters,
                    }
                )
            rows.append(row)
        return rows


def average(values: Iterable[float]) -> float:
    """The mean, 0 for no values."""
    values = list(values)
    return float(np.mean(values)) if values else 0.0


def prepare_cases(
    kb: KnowledgeBase,
    items: Sequence[tuple[str, str, str, str, tuple[GoldItem, ...]]],
    kb_params: KBQueryParams,
    progress: Callable[[int, int], None] | None = None,
    within_own_document: bool = False,
) -> list[KBCase]:
    """Run the first stage for every (id, question, kind, doc_id, gold) item; with
    ``within_own_document``, within the item's own document only (FinanceBench's "single store":
    the filing a question is about is given, as a metadata filter would give it)."""
    cases = []
    for number, (case_id, question, kind, doc_id, gold) in enumerate(items):
        within = (doc_id,) if within_own_document else None
        first = search_first_stage(kb, question, kb_params, within=within)
        cases.append(KBCase(case_id, question, kind, doc_id, gold, first, HitSpace.of(kb, first.hits[0])))
        if progress:
            progress(number + 1, len(items))
    return cases


def judge(case: KBCase, pieces: Sequence[Piece]) -> MethodScore:
    """Page hit, text recall, first piece's filing and characters of what a method sent."""
    by_document: dict[str, list[tuple[int, int]]] = {}
    for doc_id, start, end in pieces:
        by_document.setdefault(doc_id, []).append((start, end))
    merged = {doc_id: merge_ranges(ranges) for doc_id, ranges in by_document.items()}
    characters = sum(end - start for ranges in merged.values() for start, end in ranges)

    def overlap(doc_id: str, start: int, end: int) -> int:
        return sum(max(0, min(end, b) - max(start, a)) for a, b in merged.get(doc_id, ()))

    pages = {(item.doc_id, item.page_start, item.page_end) for item in case.gold if item.page_end > item.page_start}
    page_hit = average(float(overlap(*page) > 0) for page in pages) if pages else 0.0
    spans: dict[str, list[tuple[int, int]]] = {}
    for item in case.gold:
        spans.setdefault(item.doc_id, []).append((item.start, item.end))
    gold_total = covered = 0
    for doc_id, ranges in spans.items():
        for start, end in merge_ranges(ranges):
            gold_total += end - start
            covered += overlap(doc_id, start, end)
    recall = covered / gold_total if gold_total else 0.0
    return MethodScore(page_hit, recall, bool(pieces) and pieces[0][0] == case.doc_id, characters)


def segment_pieces(kb: KnowledgeBase, plan: SegmentPlan) -> list[Piece]:
    """The characters a plan's segments send, in the order they were found."""
    return [
        (segment.doc_id, *kb.characters_of(segment.doc_id, segment.first_chunk, segment.last_chunk))
        for segment in plan.segments
    ]


def rse_pieces(kb: KnowledgeBase, case: KBCase, params: RSEParams) -> list[Piece]:
    return segment_pieces(kb, plan_segments(kb, case.first, params))


def top_k_pieces(case: KBCase, k: int | None = None, budget: int | None = None) -> list[Piece]:
    """The first ``k`` hits, or top-k within ``budget`` characters
    (:func:`~rse_core.topk.top_k_within_budget`), best first."""
    space = case.space
    if budget is not None:
        chosen = top_k_within_budget(space.ranking, space.lengths, budget)
    else:
        chosen = space.ranking[:k]
    return space.pieces((index, index + 1) for index in chosen)


def window_pieces(case: KBCase, w: int, k: int | None = None, budget: int | None = None) -> list[Piece]:
    """The fixed window (:func:`~rse_core.topk.window`) over the first ``k`` hits, or within
    ``budget`` characters (:func:`~rse_core.topk.window_within_budget`), best hit first."""
    space = case.space
    if budget is not None:
        segments = window_within_budget(space.ranking, space.lengths, budget, w, document_splits=space.splits)
    else:  # window() takes every chunk's rank; the chunks no hit reached come after the hits
        hit = set(space.ranking)
        ranking = [*space.ranking, *(index for index in range(len(space.ends)) if index not in hit)]
        segments = window(ranking, k, w, document_splits=space.splits)
    ordered = sorted(segments, key=lambda segment: segment.best_rank)
    return space.pieces((segment.start, segment.end) for segment in ordered)


def evaluate_kb(
    kb: KnowledgeBase, cases: Sequence[KBCase], params: RSEParams, kb_params: KBQueryParams, curves: bool = True
) -> KBEvaluation:
    """Every method on every case at ``params``; with ``curves``, the budget curves per kind too."""
    scores: dict[str, list[MethodScore]] = {method: [] for method in METHODS}
    for case in cases:
        rse = judge(case, rse_pieces(kb, case, params))
        scores["rse"].append(rse)
        scores["top_k"].append(judge(case, top_k_pieces(case, budget=rse.characters)))
        scores["window"].append(judge(case, window_pieces(case, params.window, budget=rse.characters)))
    evaluation = KBEvaluation(params, kb_params, tuple(cases), {m: tuple(s) for m, s in scores.items()})
    if curves:
        evaluation.curves.update(kb_curves(kb, cases, params))
    return evaluation


def kb_curves(
    kb: KnowledgeBase, cases: Sequence[KBCase], params: RSEParams, penalties: Sequence[float] = PENALTIES
) -> dict[str, list[Curve]]:
    """Per kind (and "all"): RSE over the penalty, top-k and the window over k (text recall and page hit)."""
    penalties = sorted({*penalties, params.irrelevant_chunk_penalty})
    outcomes: dict[str, dict[float, list[MethodScore]]] = {method: {} for method in METHODS}
    for case in cases:
        for penalty in penalties:
            pieces = rse_pieces(kb, case, params.with_changes(irrelevant_chunk_penalty=penalty))
            outcomes["rse"].setdefault(penalty, []).append(judge(case, pieces))
        for k in TOP_KS:
            outcomes["top_k"].setdefault(k, []).append(judge(case, top_k_pieces(case, k=k)))
            outcomes["window"].setdefault(k, []).append(judge(case, window_pieces(case, params.window, k=k)))
    kinds = list(dict.fromkeys(case.kind for case in cases))
    curves: dict[str, list[Curve]] = {}
    for kind in [*kinds, "all"]:
        chosen = [n for n, case in enumerate(cases) if kind in ("all", case.kind)]
        curves[kind] = [
            Curve(
                method,
                kind,
                PENALTY.name if method == "rse" else "k",
                tuple(
                    CurvePoint(
                        float(setting),
                        average(scores[n].characters for n in chosen),
                        average(scores[n].recall for n in chosen),
                        average(scores[n].page_hit for n in chosen),
                    )
                    for setting, scores in outcomes[method].items()
                ),
            )
            for method in METHODS
        ]
    return curves
