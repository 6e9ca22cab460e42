"""A knowledge base: a folder with a catalog (``kb.json``), chunk bounds and a chunk store."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from rse_core.chunking import DEFAULT_CHUNK_HEADERS, DEFAULT_CHUNK_SIZE
from rse_core.embedders import DEFAULT_EMBEDDER, Embedder, check_same_embedder, embedder_for, embedder_from_name
from rse_core.kb.catalog import (
    Catalog,
    DamagedBaseError,
    DocumentEntry,
    KnowledgeBaseError,
    catalog_path,
    read_bounds,
    read_catalog,
    remove_bounds,
    write_catalog,
)
from rse_core.kb.store import ChunkStore, StoredChunk
from rse_core.kb.writer_lock import LOCK_FILE, writer_lock

LANCE_DIR = "lance"


READ_GAP = 8
"""Chunks between two wanted ranges of a document that one store read still covers."""


@dataclass(frozen=True)
class KBInfo:
    """What ``info`` prints."""

    path: str
    documents: int
    chunks: int
    bytes: int
    model: str
    store: str


def open_store(kb_dir: Path, spec: dict[str, str], dimension: int, *, create: bool = True) -> ChunkStore:
    """The store a catalog names: ``{"kind": "lancedb"}`` (in the folder) or
    ``{"kind": "milvus", "uri": ..., "collection": ...}``; ``create=False`` refuses to make a
    missing LanceDB folder (a deleted store stays an error, not an empty base)."""
    kind = spec.get("kind", "lancedb")
    if kind == "lancedb":
        from rse_core.kb.lance_store import LanceChunkStore

        return LanceChunkStore(kb_dir / LANCE_DIR, dimension=dimension, create=create)
    if kind == "milvus":
        from rse_core.kb.milvus_store import MilvusChunkStore

        return MilvusChunkStore(spec["uri"], collection=spec.get("collection", "rse_chunks"), dimension=dimension)
    raise KnowledgeBaseError(f"Unknown chunk store kind {kind!r} in the catalog; expected lancedb or milvus.")


def _check_committed(catalog: Catalog, store: ChunkStore) -> None:
    """Refuse a base whose catalog lists documents its store does not hold as listed (one read of
    the store's document list): a query would answer from part of the base without saying so."""
    committed = store.documents()
    lacking = [doc_id for doc_id, entry in catalog.documents.items() if committed.get(doc_id) != entry.chunks]
    if lacking:
        store.close()
        raise DamagedBaseError(
            f"This base's kb.json lists {len(lacking)} document(s) its chunk store does not hold; run 'check' on it, "
            "then 'build' with its files to repair it."
        )


def check_new_folder(path: Path) -> None:
    """Refuse to make a base in a file, or in a folder holding anything but a base (or its lock)."""
    if path.exists() and not path.is_dir():
        raise KnowledgeBaseError(f"{path} is a file, not a knowledge-base folder.")
    if path.is_dir() and not catalog_path(path).is_file() and any(p.name != LOCK_FILE for p in path.iterdir()):
        raise KnowledgeBaseError(f"{path} is a folder with other files in it; give an empty or new folder.")


class KnowledgeBase:
    """Documents chunked, embedded and stored for RSE over the whole collection.

    Open an existing one with :meth:`open`, make or reopen one with :meth:`create`; add files
    with :func:`rse_core.kb.build.add_paths` and query with :func:`rse_core.kb.query.query_kb`.
    """

    def __init__(self, path: Path, catalog: Catalog, store: ChunkStore, embedder: Embedder | None = None) -> None:
        self.path = path
        self.catalog = catalog
        self.store = store
        self._embedder = embedder
        self._bounds = lru_cache(maxsize=4096)(lambda doc_id: read_bounds(self.path, doc_id))

    @classmethod
    def open(cls, path: str | Path, embedder: Embedder | None = None, *, create_store: bool = False) -> KnowledgeBase:
        """Open a built base; refuse an embedder other than the one it was built with, and a base
        whose store is missing (unless ``create_store``: a writer about to repair it).

        Raises:
            EmbedderMismatchError: ``embedder`` is not the one the base records.
        """
        path = Path(path)
        catalog = read_catalog(path)
        if embedder is not None:
            check_same_embedder(catalog.embedder, embedder.identity, str(path))
        store = open_store(path, catalog.store, catalog.dimension, create=create_store)
        if not create_store:
            _check_committed(catalog, store)
        return cls(path, catalog, store, embedder)

    @classmethod
    def create(
        cls,
        path: str | Path,
        embedder: Embedder | None = None,
        *,
        store: dict[str, str] | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        headers: bool = DEFAULT_CHUNK_HEADERS,
        name_in_title: bool | None = None,
    ) -> KnowledgeBase:
        """Open the base at ``path`` (its store made again if it was deleted: the writer repairs the
        catalog next), or make an empty one there (the folder is created). ``name_in_title``: see
        :attr:`~rse_core.kb.catalog.Catalog.name_in_title` (``None``: off for a new base, as the
        base has it for an existing one; a base never mixes titles with and without names)."""
        path = Path(path)
        if catalog_path(path).is_file():
            kb = cls.open(path, embedder, create_store=True)
            if store is not None and dict(store) != kb.catalog.store:
                kb.close()
                raise KnowledgeBaseError(f"{path} keeps its chunks in {kb.catalog.store}, not {store}.")
            if name_in_title is not None and name_in_title != kb.catalog.name_in_title:
                kb.close()
                raise KnowledgeBaseError(
                    f"{path} was built {'with' if kb.catalog.name_in_title else 'without'} file names in its "
                    "titles; add to it the same way, or build a new base."
                )
            return kb
        check_new_folder(path)
        embedder = embedder or embedder_from_name(DEFAULT_EMBEDDER)
        identity = embedder.identity  # an endpoint is asked for its dimension before the folder is made
        path.mkdir(parents=True, exist_ok=True)
        catalog = Catalog(
            embedder=identity,
            chunk_size=chunk_size,
            headers=headers,
            store=dict(store or {"kind": "lancedb"}),
            name_in_title=bool(name_in_title),
        )
        kb_store = open_store(path, catalog.store, catalog.dimension)
        write_catalog(path, catalog)
        return cls(path, catalog, kb_store, embedder)

    @property
    def embedder(self) -> Embedder:
        """The embedder the base records, created (not loaded) on first use.

        Raises:
            EmbedderMismatchError: what is installed here makes other vectors (another revision).
            RSEError: it cannot be made here (a model folder gone, a package or key missing).
        """
        if self._embedder is None:
            recorded = self.catalog.embedder
            embedder = embedder_for(recorded)
            check_same_embedder(recorded, embedder.identity, str(self.path))
            self._embedder = embedder
        return self._embedder

    @property
    def documents(self) -> dict[str, DocumentEntry]:
        return self.catalog.documents

    def chunk_ends(self, doc_id: str) -> np.ndarray:
        """End offsets of the document's chunks (cached)."""
        return self._bounds(doc_id)

    def characters_of(self, doc_id: str, first_chunk: int, last_chunk: int) -> tuple[int, int]:
        """``(start_char, end_char)`` of chunks ``first_chunk..last_chunk`` (inclusive), from the
        catalog alone: no store read."""
        ends = self.chunk_ends(doc_id)
        return (int(ends[first_chunk - 1]) if first_chunk else 0), int(ends[last_chunk])

    def read_chunks(self, ranges: Iterable[tuple[str, int, int]]) -> dict[str, dict[int, StoredChunk]]:
        """The chunks of every ``(doc_id, first, last)`` range (inclusive) by document and chunk
        number: one store read per run of a document's ranges, ranges at most ``READ_GAP`` chunks
        apart joined into one run (a reranker's scattered candidates do not read all between them)."""
        by_document: dict[str, list[tuple[int, int]]] = {}
        for doc_id, first, last in ranges:
            by_document.setdefault(doc_id, []).append((first, last))
        read: dict[str, dict[int, StoredChunk]] = {}
        for doc_id, wanted in by_document.items():
            runs: list[list[int]] = []
            for first, last in sorted(wanted):
                if runs and first <= runs[-1][1] + READ_GAP + 1:
                    runs[-1][1] = max(runs[-1][1], last)
                else:
                    runs.append([first, last])
            chunks = read.setdefault(doc_id, {})
            for first, last in runs:
                chunks.update((chunk.chunk_index, chunk) for chunk in self.store.read(doc_id, first, last))
        return read

    def reload(self) -> None:
        """Read the catalog again (a writer does, once it holds the lock: another may have
        committed since this base was opened)."""
        self.catalog = read_catalog(self.path)
        self._bounds.cache_clear()

    def commit(self, entries: list[DocumentEntry]) -> None:
        """Record documents whose chunks the store already holds (the last step of a batch)."""
        for entry in entries:
            self.catalog.documents[entry.doc_id] = entry
        write_catalog(self.path, self.catalog)

    def find(self, key: str) -> DocumentEntry:
        """A document by content hash (or a unique prefix of at least 6 hex digits) or file name."""
        if key in self.documents:
            return self.documents[key]
        matches = [e for e in self.documents.values() if e.name == key]
        if not matches and len(key) >= 6:
            matches = [e for e in self.documents.values() if e.doc_id.startswith(key)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            ids = ", ".join(entry.doc_id for entry in matches)
            raise KnowledgeBaseError(f"{key!r} names {len(matches)} documents ({ids}); give the hash instead.")
        raise KnowledgeBaseError(f"No document {key!r} in {self.path}; see 'info' for the list.")

    def remove(self, key: str) -> DocumentEntry:
        """Remove a document by hash or name: from the catalog first, then its chunks (a crash in
        between leaves chunks no document lists, which a query ignores and ``check`` reports),
        holding the writer lock."""
        with writer_lock(self.path):
            self.reload()
            entry = self.find(key)
            del self.catalog.documents[entry.doc_id]
            write_catalog(self.path, self.catalog)
            self.store.remove(entry.doc_id)
            remove_bounds(self.path, entry.doc_id)
            self._bounds.cache_clear()
        return entry

    def info(self) -> KBInfo:
        size = sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file())
        return KBInfo(
            path=str(self.path),
            documents=len(self.documents),
            chunks=self.catalog.chunk_total,
            bytes=size,
            model=self.catalog.model,
            store=self.catalog.store.get("kind", "lancedb"),
        )

    def close(self) -> None:
        self.store.close()
