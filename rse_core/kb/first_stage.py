"""The first stage: the best chunks for one query, each with a calibrated score in [0, 1] on a
fixed scale (:mod:`rse_core.kb.calibration`), over the whole base or within chosen documents."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.kb.calibration import BM25_CALIBRATION, DENSE_CALIBRATION
from rse_core.kb.embedding import Embedder
from rse_core.kb.params import FirstStage
from rse_core.kb.store import ChunkStore, Hit


@dataclass(frozen=True)
class ScoredHit:
    """A hit: ``score`` is calibrated (what RSE's values start from); ``order`` is the
    uncalibrated score that breaks ties among chunks calibrated alike (e.g. all at 1)."""

    doc_id: str
    chunk_index: int
    score: float
    order: float


@dataclass(frozen=True)
class QueryProbe:
    """What a store is searched with for one query: its vector and/or its text."""

    stage: FirstStage
    vector: np.ndarray | None
    text: str | None
    fusion_weight: float

    @classmethod
    def make(cls, query: str, stage: FirstStage, embedder: Embedder | None, fusion_weight: float) -> QueryProbe:
        """Embed the query once (dense and hybrid); the probe then serves every search."""
        dense = stage in (FirstStage.DENSE, FirstStage.HYBRID)
        vector = embedder.embed_query(query) if dense and embedder is not None else None
        text = query if stage in (FirstStage.BM25, FirstStage.HYBRID) else None
        return cls(stage, vector, text, fusion_weight)


def scored_search(
    store: ChunkStore,
    probe: QueryProbe,
    limit: int,
    allowed: Collection[str],
    documents: Sequence[str] | None = None,
) -> list[ScoredHit]:
    """Best ``limit`` hits, best first, in ``documents`` (all when ``None``), keeping only the
    ``allowed`` (committed) documents' chunks.

    Hybrid asks each search for ``limit`` and fuses calibrated scores,
    ``w * dense + (1 - w) * bm25``, a chunk missing from one list counting 0 there: the fused
    score stays absolute, unlike reciprocal-rank fusion, whose scores depend on the other hits.
    """
    hits = store.search(vector=probe.vector, text=probe.text, limit=limit, documents=documents)
    scored = [_score(hit, probe.stage, probe.fusion_weight) for hit in hits if hit.doc_id in allowed]
    scored.sort(key=lambda hit: (-hit.score, -hit.order, hit.doc_id, hit.chunk_index))
    return scored[:limit]


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
