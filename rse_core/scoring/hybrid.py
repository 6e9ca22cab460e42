"""Hybrid scorer: MiniLM embeddings and BM25 word statistics, both offline, fused per document.

Why two: a bi-encoder finds paraphrases but misses exact names, numbers and rare terms; BM25
finds those and misses paraphrases. Neither won on every golden set (``docs/evaluation.md``), so the
hybrid scores a chunk by both and fuses them. Each is calibrated first, within each document
(minilm: its percentile calibration; bm25: divided by the document's best score), so the
two live on one [0, 1] scale and a document's scores never depend on the other documents loaded.

Fusions (:class:`Fusion`), for calibrated dense ``d`` and lexical ``l`` scores of one document:

- ``max``: ``max(d, l)``: a chunk counts if either scorer is sure of it;
- ``mean``: ``w * d + (1 - w) * l`` (``w`` = ``weight``);
- ``rrf``: reciprocal rank fusion ``1 / (k + rank_d) + 1 / (k + rank_l)``, k = 60, then the
  document's 75th percentile -> 0 and best -> 1, since RRF sums have no fixed scale.

The default, ``mean`` with w = 0.7, recalls most among the fusions that stay within the
character budget on the samples, the external set and FinanceBench (``python bench/hybrid_fusion.py``;
the table is in ``docs/evaluation.md``). minilm alone still meets more targets, so it stays the
default scorer.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from itertools import groupby
from pathlib import Path

import numpy as np

from rse_core.chunking import Chunk
from rse_core.errors import ScorerError
from rse_core.scoring.base import Calibration, CalibrationKind, ProgressCallback, ScorerName, check_scores, clean_query
from rse_core.scoring.bm25 import BM25_CALIBRATION, BM25Scorer
from rse_core.scoring.minilm import MINILM_CALIBRATION, MODEL_NAME, BatchEncoder, MiniLMScorer
from rse_core.validation import parse_choice

RRF_K = 60
"""The reciprocal-rank constant of Cormack et al. (2009), used as is."""
RRF_QUANTILE = 0.75
"""RRF sums have no fixed scale: the document's 75th percentile maps to 0, its best chunk to 1."""


class Fusion(StrEnum):
    MAX = "max"
    MEAN = "mean"
    RRF = "rrf"

    @classmethod
    def parse(cls, name: str | Fusion) -> Fusion:
        return parse_choice(cls, name, "fusion", ScorerError)


DEFAULT_FUSION = Fusion.MEAN
DEFAULT_WEIGHT = 0.7
DEFAULT_QUANTILE: float | None = None

FUSION_NOTE = (
    "Mean with w = 0.7 chosen by measurement on the samples, the external golden set and FinanceBench (numbers in the "
    "docs/evaluation.md)."
)


def fuse(
    dense: np.ndarray,
    lexical: np.ndarray,
    fusion: str | Fusion = DEFAULT_FUSION,
    weight: float = DEFAULT_WEIGHT,
    quantile: float | None = DEFAULT_QUANTILE,
) -> np.ndarray:
    """Fuse one document's calibrated dense and lexical scores (both in [0, 1]) into one in [0, 1].

    With ``quantile``, the fused scores are then re-spread within the document: that quantile
    maps to 0 and the best score to 1 (``rrf`` always is, at 0.75 unless given). ``dense`` and
    ``lexical`` must therefore belong to one document.
    """
    dense, lexical = np.asarray(dense, dtype=np.float64), np.asarray(lexical, dtype=np.float64)
    fusion = Fusion.parse(fusion)
    if fusion is Fusion.MAX:
        fused = np.maximum(dense, lexical)
    elif fusion is Fusion.MEAN:
        fused = weight * dense + (1.0 - weight) * lexical
    else:
        fused = sum(1.0 / (RRF_K + 1 + rank) for rank in (_ranks(dense), _ranks(lexical)))
        quantile = RRF_QUANTILE if quantile is None else quantile
    if quantile is None:
        return fused
    return Calibration(CalibrationKind.QUANTILE, low=quantile, high=0.0)(fused)


