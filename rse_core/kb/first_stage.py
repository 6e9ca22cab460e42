"""The first stage: the best ``top_n`` chunks of the whole base for one query, each with a
calibrated score in [0, 1] on a fixed scale (:mod:`rse_core.kb.calibration`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from rse_core.kb.calibration import BM25_CALIBRATION, DENSE_CALIBRATION
from rse_core.kb.embedding import Embedder
from rse_core.kb.params import FirstStage, KBQueryParams
from rse_core.kb.store import ChunkStore, Hit


@dataclass(frozen=True)
class ScoredHit:
    """A first-stage hit: ``score`` is calibrated (what RSE's values start from); ``order`` is
    the uncalibrated score that breaks ties among chunks calibrated alike (e.g. all at 1)."""

    doc_id: str
    chunk_index: int
    score: float
    order: float


def first_stage(
    store: ChunkStore,
    embedder: Embedder | None,
    query: str,
    params: KBQueryParams,
    documents: Collection[str],
) -> list[ScoredHit]:
    """Best ``params.top_n`` hits in ``documents`` (the committed ones), best first.

    Hybrid asks each search for ``top_n`` and fuses calibrated scores,
    ``w * dense + (1 - w) * bm25``, a chunk missing from one list counting 0 there: the fused
    score stays absolute, unlike reciprocal-rank fusion, whose scores depend on the other hits.
    """
    stage = params.first_stage
    vector = embedder.embed_query(query) if stage in (FirstStage.DENSE, FirstStage.HYBRID) else None
    text = query if stage in (FirstStage.BM25, FirstStage.HYBRID) else None
    hits = [hit for hit in store.search(vector=vector, text=text, limit=params.top_n) if hit.doc_id in documents]
    scored = [_score(hit, stage, params.fusion_weight) for hit in hits]
    scored.sort(key=lambda hit: (-hit.score, -hit.order, hit.doc_id, hit.chunk_index))
    return scored[: params.top_n]


def _score(hit: Hit, stage: FirstStage, weight: float) -> ScoredHit:
    dense = _calibrated(DENSE_CALIBRATION, hit.similarity)
    lexical = _calibrated(BM25_CALIBRATION, hit.bm25)
    if stage is FirstStage.DENSE:
        score, order = dense, hit.similarity or 0.0
    elif stage is FirstStage.BM25:
        score, order = lexical, hit.bm25 or 0.0
    else:
        score = weight * dense + (1.0 - weight) * lexical
        order = score
    return ScoredHit(hit.doc_id, hit.chunk_index, score, order)


def _calibrated(calibration, raw: float | None) -> float:
    return 0.0 if raw is None else float(calibration(np.array([raw]))[0])
