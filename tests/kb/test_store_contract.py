"""The chunk store contract: LanceDB (embedded) and Milvus (a milvus-lite server) pass the same tests."""

from __future__ import annotations

import numpy as np
import pytest

from rse_core.errors import ParameterError
from rse_core.kb.store import ChunkRecord, ChunkStore

DIM = 8


def _unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


def _records(doc_id: str, count: int, seed: int = 0, words: dict[int, str] | None = None) -> list[ChunkRecord]:
    words = words or {}
    records, start = [], 0
    for index in range(count):
        text = f"chunk {index} of {doc_id} about budgets and meetings. {words.get(index, '')}".strip() + " "
        records.append(
            ChunkRecord(
                doc_id=doc_id,
                chunk_index=index,
                text=text,
                start=start,
                end=start + len(text),
                first_page=1 + index // 3,
                last_page=1 + (index + 1) // 3,
                vector=_unit(seed * 1000 + index),
                header=f"{doc_id} header",
            )
        )
        start += len(text)
    return records


def test_a_store_satisfies_the_protocol(make_store):
    assert isinstance(make_store(DIM), ChunkStore)


def test_added_documents_are_listed_with_their_chunk_counts(make_store):
    store = make_store(DIM)
    store.add(_records("a", 5) + _records("b", 3, seed=1))
    assert store.documents() == {"a": 5, "b": 3}
    assert store.chunk_count("a") == 5
    assert store.chunk_count("missing") == 0
    assert store.count() == 8


def test_stored_chunks_counts_the_rows_each_document_has(make_store):
    store = make_store(DIM)
    assert store.stored_chunks() == {}
    store.add(_records("a", 5) + _records("b", 3, seed=1))
    store.remove("b")
    assert store.stored_chunks() == {"a": 5}


def test_adding_a_document_again_replaces_it(make_store):
    store = make_store(DIM)
    store.add(_records("a", 5))
    store.add(_records("a", 4, seed=2))  # e.g. a rebuild after an interrupted batch
    assert store.documents() == {"a": 4}
    assert store.count() == 4


def test_read_returns_a_range_of_one_document_in_order(make_store):
    store = make_store(DIM)
    records = _records("a", 6) + _records("b", 6, seed=1)
    store.add(records)
    chunks = store.read("a", 2, 4)
    assert [chunk.chunk_index for chunk in chunks] == [2, 3, 4]
    assert [chunk.text for chunk in chunks] == [r.text for r in records[2:5]]
    assert [(c.start, c.end, c.first_page, c.last_page) for c in chunks] == [
        (r.start, r.end, r.first_page, r.last_page) for r in records[2:5]
    ]
    assert all(chunk.doc_id == "a" for chunk in chunks)
    assert all(chunk.header == "a header" for chunk in chunks)  # what a reranker reads in front
    assert store.read("a", 4, 2) == []


def test_vector_search_finds_the_nearest_chunk_with_its_cosine(make_store):
    store = make_store(DIM)
    records = _records("a", 6) + _records("b", 6, seed=1)
    store.add(records)
    target = records[8]
    hits = store.search(vector=target.vector, limit=3)
    assert (hits[0].doc_id, hits[0].chunk_index) == ("b", 2)
    assert hits[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert hits[0].bm25 is None
    similarities = [hit.similarity for hit in hits]
    assert similarities == sorted(similarities, reverse=True)
    expected = sorted((float(r.vector @ target.vector) for r in records), reverse=True)[:3]
    assert similarities == pytest.approx(expected, abs=1e-4)


def test_search_is_limited_to_the_given_documents(make_store):
    store = make_store(DIM)
    records = _records("a", 6) + _records("b", 6, seed=1)
    store.add(records)
    hits = store.search(vector=records[8].vector, limit=20, documents=["a"])
    assert {hit.doc_id for hit in hits} == {"a"}
    assert len(hits) == 6
    assert store.search(vector=records[8].vector, limit=5, documents=[]) == []


def test_text_search_ranks_chunks_by_bm25(make_store):
    store = make_store(DIM)
    store.add(_records("a", 6, words={3: "the coolant pump", 4: "pump"}) + _records("b", 6, seed=1))
    if hasattr(store, "optimize"):
        store.optimize()
    hits = store.search(text="coolant pump", limit=5)
    assert [(hit.doc_id, hit.chunk_index) for hit in hits[:2]] == [("a", 3), ("a", 4)]
    assert hits[0].bm25 > hits[1].bm25 > 0
    assert hits[0].similarity is None
    assert store.search(text="coolant pump", limit=5, documents=["b"]) == []


def test_vector_and_text_together_give_each_hit_both_scores(make_store):
    store = make_store(DIM)
    records = _records("a", 6, words={3: "coolant pump"})
    store.add(records)
    hits = {hit.key: hit for hit in store.search(vector=records[3].vector, text="coolant", limit=6)}
    assert hits[("a", 3)].similarity == pytest.approx(1.0, abs=1e-4)
    assert hits[("a", 3)].bm25 > 0


def test_remove_deletes_a_document_and_its_chunks(make_store):
    store = make_store(DIM)
    records = _records("a", 4) + _records("b", 4, seed=1)
    store.add(records)
    store.remove("a")
    store.remove("never-added")
    assert store.documents() == {"b": 4}
    assert store.count() == 4
    assert store.read("a", 0, 3) == []
    assert {hit.doc_id for hit in store.search(vector=records[0].vector, limit=8)} == {"b"}


def test_bad_arguments_are_refused_with_a_parameter_error(make_store):
    store = make_store(DIM)
    store.add(_records("a", 2))
    with pytest.raises(ParameterError, match="vector, a query text or both"):
        store.search(limit=3)
    with pytest.raises(ParameterError, match="limit"):
        store.search(vector=_unit(1), limit=0)
    with pytest.raises(ParameterError, match="dimensions"):
        store.search(vector=np.ones(DIM + 1), limit=3)
    with pytest.raises(ParameterError, match="Document id"):
        store.read("a' OR 1=1 --", 0, 3)
    bad = _records("c", 1)[0]
    with pytest.raises(ParameterError, match="NaN"):
        store.add([ChunkRecord(**{**bad.__dict__, "vector": np.full(DIM, np.nan)})])


def test_a_reopened_store_keeps_its_chunks(make_store, tmp_path, request):
    store = make_store(DIM)
    store.add(_records("a", 3))
    if "lancedb" in request.node.callspec.id:
        from rse_core.kb.lance_store import LanceChunkStore

        again = LanceChunkStore(store.path)
    else:
        from rse_core.kb.milvus_store import MilvusChunkStore

        again = MilvusChunkStore(store.uri, collection=store.collection)
    assert again.dimension == DIM
    assert again.documents() == {"a": 3}
    again.close()