def _ranks(scores: np.ndarray) -> np.ndarray:
    """0 for the best score; tied scores share their best rank (a zero BM25 score says nothing)."""
    order = np.sort(scores)[::-1]
    return np.searchsorted(-order, -scores, side="left").astype(np.float64)


class HybridScorer:
    """MiniLM cosine and BM25, calibrated per document and fused into one score in [0, 1].

    Args:
        fusion: ``max``, ``mean`` or ``rrf`` (see the module docstring).
        weight: the dense share in ``mean``.
        cache_dir, disk_cache, batch_size, model_path, bundled_embeddings, batch_encoder: as for
            :class:`~rse_core.scoring.minilm.MiniLMScorer` (the embeddings are shared with it).
    """

    name = ScorerName.HYBRID

    def __init__(
        self,
        fusion: str | Fusion = DEFAULT_FUSION,
        weight: float = DEFAULT_WEIGHT,
        cache_dir: Path | str | None = None,
        disk_cache: bool = True,
        batch_size: int = 32,
        model_path: str | Path | None = None,
        bundled_embeddings: tuple[Path | str, ...] = (),
        batch_encoder: BatchEncoder | None = None,
    ) -> None:
        self.fusion = Fusion.parse(fusion)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 1:
            raise ScorerError(f"The hybrid weight must be between 0 and 1; got {weight!r}.")
        self.weight = float(weight)
        self.dense = MiniLMScorer(
            cache_dir=cache_dir,
            disk_cache=disk_cache,
            batch_size=batch_size,
            model_path=model_path,
            bundled_embeddings=bundled_embeddings,
            batch_encoder=batch_encoder,
        )
        self.lexical = BM25Scorer()
        mix = f"{self.fusion.value} w={self.weight:g}" if self.fusion is Fusion.MEAN else self.fusion.value
        self.model = f"{MODEL_NAME if model_path is None else model_path} + bm25s ({mix})"
        self.calibration = Calibration(
            CalibrationKind.IDENTITY,
            note=(
                f"Already in [0, 1]: minilm ({MINILM_CALIBRATION.describe().split('.')[0]}) and bm25 "
                f"({BM25_CALIBRATION.describe().split('.')[0]}), each within its document, fused by {mix}. "
                + FUSION_NOTE
            ),
        )

    def components(
        self, query: str, chunks: Sequence[Chunk], progress: ProgressCallback | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The raw minilm and bm25 scores (what :meth:`score` fuses), for measurement and display."""
        query, _ = clean_query(query)
        return self.dense.score(query, chunks, progress), self.lexical.score(query, chunks)

    def score(self, query: str, chunks: Sequence[Chunk], progress: ProgressCallback | None = None) -> np.ndarray:
        dense, lexical = self.components(query, chunks, progress)
        return check_scores(fuse_per_document(dense, lexical, chunks, self.fusion, self.weight), len(chunks), self.name)


def fuse_per_document(
    dense_raw: np.ndarray,
    lexical_raw: np.ndarray,
    chunks: Sequence[Chunk],
    fusion: str | Fusion = DEFAULT_FUSION,
    weight: float = DEFAULT_WEIGHT,
    quantile: float | None = DEFAULT_QUANTILE,
) -> np.ndarray:
    """Calibrate raw minilm and bm25 scores within each document of ``chunks`` and fuse them."""
    parts, start = [], 0
    for _, group in groupby(chunks, key=lambda chunk: chunk.doc_id):
        end = start + len(list(group))
        dense = MINILM_CALIBRATION(dense_raw[start:end])
        lexical = BM25_CALIBRATION(lexical_raw[start:end])
        parts.append(fuse(dense, lexical, fusion, weight, quantile))
        start = end
    return np.concatenate(parts) if parts else np.zeros(0)
