"""A chunk store on Milvus, through pymilvus' ``MilvusClient``.

For a base shared by several processes or machines: the URI names a Milvus server (a cluster,
Zilliz Cloud, or a local milvus-lite server, which the contract tests start on 127.0.0.1). Two
collections: ``<name>`` holds the chunks (dense vectors with a cosine index, text with Milvus'
BM25 function and its sparse index), ``<name>_documents`` one row per committed document (Milvus
wants a vector field in every collection, so it carries a constant two-float one). Both are
created with strong consistency, so a read sees every write before it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from rse_core.errors import ParameterError, RSEError
from rse_core.extras import import_optional
from rse_core.kb.store import (
    ChunkRecord,
    Hit,
    HybridSearch,
    StoredChunk,
    check_doc_id,
    check_vectors,
    id_list,
)

INSERT_ROWS = 2_000
"""Rows per insert call: well under gRPC's message limit at 384 floats plus text a row."""
MAX_TEXT_BYTES = 65_535
MAX_HEADER_CHARS = 2_000
_READ_FIELDS = ["doc_id", "chunk_index", "text", "start", "end", "first_page", "last_page", "header"]
_QUERY_PAGE = 16_384  # Milvus' most rows per query


class MilvusStoreError(RSEError):
    """The Milvus server could not be reached or refused a request."""


