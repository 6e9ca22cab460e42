"""Auto-tune RSE over a knowledge base: the setting with the most evidence pages touched within a
character budget, tuned on half the questions and scored on the other half.

The halves are split by company (every filing of a company falls in one half), so a setting
cannot win by memorising a filing's layout. Each question's first stage is reused, and as in the
core's tuner (:mod:`rse_core.evaluation.tuning`) every minimum segment value is read off one
search at minimum 0 (with one query the greedy search stops at the first segment worth less than
the minimum, so each answer is a prefix of that one). Fewer documents selected is
tried by re-selecting from the same hits (the documents of the best ``n`` hits are a subset of
those of the best 10), so it needs no new search either.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

from rse_core.evaluation.kb_eval import KBCase, MethodScore, average, judge, segment_pieces, top_k_pieces
from rse_core.kb import KBQueryParams, KnowledgeBase
from rse_core.kb.query import plan_segments, select_documents
from rse_core.params import RSEParams

PENALTIES = (0.1, 0.2, 0.3, 0.4)
DECAY_RATES = (10.0, 30.0, 100.0)
MAX_LENGTHS = (5, 20)
MINIMUM_VALUES = (0.3, 0.5, 0.8)
DOCUMENTS_SELECTED = (2, 5, 10)

__all__ = ["KBTuneResult", "split_by_company", "tune_kb", "with_selection"]


def with_selection(case: KBCase, documents: int) -> KBCase:
    """The case with only the documents of each query's best ``documents`` hits selected."""
    first = case.first
    if documents >= first.kb_params.documents_selected:
        return case
    selected = tuple(select_documents(first.hits, documents))
    kb_params = dataclasses.replace(first.kb_params, documents_selected=documents)
    return dataclasses.replace(case, first=dataclasses.replace(first, selected=selected, kb_params=kb_params))


def split_by_company(cases: Sequence[KBCase], names: dict[str, str]) -> tuple[list[KBCase], list[KBCase]]:
    """Two halves of the cases, every company's questions in one (``names``: doc_id -> file name;
    the company is the name before its first ``_``), alternating companies in sorted order."""
    companies = sorted({names.get(case.doc_id, case.doc_id).split("_")[0] for case in cases})
    first_half = set(companies[::2])
    tune = [c for c in cases if names.get(c.doc_id, c.doc_id).split("_")[0] in first_half]
    held = [c for c in cases if names.get(c.doc_id, c.doc_id).split("_")[0] not in first_half]
    return tune, held


@dataclass(frozen=True)
class KBSetting:
    params: RSEParams
    documents_selected: int
    page_hit: float
    recall: float
    characters: float
    top_k_page_hit: float


@dataclass(frozen=True)
class KBTuneResult:
    budget: float
    tuned_on: int
    held_out: int
    best: KBSetting | None
    default_held: KBSetting
    best_held: KBSetting | None
    tried: int

    def report(self) -> str:
        lines = [
            f"Auto-tune over the base: {self.tried} settings, the most evidence pages touched with at most "
            f"{self.budget:,.0f} characters a question, tuned on {self.tuned_on} questions (half the documents "
            f"by name: a company's filings stay together) and scored on the other {self.held_out}:"
        ]
        for label, setting in (
            ("defaults, held-out half", self.default_held),
            ("tuned, tuning half", self.best),
            ("tuned, held-out half", self.best_held),
        ):
            if setting is None:
                lines.append(f"  {label}: no setting fits the budget")
                continue
            p = setting.params
            lines.append(
                f"  {label}: page hit {setting.page_hit:.2f} (top-k at its characters {setting.top_k_page_hit:.2f}), "
                f"recall {setting.recall:.2f}, {setting.characters:,.0f} chars/query  [penalty "
                f"{p.irrelevant_chunk_penalty:g}, decay {p.decay_rate:g}, max length {p.max_length}, minimum "
                f"{p.minimum_value:g}, documents {setting.documents_selected}]"
            )
        return "\n".join(lines)


def score_settings(
    kb: KnowledgeBase, cases: Sequence[KBCase], params: RSEParams, documents: int, minimums: Sequence[float]
) -> list[KBSetting]:
    """The cases scored at ``params`` with each of ``minimums``, from one segment search each."""
    scores: list[list[tuple[MethodScore, float]]] = [[] for _ in minimums]
    for case in cases:
        chosen = with_selection(case, documents)
        plan = plan_segments(kb, chosen.first, params.with_changes(minimum_value=0.0))
        pieces = segment_pieces(kb, plan)
        worth = [segment.score for segment in plan.segments]
        for number, minimum in enumerate(minimums):
            kept = pieces[: next((i for i, score in enumerate(worth) if score < minimum), len(worth))]
            score = judge(chosen, kept)
            scores[number].append((score, judge(chosen, top_k_pieces(chosen, budget=score.characters)).page_hit))
    return [
        KBSetting(
            params.with_changes(minimum_value=minimum),
            documents,
            average(s.page_hit for s, _ in rows),
            average(s.recall for s, _ in rows),
            average(s.characters for s, _ in rows),
            average(top_k for _, top_k in rows),
        )
        for minimum, rows in zip(minimums, scores, strict=True)
    ]


def tune_kb(
    kb: KnowledgeBase, cases: Sequence[KBCase], params: RSEParams, budget: float, swap_halves: bool = False
) -> KBTuneResult:
    """Grid search on one half (by company), the winner and the defaults scored on the other;
    ``swap_halves`` tunes on the other half (the second fold of a two-fold check)."""
    names = {doc_id: entry.name for doc_id, entry in kb.documents.items()}
    tune, held = split_by_company(cases, names)
    if swap_halves:
        tune, held = held, tune
    by_minimum = {
        (penalty, decay, max_length, documents): score_settings(
            kb,
            tune,
            params.with_changes(irrelevant_chunk_penalty=penalty, decay_rate=decay, max_length=max_length),
            documents,
            MINIMUM_VALUES,
        )
        for penalty, decay, max_length, documents in product(PENALTIES, DECAY_RATES, MAX_LENGTHS, DOCUMENTS_SELECTED)
    }
    best: KBSetting | None = None
    grid = list(product(PENALTIES, DECAY_RATES, MAX_LENGTHS, range(len(MINIMUM_VALUES)), DOCUMENTS_SELECTED))
    for penalty, decay, max_length, minimum, documents in grid:  # the grid's order decides ties
        scored = by_minimum[(penalty, decay, max_length, documents)][minimum]
        if scored.characters <= budget and (
            best is None or (scored.page_hit, -scored.characters) > (best.page_hit, -best.characters)
        ):
            best = scored
    default_documents = cases[0].first.kb_params.documents_selected if cases else KBQueryParams().documents_selected
    [default_held] = score_settings(kb, held, params, default_documents, [params.minimum_value])
    best_held = None
    if best is not None:
        [best_held] = score_settings(kb, held, best.params, best.documents_selected, [best.params.minimum_value])
    return KBTuneResult(budget, len(tune), len(held), best, default_held, best_held, len(grid))
