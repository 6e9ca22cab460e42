"""An evaluation set scored once, then evaluated at any parameters without rescoring.

Scoring is the slow step (a model over every chunk); everything after it takes milliseconds per
query. :func:`score_set` chunks every group of an :class:`~rse_core.evaluation.sets.EvalSet` and keeps
each case's raw scores; :func:`evaluate_scored` runs RSE and the top-k baselines on them with
:func:`~rse_core.pipeline.run_rse` and judges them with :func:`~rse_core.evaluation.metrics.query_evaluation`,
so its numbers are those of :func:`~rse_core.evaluation.runs.evaluate` for the same scores. The budget
curves (:mod:`rse_core.evaluation.curves`) and the auto-tuner (:mod:`rse_core.evaluation.tuning`) start from here too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.chunking import DEFAULT_CHUNK_HEADERS
from rse_core.evaluation.metrics import QueryEvaluation, query_evaluation, summarize
from rse_core.evaluation.sets import Case, EvalSet
from rse_core.params import RSEParams
from rse_core.pipeline import Corpus, build_corpus, normalize_queries, run_rse
from rse_core.scoring import Calibration, Scorer

ProgressFn = Callable[[float, str], None]

__all__ = ["ScoredCase", "ScoredSet", "SetEvaluation", "evaluate_scored", "score_set"]


@dataclass(frozen=True)
class ScoredCase:
    """A case, the corpus it is asked of, and the raw score of every chunk of that corpus."""

    case: Case
    corpus: Corpus
    raw: np.ndarray
    query: str  # the cleaned query that was scored


@dataclass(frozen=True)
class ScoredSet:
    """Every case of a set with its raw scores, for one scorer and chunk size."""

    name: str
    scorer: str
    calibration: Calibration
    chunk_size: int
    cases: tuple[ScoredCase, ...]

    def subset(self, kinds: Sequence[str] | None = None) -> ScoredSet:
        """The cases of the given kinds only (all when ``kinds`` is None)."""
        if kinds is None:
            return self
        chosen = tuple(case for case in self.cases if case.case.kind in kinds)
        return ScoredSet(self.name, self.scorer, self.calibration, self.chunk_size, chosen)


def score_set(
    eval_set: EvalSet,
    scorer: Scorer,
    chunk_size: int,
    progress: ProgressFn | None = None,
    score_fn: Callable[[Corpus, str], np.ndarray] | None = None,
    headers: bool = DEFAULT_CHUNK_HEADERS,
) -> ScoredSet:
    """Chunk every group at ``chunk_size`` and score each case's query against its group.

    ``headers``: chunks carry contextual headers for scoring (``RSEParams.chunk_headers``); the
    parameters the set is then evaluated at must say the same.

    ``score_fn(corpus, query)`` replaces ``scorer.score`` (the app passes its score cache);
    ``scorer`` still supplies the calibration and the name.
    """
    cases = []
    total = max(len(eval_set.cases), 1)
    for group in eval_set.groups:
        corpus = build_corpus(list(group.documents), chunk_size, headers=headers)
        for case in group.cases:
            if progress is not None:
                progress(len(cases) / total, f"{eval_set.name}: query {case.id}")
            queries, _ = normalize_queries(case.query)
            raw = score_fn(corpus, queries[0]) if score_fn else scorer.score(queries[0], corpus.chunks)
            cases.append(ScoredCase(case, corpus, np.asarray(raw, dtype=np.float64), queries[0]))
    return ScoredSet(eval_set.name, scorer.name, scorer.calibration, chunk_size, tuple(cases))


@dataclass(frozen=True)
class SetEvaluation:
    """Per-query results of a scored set at one parameter setting.

    ``first_hit[i]`` says whether query ``i``'s first (best) RSE segment lies in the document
    that holds its gold span: the document hit rate, which matters when a set searches many
    documents at once (FinanceBench).
    """

    name: str
    scorer: str
    params: RSEParams
    queries: tuple[QueryEvaluation, ...]
    first_hit: tuple[bool, ...]

    def summary(self) -> list[dict[str, object]]:
        """:func:`~rse_core.evaluation.metrics.summarize` rows, plus ``first_hit`` (rate) on the RSE rows."""
        rows = summarize(self.queries)
        for row in rows:
            chosen = [
                hit for q, hit in zip(self.queries, self.first_hit, strict=True) if row["kind"] in ("all", q.kind)
            ]
            row["first_hit"] = sum(chosen) / len(chosen) if chosen and row["method"] == "rse" else None
        return rows

    def margins(self) -> dict[str, float]:
        """RSE's recall minus top-k's at RSE's characters, per query kind (the issue's target)."""
        rows = {(row["kind"], row["method"]): row for row in self.summary()}
        kinds = [kind for kind, method in rows if method == "rse" and kind != "all"]
        return {kind: rows[(kind, "rse")]["recall"] - rows[(kind, "top_k_equal_budget")]["recall"] for kind in kinds}

    def overall(self, method: str = "rse") -> dict[str, object]:
        """The "all" summary row of one method."""
        return next(row for row in self.summary() if row["kind"] == "all" and row["method"] == method)


def evaluate_scored(scored: ScoredSet, params: RSEParams) -> SetEvaluation:
    """RSE and the baselines (top-k, window, each also at RSE's budget) on every case, at ``params``."""
    evaluations, hits = [], []
    for item in scored.cases:
        result = run_rse(item.corpus, (item.query,), [item.raw], params, scored.calibration, scorer=scored.scorer)
        case = item.case
        evaluations.append(
            query_evaluation(result, id=case.id, query=case.query, kind=case.kind, gold=case.span, doc_id=case.doc_id)
        )
        hits.append(bool(result.segments) and result.segments[0].doc_id == case.doc_id)
    return SetEvaluation(scored.name, scored.scorer, params, tuple(evaluations), tuple(hits))