class MilvusChunkStore(HybridSearch):
    """A :class:`~rse_core.kb.store.ChunkStore` on a Milvus server.

    Args:
        uri: e.g. ``http://127.0.0.1:19530``.
        collection: the chunk collection's name (``<collection>_documents`` is the other one).
        dimension: vector size; needed to create the collections, read from existing ones.
        token: credentials for a server that asks for them.
    """

    def __init__(self, uri: str, collection: str = "rse_chunks", dimension: int | None = None, token: str = "") -> None:
        MilvusClient = import_optional("pymilvus", "A knowledge base on Milvus").MilvusClient
        self.uri = uri
        self.collection = collection
        self.documents_collection = f"{collection}_documents"
        try:
            self._client = MilvusClient(uri=uri, token=token, timeout=30)
        except Exception as error:  # connection refused, bad URI
            raise MilvusStoreError(f"Could not connect to Milvus at {uri} ({error}).") from None
        if self._client.has_collection(collection):
            fields = self._client.describe_collection(collection)["fields"]
            vector = next(f for f in fields if f["name"] == "vector")
            self.dimension = int(vector["params"]["dim"])
            if dimension is not None and dimension != self.dimension:
                raise ParameterError(
                    f"Milvus collection {collection} holds {self.dimension}-d vectors, not {dimension}-d."
                )
        else:
            if dimension is None:
                raise ParameterError(f"No Milvus collection {collection}; give the vector dimension to create it.")
            self.dimension = int(dimension)
            self._create_chunks()
        if not self._client.has_collection(self.documents_collection):
            self._create_documents()
        self._client.load_collection(collection)
        self._client.load_collection(self.documents_collection)

    def _create_chunks(self) -> None:
        from pymilvus import DataType, Function, FunctionType, MilvusClient

        schema = MilvusClient.create_schema(auto_id=True)
        schema.add_field("id", DataType.INT64, is_primary=True)
        schema.add_field("doc_id", DataType.VARCHAR, max_length=128)
        schema.add_field("chunk_index", DataType.INT64)
        schema.add_field("text", DataType.VARCHAR, max_length=MAX_TEXT_BYTES, enable_analyzer=True)
        schema.add_field("header", DataType.VARCHAR, max_length=MAX_TEXT_BYTES)
        for name in ("start", "end", "first_page", "last_page"):
            schema.add_field(name, DataType.INT64)
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=self.dimension)
        schema.add_function(
            Function(
                name="bm25", function_type=FunctionType.BM25, input_field_names=["text"], output_field_names=["sparse"]
            )
        )
        indexes = self._client.prepare_index_params()
        indexes.add_index(field_name="vector", index_type="AUTOINDEX", metric_type="COSINE")
        indexes.add_index(field_name="sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
        indexes.add_index(field_name="doc_id", index_type="INVERTED")
        self._client.create_collection(self.collection, schema=schema, index_params=indexes, consistency_level="Strong")

    def _create_documents(self) -> None:
        from pymilvus import DataType, MilvusClient

        schema = MilvusClient.create_schema(auto_id=False)
        schema.add_field("doc_id", DataType.VARCHAR, is_primary=True, max_length=128)
        schema.add_field("chunk_count", DataType.INT64)
        schema.add_field("marker", DataType.FLOAT_VECTOR, dim=2)  # Milvus needs a vector field
        indexes = self._client.prepare_index_params()
        indexes.add_index(field_name="marker", index_type="FLAT", metric_type="L2")
        self._client.create_collection(
            self.documents_collection, schema=schema, index_params=indexes, consistency_level="Strong"
        )

    # -- writing ---------------------------------------------------------------------------

    def add(self, records: Sequence[ChunkRecord]) -> None:
        if not records:
            return
        matrix = check_vectors(records, self.dimension)
        doc_ids = list(dict.fromkeys(check_doc_id(record.doc_id) for record in records))
        self._delete(doc_ids)
        rows = [
            {
                "doc_id": r.doc_id,
                "chunk_index": int(r.chunk_index),
                "text": _fit(r.text, MAX_TEXT_BYTES),
                "header": _fit(r.header[:MAX_HEADER_CHARS], MAX_TEXT_BYTES),
                "start": int(r.start),
                "end": int(r.end),
                "first_page": int(r.first_page),
                "last_page": int(r.last_page),
                "vector": vector,
            }
            for r, vector in zip(records, matrix.tolist(), strict=True)
        ]
        for first in range(0, len(rows), INSERT_ROWS):
            self._client.insert(self.collection, rows[first : first + INSERT_ROWS])
        counts: dict[str, int] = {}
        for record in records:
            counts[record.doc_id] = counts.get(record.doc_id, 0) + 1
        marker = [1.0, 0.0]
        self._client.upsert(
            self.documents_collection,
            [{"doc_id": doc_id, "chunk_count": counts[doc_id], "marker": marker} for doc_id in doc_ids],
        )

    def remove(self, doc_id: str) -> None:
        self._delete([check_doc_id(doc_id)])

    def _delete(self, doc_ids: Sequence[str]) -> None:
        where = f"doc_id in [{id_list(doc_ids)}]"
        self._client.delete(self.documents_collection, filter=where)  # uncommit first
        self._client.delete(self.collection, filter=where)

    def optimize(self) -> None:
        """Make the writes durable (Milvus builds and updates its indexes by itself)."""
        self._client.flush(self.collection)
        self._client.flush(self.documents_collection)

    # -- reading ---------------------------------------------------------------------------

    def _documents_filter(self, doc_ids: Sequence[str]) -> str:
        return f"doc_id in [{id_list(doc_ids)}]"

    def _vector_search(self, query: np.ndarray, limit: int, where: str | None) -> list[Hit]:
        found = self._search([query.tolist()], "vector", "COSINE", limit, where)
        return [Hit(doc_id, index, similarity=float(distance)) for doc_id, index, distance in found]

    def _text_search(self, text: str, limit: int, where: str | None) -> list[Hit]:
        # Milvus reports a BM25 score; milvus-lite 3.2.2 reports it negated (a distance). A BM25
        # score is never negative, so its magnitude is right for both.
        found = self._search([text], "sparse", "BM25", limit, where)
        return [Hit(doc_id, index, bm25=abs(float(distance))) for doc_id, index, distance in found]

    def _search(
        self, data: list, field: str, metric: str, limit: int, where: str | None
    ) -> list[tuple[str, int, float]]:
        """``(doc_id, chunk_index, distance)`` of the best ``limit`` chunks by ``metric`` on ``field``."""
        found = self._client.search(
            self.collection,
            data=data,
            anns_field=field,
            limit=limit,
            filter=where or "",
            output_fields=["doc_id", "chunk_index"],
            search_params={"metric_type": metric},
        )[0]
        return [(hit["entity"]["doc_id"], int(hit["entity"]["chunk_index"]), hit["distance"]) for hit in found]

    def read(self, doc_id: str, first: int, last: int) -> list[StoredChunk]:
        check_doc_id(doc_id)
        if last < first:
            return []
        rows = self._client.query(
            self.collection,
            filter=f"doc_id == '{doc_id}' and chunk_index >= {int(first)} and chunk_index <= {int(last)}",
            output_fields=_READ_FIELDS,
            limit=int(last) - int(first) + 1,
        )
        chunks = [StoredChunk(**{name: row[name] for name in _READ_FIELDS}) for row in rows]
        return sorted(chunks, key=lambda chunk: chunk.chunk_index)

    def chunk_count(self, doc_id: str) -> int:
        rows = self._client.get(self.documents_collection, ids=[check_doc_id(doc_id)], output_fields=["chunk_count"])
        return int(rows[0]["chunk_count"]) if rows else 0

    def documents(self) -> dict[str, int]:
        found: dict[str, int] = {}
        offset = 0
        while True:
            rows = self._client.query(
                self.documents_collection,
                filter='doc_id != ""',
                output_fields=["doc_id", "chunk_count"],
                limit=_QUERY_PAGE,
                offset=offset,
            )
            found.update({row["doc_id"]: int(row["chunk_count"]) for row in rows})
            if len(rows) < _QUERY_PAGE:
                return found
            offset += len(rows)

    def stored_chunks(self) -> dict[str, int]:
        """Chunk rows per document, counted by reading every row (what ``check`` compares)."""
        counts: Counter[str] = Counter()
        rows = self._client.query_iterator(self.collection, batch_size=_QUERY_PAGE, output_fields=["doc_id"])
        try:
            while batch := rows.next():
                counts.update(row["doc_id"] for row in batch)
        finally:
            rows.close()
        return dict(counts)

    def count(self) -> int:
        rows = self._client.query(self.collection, filter="", output_fields=["count(*)"])
        return int(rows[0]["count(*)"])

    def close(self) -> None:
        self._client.close()


def _fit(text: str, max_bytes: int) -> str:
    """``text`` cut to ``max_bytes`` of UTF-8 (a VARCHAR's limit), on a character boundary."""
    data = text.encode("utf-8")
    return text if len(data) <= max_bytes else data[:max_bytes].decode("utf-8", "ignore")
