"""The first stage: the best chunks for one query, each with a calibrated score in [0, 1] on one
scale for the whole base (:mod:`rse_core.kb.calibration`: anchored on the query's best hit in
the base), over the whole base or within chosen documents."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from rse_core.embedders import Embedder
from rse_core.kb.calibration import BM25_CALIBRATION, BUILTIN_DENSE, DenseCalibration
from rse_core.kb.params import FirstStage
from rse_core.kb.store import ChunkStore, Hit
from rse_core.scoring import Calibration


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


def hit_rank(hit: ScoredHit) -> tuple[float, float, str, int]:
    """The order of hits, best first: calibrated score, then raw score, then place (every ranking ties alike)."""
    return (-hit.score, -hit.order, hit.doc_id, hit.chunk_index)


def scored_search(
    store: ChunkStore,
    probe: QueryProbe,
    limit: int,
    allowed: Collection[str],
    documents: Sequence[str] | None = None,
    anchor: float | None = None,
    dense_constants: DenseCalibration = BUILTIN_DENSE,
) -> tuple[list[ScoredHit], float | None]:
    """Best ``limit`` hits, best first, in ``documents`` (all when ``None``), keeping only the
    ``allowed`` (committed) documents' chunks; and the anchor they were scored with.

    ``anchor`` is the query's best cosine in the whole base, which the dense map is anchored on
    (:func:`~rse_core.kb.calibration.dense_calibration`); ``None`` takes the best of these hits,
    right for a search of the whole base, whose anchor a later search within documents is given
    so both score alike. It stays ``None`` when no hit has a cosine (BM25). ``dense_constants``
    are the map's (the built-in ones, or a base's fit: :func:`~rse_core.kb.calibration.choose_calibration`).

    Hybrid asks each search for ``limit`` and fuses calibrated scores,
    ``w * dense + (1 - w) * bm25``, a chunk missing from one list counting 0 there: unlike
    reciprocal-rank fusion, a chunk's fused score does not depend on the ranks of the others.
    """
    found = store.search(vector=probe.vector, text=probe.text, limit=limit, documents=documents)
    hits = [hit for hit in found if hit.doc_id in allowed]
    if anchor is None:
        similarities = [hit.similarity for hit in hits if hit.similarity is not None]
        anchor = max(similarities) if similarities else None
    dense = dense_constants.map(anchor) if anchor is not None else None
    scored = [_score(hit, probe.stage, probe.fusion_weight, dense) for hit in hits]
    scored.sort(key=hit_rank)
    return scored[:limit], anchor


def _score(hit: Hit, stage: FirstStage, weight: float, dense_map: Calibration | None) -> ScoredHit:
    dense = _calibrated(dense_map, hit.similarity)
    lexical = _calibrated(BM25_CALIBRATION, hit.bm25)
    if stage is FirstStage.DENSE:
        score, order = dense, hit.similarity or 0.0
    elif stage is FirstStage.BM25:
        score, order = lexical, hit.bm25 or 0.0
    else:
        score = weight * dense + (1.0 - weight) * lexical
        order = score
    return ScoredHit(hit.doc_id, hit.chunk_index, score, order)


def _calibrated(calibration: Calibration | None, raw: float | None) -> float:
    return 0.0 if raw is None or calibration is None else float(calibration(np.array([raw]))[0])
