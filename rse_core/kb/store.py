"""The chunk store interface a knowledge base is written to and read from.

A store keeps one row per chunk: where it sits (document id, chunk index, characters, pages),
its text and its embedding. RSE needs three things from it: a first-stage search over the whole
base, a document's chunk count (RSE runs over every chunk of a selected document, not just its
hits) and the text of a run of neighbouring chunks in one read. Stores differ only in engine
(LanceDB on disk, Milvus over the network); the shared contract tests hold both to this.

A document is *committed* in a store once its row in the store's document list is written, which
happens after its chunks: a write killed half way leaves chunks of an uncommitted document, which
:meth:`ChunkStore.add` replaces when the document is added again and searches may return (the
knowledge base drops hits of documents it does not list).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from rse_core.chunking import Chunk
from rse_core.errors import ParameterError


@dataclass(frozen=True)
class StoredChunk:
    """A stored chunk as read back. ``start``/``end`` index the document's loaded text (end
    exclusive); pages are 1-based; ``header`` is the contextual header it was embedded with (a
    reranker reads it too). No vector: reading text should not move 1.5 KB of floats a chunk."""

    doc_id: str
    chunk_index: int
    text: str
    start: int
    end: int
    first_page: int
    last_page: int
    header: str = ""


@dataclass(frozen=True, kw_only=True)
class ChunkRecord(StoredChunk):
    """One chunk to store: a :class:`StoredChunk` with its embedding."""

    vector: np.ndarray = field(repr=False, compare=False)

    @classmethod
    def of(cls, chunk: Chunk, vector: np.ndarray) -> ChunkRecord:
        """The record of a chunk as :func:`rse_core.chunking.chunk_document` made it."""
        return cls(
            chunk.doc_id,
            chunk.index,
            chunk.text,
            chunk.start,
            chunk.end,
            chunk.first_page,
            chunk.last_page,
            chunk.header,
            vector=vector,
        )


@dataclass(frozen=True)
class Hit:
    """A first-stage hit: cosine similarity and/or BM25 score, whichever searches found it."""

    doc_id: str
    chunk_index: int
    similarity: float | None = None
    bm25: float | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.doc_id, self.chunk_index)


class HybridSearch:
    """The search every store shares, written once: the argument checks, an empty document filter
    answering nothing, and a vector search and a text search merged by :func:`merge_hits`. A store
    supplies its engine's filter syntax and the two searches (each best first, ``where`` applied)."""

    dimension: int

    def search(
        self,
        *,
        vector: np.ndarray | None = None,
        text: str | None = None,
        limit: int,
        documents: Sequence[str] | None = None,
    ) -> list[Hit]:
        """Best ``limit`` chunks by cosine similarity to ``vector`` and/or BM25 on ``text``
        (both: the union, each hit with the scores its searches gave), optionally only in
        ``documents``; best first (by similarity when a vector is given)."""
        check_search_arguments(vector, text, limit)
        if documents is not None and not documents:
            return []
        where = None if documents is None else self._documents_filter(documents)
        dense = self._vector_search(query_vector(vector, self.dimension), limit, where) if vector is not None else []
        lexical = self._text_search(text, limit, where) if text and text.strip() else []
        return merge_hits(dense, lexical)

    def _documents_filter(self, doc_ids: Sequence[str]) -> str:
        """The engine's filter keeping only chunks of ``doc_ids`` (checked by :func:`check_doc_id`)."""
        raise NotImplementedError

    def _vector_search(self, query: np.ndarray, limit: int, where: str | None) -> list[Hit]:
        """Best ``limit`` chunks by cosine similarity to ``query`` (a float32 row of the store's size)."""
        raise NotImplementedError

    def _text_search(self, text: str, limit: int, where: str | None) -> list[Hit]:
        """Best ``limit`` chunks by BM25 on ``text``."""
        raise NotImplementedError


