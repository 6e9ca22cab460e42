"""A scorer over any embedder: the cosine of the query's vector with each chunk's.

What lets Explore score a document with the model a knowledge base is built with (``mpnet``, an
OpenAI-compatible or Cohere endpoint) rather than only the bundled MiniLM. A bi-encoder's cosine
drifts from query to query whatever the model, so its scores are calibrated per document as
MiniLM's are (:data:`~rse_core.scoring.minilm.MINILM_CALIBRATION`, one object for both).

The embedder is passed in (any object with ``identity``, ``embed_documents`` and ``embed_query``,
the :class:`rse_core.embedders.Embedder` protocol): names are resolved by ``rse_core.embedders``,
which sits above scoring and may not be imported from here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import groupby
from pathlib import Path
from typing import Protocol

import numpy as np

from rse_core.chunking import Chunk, scoring_text
from rse_core.errors import ScorerError
from rse_core.scoring.base import ProgressCallback, ScorerName, check_scores, clean_query
from rse_core.scoring.embedding_cache import EmbeddingCache, default_cache_dir, embedding_key
from rse_core.scoring.minilm import MINILM_CALIBRATION


class _Identity(Protocol):
    name: str
    normalised: bool

    def to_dict(self) -> dict[str, object]: ...


class Embedder(Protocol):
    """The part of :class:`rse_core.embedders.Embedder` this scorer uses (that package sits above
    scoring, so its protocol cannot be imported here)."""

    @property
    def identity(self) -> _Identity: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class EmbedderScorer:
    """Embeds each document's chunks once (cached by the embedder's identity and the chunk texts)
    and scores them by cosine similarity with the query.

    Args:
        embedder: what makes the vectors (:class:`rse_core.embedders.Embedder`).
        cache_dir: folder for the on-disk cache (default ``$RSE_CACHE_DIR``); used only with ``disk_cache``.
        disk_cache: whether document vectors are written to disk. Off by default: an endpoint's
            vectors are the operator's to keep, and an app session keeps its own (:meth:`with_own_cache`).
        memory_entries: documents (one chunking each) kept in memory.

    Raises:
        ScorerError: ``embedder`` is not an embedder.
    """

    name = ScorerName.EMBEDDER
    calibration = MINILM_CALIBRATION

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        cache_dir: Path | str | None = None,
        disk_cache: bool = False,
        memory_entries: int = 64,
    ) -> None:
        if not all(hasattr(embedder, part) for part in ("identity", "embed_documents", "embed_query")):
            raise ScorerError(
                "The embedder scorer needs an embedder: get_scorer('embedder', embedder=embedder_from_name('mpnet'))."
            )
        self.embedder = embedder
        identity = embedder.identity
        self.model = identity.name
        self._normalised = bool(identity.normalised)
        self._key_prefix = identity_key(identity)
        directory = (cache_dir or default_cache_dir()) if disk_cache else None
        self.cache = EmbeddingCache(directory, memory_entries=memory_entries)
        self._query_cache: dict[str, np.ndarray] = {}

    def with_own_cache(self, *, disk_cache: bool = False, memory_entries: int = 16) -> EmbedderScorer:
        """The same embedder (a loaded model is shared) with a cache of its own, for one app
        session's uploads (as ``MiniLMScorer.with_own_cache``), under the same name (the app may
        have labelled it, e.g. two entries of one model at two endpoints)."""
        own = EmbedderScorer(self.embedder, disk_cache=disk_cache, memory_entries=memory_entries)
        own.model = self.model
        return own

    def score(self, query: str, chunks: Sequence[Chunk], progress: ProgressCallback | None = None) -> np.ndarray:
        query, _ = clean_query(query)
        if not chunks:
            return np.zeros(0)
        vectors = self.embed_chunks(chunks, progress)
        query_vector = self._embed_query(query)
        if progress is not None:
            progress(1.0, f"Scoring {len(chunks)} chunks")
        scores = vectors @ query_vector
        if not self._normalised:
            norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(query_vector)
            scores = np.divide(scores, norms, out=np.zeros_like(scores), where=norms > 0)
        return check_scores(scores, len(chunks), f"{self.name} {self.model}")

    def embed_chunks(self, chunks: Sequence[Chunk], progress: ProgressCallback | None = None) -> np.ndarray:
        """One row per chunk; each document's rows computed once per embedder and chunking."""
        parts = []
        groups = [[scoring_text(chunk) for chunk in group] for _, group in groupby(chunks, key=lambda c: c.doc_id)]
        for number, texts in enumerate(groups):
            key = embedding_key(self._key_prefix, texts)
            rows = self.cache.get(key, len(texts))
            if rows is None:
                if progress is not None:
                    progress(number / len(groups), f"Embedding {len(texts):,} chunks with {self.model}")
                rows = np.asarray(self.embedder.embed_documents(texts), dtype=np.float32)
                self.cache.put(key, rows)
            parts.append(rows)
        return np.concatenate(parts)

    def _embed_query(self, query: str) -> np.ndarray:
        """The query's vector, remembered in memory only (what people type never reaches the disk)."""
        if query not in self._query_cache:
            vector = np.asarray(self.embedder.embed_query(query), dtype=np.float32)
            self._query_cache = {**dict(list(self._query_cache.items())[-63:]), query: vector}
        return self._query_cache[query]


def identity_key(identity: _Identity) -> str:
    """What the cache key says about the embedder: every field its vectors depend on (not its name
    or endpoint, which :class:`~rse_core.embedders.EmbedderIdentity` does not compare either)."""
    fields = identity.to_dict()
    fields.pop("name", None)
    fields.pop("endpoint", None)
    return "embedder " + json.dumps(fields, sort_keys=True)
