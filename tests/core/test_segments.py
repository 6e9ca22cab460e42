"""The one segment record and the step that makes it: its JSON follows its fields, and describing
the search's ranges gives each segment's exact text, chunk numbers, pages and negative chunks."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import Document, RSEParams, build_corpus
from rse_core.segments import ExtractedSegment, segments_from_values


def _segment(**changes) -> ExtractedSegment:
    base = dict(
        number=2,
        query=0,
        start=10,
        end=14,
        doc_id="abc",
        doc_name="report.pdf",
        first_chunk=3,
        last_chunk=6,
        start_char=900,
        end_char=1300,
        first_page=2,
        last_page=3,
        score=1.25,
        text="x" * 400,
        inner_gaps=(11, 12),
        edge_padding=(13,),
    )
    return ExtractedSegment(**{**base, **changes})


def test_to_dict_has_every_field_the_label_and_the_former_keys():
    segment = _segment()
    data = segment.to_dict()
    assert set(data) == {item.name for item in fields(ExtractedSegment)} | {"label", "doc", "document"}
    assert data["label"] == "S2" and data["doc"] == data["document"] == data["doc_name"] == "report.pdf"
    assert json.loads(json.dumps(data)) == data  # plain JSON: lists, not tuples


def test_to_dict_gives_negative_chunks_as_chunk_numbers_within_the_document():
    data = _segment().to_dict()
    # Searched-sequence indices 11, 12 and 13 are chunks 4, 5 and 6 of a segment covering chunks 3-6.
    assert (data["inner_gaps"], data["edge_padding"]) == ([4, 5], [6])
    assert (data["start"], data["end"], data["first_chunk"], data["last_chunk"]) == (10, 14, 3, 6)


def test_a_new_field_reaches_the_json_with_no_other_edit():
    @dataclass(frozen=True)
    class WithSource(ExtractedSegment):
        source: str = "store"

    data = WithSource(**{item.name: getattr(_segment(), item.name) for item in fields(ExtractedSegment)}).to_dict()
    assert data["source"] == "store"


def test_pages_label_one_page_or_a_range():
    assert _segment().pages == "pp. 2-3"
    assert _segment(last_page=2).pages == "p. 2"


SECTIONS = ["Parking lots and permits. ", "Volcanoes and magma. ", "Tomatoes and compost. ", "Trains and timetables. "]
CORPUS = build_corpus(
    [
        Document.from_text("".join(body * 12 + "\n\n" for body in SECTIONS[:2]), name="a.txt"),
        Document.from_text("".join(body * 12 + "\n\n" for body in SECTIONS[2:]), name="b.txt"),
    ],
    chunk_size=120,
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1.0, 1.0), min_size=len(CORPUS.chunks), max_size=len(CORPUS.chunks)),
    st.integers(1, 8),
)
def test_described_segments_match_the_corpus_exactly(raw_values, max_length):
    values = np.array(raw_values)
    params = RSEParams(chunk_size=120, max_length=max_length, overall_max_length=20, minimum_value=0.0)
    search, segments = segments_from_values([values], params, CORPUS.document_splits, CORPUS)
    assert [(s.start, s.end, s.score) for s in segments] == [(f.start, f.end, float(f.score)) for f in search]
    for number, segment in enumerate(segments, 1):
        first, last = CORPUS.chunks[segment.start], CORPUS.chunks[segment.end - 1]
        document = CORPUS.document_of(segment.start)
        assert segment.number == number and segment.label == f"S{number}"
        assert (segment.doc_id, segment.doc_name) == (document.doc_id, document.name)
        assert (segment.first_chunk, segment.last_chunk) == (first.index, last.index)
        assert segment.text == document.text[segment.start_char : segment.end_char]
        assert (segment.start_char, segment.end_char) == (first.start, last.end)
        assert (segment.first_page, segment.last_page) == (first.first_page, last.last_page)
        negative = {index for index in range(segment.start, segment.end) if values[index] < 0}
        assert set(segment.inner_gaps) | set(segment.edge_padding) == negative
        assert set(segment.gap_chunks) == negative
