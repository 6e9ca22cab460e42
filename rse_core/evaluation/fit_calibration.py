"""Fit a knowledge base's dense calibration (:mod:`rse_core.kb.calibration`) on golden queries.

The built-in constants (spread 0.2, ceiling 0.45) were read off MiniLM's cosines; another
embedder spreads its cosines otherwise. The fit searches every golden query once (dense first
stage, the default settings), then re-values the same hits for each ``(spread, ceiling)`` of a grid
from their raw cosine (:attr:`~rse_core.kb.first_stage.ScoredHit.order`): the hits a dense search
returns, and the documents it selects, do not depend on the map (it is monotone in the cosine),
so only the values and the segments change.

The objective is ``mean gold recall - cost * mean characters / 1000`` at ``RSEParams()``
(:data:`DEFAULT_COST` = 0.02: 1,000 more characters a query must recall 2 more points of the
gold). Recall alone would pick the widest spread, which values whole documents as relevant and
sends them.

It lives in the evaluation layer: it needs the golden sets and the judge, which the kb layer may not import.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from rse_core.errors import RSEError
from rse_core.evaluation.golden import GoldenSet, load_golden_set
from rse_core.evaluation.golden_kb import SET_NAMES, CaseItem, case_items
from rse_core.evaluation.kb_eval import KBCase, average, judge, prepare_cases, rse_pieces
from rse_core.evaluation.sets import golden_sets
from rse_core.kb import KBQueryParams, KnowledgeBase
from rse_core.kb.build import content_id
from rse_core.kb.calibration import BUILTIN_DENSE, CalibrationFit, DenseCalibration
from rse_core.kb.first_stage import ScoredHit, hit_rank
from rse_core.kb.params import FirstStage
from rse_core.kb.query import FirstStageResult, select_documents
from rse_core.params import RSEParams

DEFAULT_COST = 0.02
"""Recall a query's 1,000 more characters must buy (the objective's price of context)."""
SPREADS = tuple(round(0.05 + 0.025 * step, 3) for step in range(15))
"""0.05 .. 0.40."""
CEILINGS = (0.0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7)
"""0 turns the ceiling off (every query's best hit maps to 1)."""


@dataclass(frozen=True)
class GridRow:
    """One ``(spread, ceiling)`` judged on the golden queries."""

    spread: float
    ceiling: float
    recall: float
    characters: float
    objective: float


@dataclass(frozen=True)
class FitReport:
    """The fit, the grid it was chosen from (best first) and the built-in constants' row."""

    fit: CalibrationFit
    rows: tuple[GridRow, ...]
    builtin: GridRow


def objective_text(cost: float) -> str:
    return f"mean gold recall - {cost:g} x mean characters/1000 at RSEParams()"


def golden_for_base(
    kb: KnowledgeBase, sources: Sequence[str]
) -> tuple[list[CaseItem], tuple[str, ...], tuple[str, ...]]:
    """The golden queries whose documents are in ``kb``, from named sets (``samples-kb``,
    ``external-kb``) or golden JSON files; the names of the sets used, and of those skipped.

    Raises:
        RSEError: no golden query's document is in the base (or a set cannot be read).
    """
    items: list[CaseItem] = []
    used: list[str] = []
    skipped: list[str] = []
    for source in sources:
        sets = golden_sets(SET_NAMES[source]) if source in SET_NAMES else [load_golden_set(Path(source))]
        name = source if source in SET_NAMES else Path(source).name
        present = [golden for golden in sets if _in_base(kb, golden)]
        skipped += [f"{name}: {golden.document_name}" for golden in sets if golden not in present]
        if present:
            items += case_items(kb, present)
            used.append(name)
    if not items:
        raise RSEError(
            f"No golden query's document is in the base at {kb.path} ({', '.join(sources)}); "
            "build the base with those documents first."
        )
    return items, tuple(used), tuple(skipped)


def _in_base(kb: KnowledgeBase, golden: GoldenSet) -> bool:
    try:
        return content_id(golden.document_path) in kb.documents
    except (OSError, RSEError):
        return False


def revalued(first: FirstStageResult, dense: DenseCalibration) -> FirstStageResult:
    """A dense first stage's hits scored by ``dense`` from their raw cosine, each query anchored
    on its best base-wide hit as :func:`~rse_core.kb.first_stage.scored_search` does."""

    def rescore(hits: tuple[ScoredHit, ...], anchor: float) -> tuple[ScoredHit, ...]:
        scores = dense.map(anchor)(np.array([hit.order for hit in hits])) if hits else ()
        rescored = [dataclasses.replace(hit, score=float(s)) for hit, s in zip(hits, scores, strict=True)]
        rescored.sort(key=hit_rank)
        return tuple(rescored)

    anchors = [max((hit.order for hit in query_hits), default=0.0) for query_hits in first.hits]
    hits = tuple(rescore(query_hits, anchor) for query_hits, anchor in zip(first.hits, anchors, strict=True))
    valued = tuple(rescore(query_hits, anchor) for query_hits, anchor in zip(first.valued, anchors, strict=True))
    selected = tuple(select_documents(hits, first.kb_params.documents_selected))
    return dataclasses.replace(first, hits=hits, valued=valued, selected=selected)


def judge_grid(
    kb: KnowledgeBase,
    cases: Sequence[KBCase],
    params: RSEParams,
    cost: float,
    grid: Sequence[DenseCalibration],
) -> list[GridRow]:
    """Every calibration of ``grid`` on the same searched cases (no new search)."""
    rows = []
    for dense in grid:
        scores = [
            judge(case, rse_pieces(kb, dataclasses.replace(case, first=revalued(case.first, dense)), params))
            for case in cases
        ]
        recall = average(score.recall for score in scores)
        characters = average(score.characters for score in scores)
        rows.append(GridRow(dense.spread, dense.ceiling, recall, characters, recall - cost * characters / 1000))
    return rows


def fit_dense_calibration(
    kb: KnowledgeBase,
    items: Sequence[CaseItem],
    golden: Sequence[str],
    cost: float = DEFAULT_COST,
    spreads: Sequence[float] = SPREADS,
    ceilings: Sequence[float] = CEILINGS,
) -> FitReport:
    """Search every item once (dense), judge the grid, and return the best calibration as a
    record for the base's embedder (not yet stored: :func:`rse_core.kb.calibration.write_fit`).
    Ties go to the constants nearest the built-in ones."""
    params = RSEParams().with_changes(chunk_size=kb.catalog.chunk_size, chunk_headers=kb.catalog.headers)
    kb_params = KBQueryParams(first_stage=FirstStage.DENSE)
    cases = prepare_cases(kb, items, kb_params)
    grid = [DenseCalibration(spread, ceiling) for spread in spreads for ceiling in ceilings]
    if BUILTIN_DENSE not in grid:
        grid.append(BUILTIN_DENSE)
    rows = judge_grid(kb, cases, params, cost, grid)
    builtin = rows[grid.index(BUILTIN_DENSE)]

    def distance(row: GridRow) -> float:
        return abs(row.spread - BUILTIN_DENSE.spread) + abs(row.ceiling - BUILTIN_DENSE.ceiling)

    ranked = sorted(rows, key=lambda row: (-round(row.objective, 9), distance(row)))
    best = ranked[0]
    fit = CalibrationFit(
        spread=best.spread,
        ceiling=best.ceiling,
        embedder=kb.catalog.embedder,
        golden=tuple(golden),
        queries=len(cases),
        objective=objective_text(cost),
        value=round(best.objective, 6),
        builtin_value=round(builtin.objective, 6),
        fitted_at=datetime.now(UTC).replace(microsecond=0).isoformat(),
    )
    return FitReport(fit, tuple(ranked), builtin)
