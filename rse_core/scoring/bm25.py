"""Lexical scores with ``bm25s``: no model, instant, and a useful contrast to embeddings."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import groupby
from typing import Any

import numpy as np
from cachetools import LRUCache

from rse_core.chunking import Chunk, scoring_text
from rse_core.scoring.base import Calibration, CalibrationKind, ProgressCallback, ScorerName, check_scores, clean_query
from rse_core.scoring.embedding_cache import embedding_key

BM25_CALIBRATION = Calibration(
    kind=CalibrationKind.MAX_RATIO,
    note=(
        "BM25 sums are unbounded and their scale depends on the query's words, so there is no "
        "absolute threshold: each score is divided by the best chunk's score for that query. The "
        "best chunk therefore always gets 1, and a query with no matching word gives all zeros."
    ),
)


# Words of two or more letters, and each CJK character on its own: Chinese and Japanese are not
# written with spaces, so without this a whole clause would be one "word" that never matches.
TOKEN_PATTERN = r"(?u)[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|\b\w\w+\b"


class BM25Scorer:
    """BM25 (Lucene variant, k1 = 1.5, b = 0.75) over the chunks, with English stop words.

    Each document gets its own index (word statistics from that document only), so a
    document's scores do not change when another document is loaded beside it. An index is
    built once and kept (a few dozen per scorer), so a new query costs one sparse lookup. The
    scorer may be shared by several app sessions, so the index cache is behind a lock; an index
    is built outside it, so one session's large document does not hold up another's lookup.
    """

    name = ScorerName.BM25
    model = "bm25s"
    calibration = BM25_CALIBRATION

    def __init__(self, k1: float = 1.5, b: float = 0.75, stopwords: str | None = "en", max_indexes: int = 32) -> None:
        self.k1, self.b, self.stopwords = k1, b, stopwords
        self.max_indexes = max_indexes
        self._indexes: LRUCache[str, Any] = LRUCache(maxsize=max(max_indexes, 0))
        self._lock = threading.Lock()

    def score(self, query: str, chunks: Sequence[Chunk], progress: ProgressCallback | None = None) -> np.ndarray:
        import bm25s

        query, _ = clean_query(query)
        if not chunks:
            return np.zeros(0)
        query_tokens = bm25s.tokenize(
            [query], stopwords=self.stopwords, token_pattern=TOKEN_PATTERN, return_ids=False, show_progress=False
        )[0]
        parts = []
        for _, group in groupby(chunks, key=lambda chunk: chunk.doc_id):
            texts = [scoring_text(chunk) for chunk in group]
            retriever = self._index(texts)
            if retriever is None or not query_tokens:  # no indexable word in the document or the query
                parts.append(np.zeros(len(texts)))
            else:
                parts.append(np.asarray(retriever.get_scores(query_tokens), dtype=np.float64))
        scores = np.concatenate(parts)
        if progress is not None:
            progress(1.0, "BM25 scores ready")
        return check_scores(scores, len(chunks), self.name)

    def _index(self, texts: list[str]) -> Any:
        """The document's ``bm25s`` index, built once; ``None`` if it has no indexable word."""
        key = embedding_key(f"bm25:{self.k1}:{self.b}:{self.stopwords}", texts)
        with self._lock:
            if key in self._indexes:
                return self._indexes[key]
        retriever = self._build_index(texts)
        if self._indexes.maxsize >= 1:  # max_indexes=0: build every time, keep none
            with self._lock:
                self._indexes[key] = retriever
        return retriever

    def _build_index(self, texts: list[str]) -> Any:
        import bm25s

        tokens = bm25s.tokenize(texts, stopwords=self.stopwords, token_pattern=TOKEN_PATTERN, show_progress=False)
        if not any(len(ids) for ids in tokens.ids):
            return None
        retriever = bm25s.BM25(k1=self.k1, b=self.b)
        retriever.index(tokens, show_progress=False)
        return retriever
