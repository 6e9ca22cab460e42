"""A knowledge base and the single-document pipeline describe segments with one record and one step:
from the same values, a segment read back from the store equals the one cut from the document in memory."""

from __future__ import annotations

import pytest

from rse_core import RSEParams, build_corpus, extract, load_document
from rse_core import segments as segments_module
from rse_core.kb import KnowledgeBase, build, query_kb, rse_from_first_stage, search_first_stage
from rse_core.segments import segments_from_values
from tests.kb.support import SAMPLES, HashingEmbedder

QUESTION = "How many days of annual leave do employees get?"


@pytest.fixture(scope="module")
def handbook_kb(tmp_path_factory):
    handbook = next(path for path in SAMPLES if path.name == "employee_handbook.pdf")
    kb_dir = tmp_path_factory.mktemp("shared") / "handbook"
    build(kb_dir, [handbook], embedder=HashingEmbedder())
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    yield kb, load_document(handbook)
    kb.close()


def _params(kb: KnowledgeBase) -> RSEParams:
    return RSEParams(chunk_size=kb.catalog.chunk_size, chunk_headers=kb.catalog.headers)


def test_the_store_and_the_document_in_memory_give_equal_segments(handbook_kb):
    kb, document = handbook_kb
    params = _params(kb)
    result = rse_from_first_stage(kb, search_first_stage(kb, QUESTION), params)
    assert result.segments, "the question should find a segment in the handbook"
    corpus = build_corpus(document, params.chunk_size, headers=params.chunk_headers)
    assert corpus.documents[0].doc_id in result.values
    _, in_memory = segments_from_values(result.values[corpus.documents[0].doc_id], params, (), corpus)
    assert in_memory == result.segments
    assert [segment.to_dict() for segment in in_memory] == [segment.to_dict() for segment in result.segments]


def test_extract_and_query_kb_both_describe_through_the_one_step(handbook_kb, monkeypatch):
    kb, document = handbook_kb
    callers = []
    describe = segments_module.describe_segments

    def counting(search, values, source):
        callers.append(type(source).__name__)
        return describe(search, values, source)

    monkeypatch.setattr(segments_module, "describe_segments", counting)
    single = extract(document, QUESTION, _params(kb), scorer="bm25")
    base = query_kb(kb, QUESTION, _params(kb))
    assert callers == ["Corpus", "_StoreChunks"]
    assert single.segments and base.segments
    assert set(single.segments[0].to_dict()) == set(base.segments[0].to_dict())
    assert set(single.to_dict()["segments"][0]) == set(base.to_dict()["segments"][0])
