"""The default chunk store: LanceDB, embedded, in a folder on disk.

No server: the knowledge base is a folder that can be copied. LanceDB gives vector search with
a prefilter on document ids, BM25 full-text search (its native inverted index) and scalar
filters for range reads. Below :data:`ANN_THRESHOLD` chunks vector search is exact (brute force
over 384 floats a chunk is a few milliseconds at 40k chunks); above it :meth:`LanceChunkStore.optimize`
builds an IVF-PQ index, searched with a refine step so the first stage's order stays close to
exact. Rows added after an index was built are searched exactly until the next ``optimize``.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ParamSpec, TypeVar

import numpy as np

from rse_core.errors import ParameterError
from rse_core.extras import import_optional
from rse_core.kb.catalog import DamagedBaseError
from rse_core.kb.store import (
    ChunkRecord,
    Hit,
    HybridSearch,
    StoredChunk,
    check_doc_id,
    check_vectors,
    id_list,
)

ANN_THRESHOLD = 100_000
"""Chunks above which an approximate vector index is built (below it exact search is fast enough)."""
ANN_NPROBES = 32
ANN_REFINE_FACTOR = 8
CHUNKS = "chunks"
DOCUMENTS = "documents"
_READ_COLUMNS = ["doc_id", "chunk_index", "text", "start", "end", "first_page", "last_page", "header"]
_LANCE_ERROR_KIND = re.compile(r"LanceError\(\w{1,40}\)")
MISSING_MESSAGE = "The chunk store of this base is missing (its lance folder or a table in it); run 'check' on it."
_Arguments = ParamSpec("_Arguments")
_Result = TypeVar("_Result")


def _readable(method: Callable[_Arguments, _Result]) -> Callable[_Arguments, _Result]:
    """``method`` with LanceDB's errors on a damaged folder (a truncated or deleted data file)
    raised as one line naming the kind of error, never the Rust source path or data file it names."""

    @functools.wraps(method)
    def guarded(*args: _Arguments.args, **kwargs: _Arguments.kwargs) -> _Result:
        try:
            return method(*args, **kwargs)
        except (RuntimeError, OSError) as error:
            found = _LANCE_ERROR_KIND.search(str(error))
            kind = found.group() if found else type(error).__name__
            raise DamagedBaseError(
                f"The chunk store of this base could not be read ({kind}): a data file is damaged or missing; "
                "run 'check' on the base, then 'build --repair' with its files."
            ) from None

    return guarded


class LanceChunkStore(HybridSearch):
    """A :class:`~rse_core.kb.store.ChunkStore` in a LanceDB folder.

    Args:
        path: the folder (created if missing).
        dimension: vector size; needed to create a new store, read from an existing one.
        ann_threshold: chunk count above which :meth:`optimize` builds a vector index.
        create: make the folder and its tables if missing; if false, a missing one is an error
            (opening a built base must not replace a deleted store with an empty one).
    """

    def __init__(
        self,
        path: str | Path,
        dimension: int | None = None,
        ann_threshold: int = ANN_THRESHOLD,
        *,
        create: bool = True,
    ) -> None:
        lancedb = import_optional("lancedb", "A knowledge base on LanceDB")
        self._pa = pa = import_optional("pyarrow", "A knowledge base on LanceDB")
        self.path = Path(path)
        self.ann_threshold = ann_threshold
        if not create and not self.path.is_dir():
            raise DamagedBaseError(MISSING_MESSAGE)
        self._db = lancedb.connect(str(self.path))
        names = set(_table_names(self._db))
        if not create and not {CHUNKS, DOCUMENTS} <= names:
            raise DamagedBaseError(MISSING_MESSAGE)
        if CHUNKS in names:
            self._chunks = self._db.open_table(CHUNKS)
            self.dimension = self._chunks.schema.field("vector").type.list_size
            if dimension is not None and dimension != self.dimension:
                raise ParameterError(f"The store at {self.path} holds {self.dimension}-d vectors, not {dimension}-d.")
        else:
            if dimension is None:
                raise ParameterError(f"No chunk store at {self.path}; give the vector dimension to create one.")
            self.dimension = int(dimension)
            self._chunks = self._db.create_table(CHUNKS, schema=self._chunk_schema())
        if DOCUMENTS in names:
            self._documents = self._db.open_table(DOCUMENTS)
        else:
            schema = pa.schema([("doc_id", pa.string()), ("chunk_count", pa.int64())])
            self._documents = self._db.create_table(DOCUMENTS, schema=schema)

    def _chunk_schema(self):
        pa = self._pa
        return pa.schema(
            [
                ("doc_id", pa.string()),
                ("chunk_index", pa.int64()),
                ("text", pa.string()),
                ("header", pa.string()),
                ("start", pa.int64()),
                ("end", pa.int64()),
                ("first_page", pa.int32()),
                ("last_page", pa.int32()),
                ("vector", pa.list_(pa.float32(), self.dimension)),
            ]
        )

    # -- writing ---------------------------------------------------------------------------

    def add(self, records: Sequence[ChunkRecord]) -> None:
        if not records:
            return
        pa = self._pa
        matrix = check_vectors(records, self.dimension)
        doc_ids = list(dict.fromkeys(check_doc_id(record.doc_id) for record in records))
        self._delete(doc_ids)
        vectors = pa.FixedSizeListArray.from_arrays(pa.array(matrix.ravel(), type=pa.float32()), self.dimension)
        table = pa.Table.from_arrays(
            [
                pa.array([r.doc_id for r in records], pa.string()),
                pa.array([r.chunk_index for r in records], pa.int64()),
                pa.array([r.text for r in records], pa.string()),
                pa.array([r.header for r in records], pa.string()),
                pa.array([r.start for r in records], pa.int64()),
                pa.array([r.end for r in records], pa.int64()),
                pa.array([r.first_page for r in records], pa.int32()),
                pa.array([r.last_page for r in records], pa.int32()),
                vectors,
            ],
            schema=self._chunk_schema(),
        )
        self._chunks.add(table)  # one commit: the chunks ...
        counts = Counter(record.doc_id for record in records)
        self._documents.add([{"doc_id": doc_id, "chunk_count": counts[doc_id]} for doc_id in doc_ids])  # ... then them

    def remove(self, doc_id: str) -> None:
        self._delete([check_doc_id(doc_id)])

    def _delete(self, doc_ids: Sequence[str]) -> None:
        where = f"doc_id IN ({id_list(doc_ids)})"
        self._documents.delete(where)  # uncommit first, so a crash in between leaves orphans, not gaps
        self._chunks.delete(where)

    def optimize(self) -> None:
        """Compact the files, bring the full-text index up to date and, above the threshold,
        build the vector index (a build calls this once at its end)."""
        if self.count() == 0:
            return
        indexed = {index.name: index for index in self._chunks.list_indices()}
        columns = {tuple(index.columns) for index in indexed.values()}
        if ("text",) not in columns:
            self._chunks.create_fts_index("text", use_tantivy=False, replace=True)
        if ("doc_id",) not in columns:
            self._chunks.create_scalar_index("doc_id")
        if ("vector",) not in columns and self.count() > self.ann_threshold:
            partitions = max(1, int(np.sqrt(self.count())))
            self._chunks.create_index(
                metric="cosine",
                vector_column_name="vector",
                index_type="IVF_PQ",
                num_partitions=partitions,
                num_sub_vectors=self.dimension // 8,
            )
        self._chunks.optimize()
        self._documents.optimize()

    # -- reading ---------------------------------------------------------------------------

    def _documents_filter(self, doc_ids: Sequence[str]) -> str:
        return f"doc_id IN ({id_list(doc_ids)})"

    @_readable
    def _vector_search(self, query: np.ndarray, limit: int, where: str | None) -> list[Hit]:
        search = (
            self._chunks.search(query, vector_column_name="vector", query_type="vector")
            .distance_type("cosine")
            .select(["doc_id", "chunk_index", "_distance"])
            .limit(limit)
        )
        if self._has_vector_index():
            search = search.nprobes(ANN_NPROBES).refine_factor(ANN_REFINE_FACTOR)
        if where is not None:
            search = search.where(where, prefilter=True)
        rows = search.to_arrow().to_pydict()
        return [
            Hit(doc_id, int(index), similarity=1.0 - float(distance))
            for doc_id, index, distance in zip(rows["doc_id"], rows["chunk_index"], rows["_distance"], strict=True)
        ]

    @_readable
    def _text_search(self, text: str, limit: int, where: str | None) -> list[Hit]:
        search = self._chunks.search(text, query_type="fts", fts_columns="text")
        search = search.select(["doc_id", "chunk_index", "_score"]).limit(limit)
        if where is not None:
            search = search.where(where, prefilter=True)
        rows = search.to_arrow().to_pydict()
        return [
            Hit(doc_id, int(index), bm25=float(score))
            for doc_id, index, score in zip(rows["doc_id"], rows["chunk_index"], rows["_score"], strict=True)
        ]

    def _has_vector_index(self) -> bool:
        return any(tuple(index.columns) == ("vector",) for index in self._chunks.list_indices())

    @_readable
    def read(self, doc_id: str, first: int, last: int) -> list[StoredChunk]:
        check_doc_id(doc_id)
        if last < first:
            return []
        rows = (
            self._chunks.search()
            .where(f"doc_id = '{doc_id}' AND chunk_index >= {int(first)} AND chunk_index <= {int(last)}")
            .select(_READ_COLUMNS)
            .limit(int(last) - int(first) + 1)
            .to_arrow()
            .sort_by("chunk_index")
            .to_pylist()
        )
        return [StoredChunk(**row) for row in rows]

    @_readable
    def chunk_count(self, doc_id: str) -> int:
        rows = self._documents.search().where(f"doc_id = '{check_doc_id(doc_id)}'").limit(1).to_arrow().to_pylist()
        return int(rows[0]["chunk_count"]) if rows else 0

    @_readable
    def documents(self) -> dict[str, int]:
        rows = self._documents.to_arrow().to_pydict()
        return dict(zip(rows["doc_id"], (int(n) for n in rows["chunk_count"]), strict=True))

    @_readable
    def count(self) -> int:
        return self._chunks.count_rows()

    @_readable
    def stored_chunks(self) -> dict[str, int]:
        """Chunk rows per document, counted by reading every row (what ``check`` compares)."""
        total = self.count()
        if not total:
            return {}
        rows = self._chunks.search().select(["doc_id"]).limit(total).to_arrow()
        return dict(Counter(rows.column("doc_id").to_pylist()))

    def disk_bytes(self) -> int:
        return sum(path.stat().st_size for path in self.path.rglob("*") if path.is_file())

    def close(self) -> None:
        """LanceDB holds no server or lock; dropping the handles is enough."""


def _table_names(db) -> list[str]:
    listed = db.list_tables()
    return list(getattr(listed, "tables", listed))
