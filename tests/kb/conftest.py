"""Fixtures for the knowledge-base tests: both chunk stores, each test in a fresh collection."""

from __future__ import annotations

import itertools

import pytest

from tests.kb.support import milvus_lite_server

_names = itertools.count()


@pytest.fixture(scope="session")
def milvus_uri(tmp_path_factory):
    """A milvus-lite server on 127.0.0.1 for the whole session; the Milvus tests skip if it cannot start."""
    data_dir = tmp_path_factory.mktemp("milvus") / "data"
    with milvus_lite_server(data_dir) as (uri, reason):
        if uri is None:
            pytest.skip(f"Milvus store tests skipped: {reason}")
        yield uri


@pytest.fixture(params=["lancedb", "milvus"])
def make_store(request, tmp_path):
    """A function making an empty store of the parametrised kind (``dimension`` given)."""
    opened = []

    def make(dimension: int = 8):
        if request.param == "lancedb":
            from rse_core.kb.lance_store import LanceChunkStore

            store = LanceChunkStore(tmp_path / f"lance{next(_names)}", dimension=dimension)
        else:
            from rse_core.kb.milvus_store import MilvusChunkStore

            uri = request.getfixturevalue("milvus_uri")
            store = MilvusChunkStore(uri, collection=f"contract_{next(_names)}", dimension=dimension)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()