@runtime_checkable
class ChunkStore(Protocol):
    """What a knowledge base needs from a vector database."""

    def add(self, records: Sequence[ChunkRecord]) -> None:
        """Store the chunks and commit their documents (chunks first); a document already in the
        store is replaced, so adding it again after an interrupted write is safe."""
        ...

    search = HybridSearch.search
    """The search's signature and contract are :meth:`HybridSearch.search`'s (the bundled stores inherit
    it; another store may implement it its own way)."""

    def read(self, doc_id: str, first: int, last: int) -> list[StoredChunk]:
        """Chunks ``first..last`` (inclusive) of one document, in order, in one call."""
        ...

    def chunk_count(self, doc_id: str) -> int:
        """Chunks of a committed document (0 if it is not in the store)."""
        ...

    def documents(self) -> dict[str, int]:
        """Every committed document id with its chunk count."""
        ...

    def remove(self, doc_id: str) -> None:
        """Delete a document and its chunks (a missing one is not an error)."""
        ...

    def stored_chunks(self) -> dict[str, int]:
        """Chunk rows per document id, counted by reading every row: slower than :meth:`documents`,
        and what finds chunks lost or unreadable behind a committed document."""
        ...

    def count(self) -> int:
        """Chunks stored."""
        ...

    def close(self) -> None: ...


def check_search_arguments(vector: np.ndarray | None, text: str | None, limit: int) -> None:
    """The argument checks every store shares."""
    if vector is None and not (text and text.strip()):
        raise ParameterError("Search needs a query vector, a query text or both.")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ParameterError(f"limit must be a whole number of at least 1 (got {limit!r}).")


def query_vector(vector: np.ndarray, dimension: int) -> np.ndarray:
    """``vector`` as the float32 row every store searches with, refused if its size is not the store's."""
    query = np.asarray(vector, dtype=np.float32).ravel()
    if query.shape != (dimension,):
        raise ParameterError(f"The query vector has {query.size} dimensions; this store holds {dimension}.")
    return query


def merge_hits(dense: Iterable[Hit], text: Iterable[Hit]) -> list[Hit]:
    """Join a vector search and a text search: one hit per chunk with both scores where both
    found it; vector hits first in their order, then text-only hits in theirs."""
    merged: dict[tuple[str, int], Hit] = {hit.key: hit for hit in dense}
    for hit in text:
        known = merged.get(hit.key)
        merged[hit.key] = hit if known is None else Hit(hit.doc_id, hit.chunk_index, known.similarity, hit.bm25)
    return list(merged.values())


_DOC_ID = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def check_doc_id(doc_id: str) -> str:
    """Refuse a document id that would need quoting in a filter expression.

    Ids are content hashes (hex); allowing only ``[A-Za-z0-9_.-]`` keeps every store's filter
    language safe without an escaping rule per engine.
    """
    if not isinstance(doc_id, str) or not _DOC_ID.fullmatch(doc_id):
        raise ParameterError(f"Document id {doc_id!r} must be 1-128 letters, digits, '_', '.' or '-'.")
    return doc_id


def id_list(doc_ids: Iterable[str]) -> str:
    """``'a', 'b'`` for an ``IN (...)`` filter (ids checked by :func:`check_doc_id`)."""
    return ", ".join(f"'{check_doc_id(doc_id)}'" for doc_id in doc_ids)


def check_vectors(records: Sequence[ChunkRecord], dimension: int) -> np.ndarray:
    """The records' vectors as one float32 matrix, refusing a wrong size or NaN."""
    if not records:
        return np.zeros((0, dimension), dtype=np.float32)
    matrix = np.asarray(np.stack([np.asarray(r.vector, dtype=np.float32).ravel() for r in records]))
    if matrix.shape[1] != dimension:
        raise ParameterError(f"Vectors have {matrix.shape[1]} dimensions; this store holds {dimension}.")
    if not np.isfinite(matrix).all():
        raise ParameterError("A chunk vector holds NaN or infinity; refusing to store it.")
    return matrix
