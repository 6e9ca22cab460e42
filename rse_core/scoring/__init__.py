"""Scorers, chosen by name with :func:`get_scorer`.

Backends are imported lazily, so importing ``rse_core`` never loads torch or the Cohere client.
"""

from __future__ import annotations

from rse_core.errors import ScorerError
from rse_core.scoring.base import (
    Calibration,
    CalibrationKind,
    ProgressCallback,
    Scorer,
    ScorerName,
    check_scores,
    clean_query,
)

NAMED_SCORERS: tuple[str, ...] = tuple(name.value for name in ScorerName if name is not ScorerName.EMBEDDER)
"""The scorers a name alone builds (``--scorer`` choices): the embedder scorer needs an embedder object."""


def get_scorer(name: str | ScorerName = ScorerName.MINILM, **options: object) -> Scorer:
    """Create a scorer by name; ``options`` go to its constructor (see each class).

    - ``minilm``: :class:`~rse_core.scoring.minilm.MiniLMScorer` (offline, default)
    - ``bm25``: :class:`~rse_core.scoring.bm25.BM25Scorer`
    - ``cohere``: :class:`~rse_core.scoring.cohere_rerank.CohereScorer`
    - ``cross-encoder``: :class:`~rse_core.scoring.cross_encoder.CrossEncoderScorer`
    - ``hybrid``: :class:`~rse_core.scoring.hybrid.HybridScorer` (minilm + bm25, offline)
    - ``embedder``: :class:`~rse_core.scoring.embedder_scorer.EmbedderScorer` over any
      :class:`~rse_core.embedders.Embedder` (``embedder=embedder_from_name("mpnet")``); the names are
      resolved by ``rse_core.embedders``, a layer above this one, so the embedder is passed in
    """
    scorer_name = ScorerName.parse(name)
    if scorer_name is ScorerName.MINILM:
        from rse_core.scoring.minilm import MiniLMScorer as factory
    elif scorer_name is ScorerName.BM25:
        from rse_core.scoring.bm25 import BM25Scorer as factory
    elif scorer_name is ScorerName.HYBRID:
        from rse_core.scoring.hybrid import HybridScorer as factory
    elif scorer_name is ScorerName.EMBEDDER:
        from rse_core.scoring.embedder_scorer import EmbedderScorer as factory
    elif scorer_name is ScorerName.COHERE:
        from rse_core.scoring.cohere_rerank import CohereScorer as factory
    else:
        from rse_core.scoring.cross_encoder import CrossEncoderScorer as factory
    try:
        return factory(**options)
    except TypeError as error:
        raise ScorerError(f"Bad option for scorer {scorer_name.value!r}: {error}.") from error


__all__ = [
    "NAMED_SCORERS",
    "Calibration",
    "CalibrationKind",
    "ProgressCallback",
    "Scorer",
    "ScorerName",
    "check_scores",
    "clean_query",
    "get_scorer",
]
