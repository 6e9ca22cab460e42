"""Chunks tile the text exactly, respect the size limit and avoid splitting words."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core import Document, ParameterError, chunk_document


@settings(max_examples=300, deadline=None)
@given(text=st.text(min_size=1, max_size=3000), chunk_size=st.integers(50, 900))
def test_chunks_rebuild_any_text_exactly(text, chunk_size):
    document = Document(doc_id="d", name="t.txt", title="t", text=text)
    chunks = chunk_document(document, chunk_size)
    assert "".join(chunk.text for chunk in chunks) == text
    assert all(0 < len(chunk) <= chunk_size for chunk in chunks)
    assert [chunk.index for chunk in chunks] == list(range(len(chunks)))
    assert all(a.end == b.start for a, b in itertools.pairwise(chunks))
    assert all(chunk.text == text[chunk.start : chunk.end] for chunk in chunks)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=12), min_size=1, max_size=400))
def test_words_are_never_split_when_the_window_has_whitespace(words):
    text = " ".join(words)
    chunks = chunk_document(Document(doc_id="d", name="t.txt", title="t", text=text), 60)
    for chunk in chunks[:-1]:
        assert chunk.text.endswith(" "), repr(chunk.text)


def test_cuts_prefer_sentence_ends():
    sentence = "This sentence has exactly eight words in it. "
    text = sentence * 40
    chunks = chunk_document(Document.from_text(text), 200)
    assert all(chunk.text.endswith(". ") for chunk in chunks[:-1])


def test_a_token_longer_than_the_window_is_cut_hard():
    text = "x" * 250
    chunks = chunk_document(Document.from_text(text), 100)
    assert [len(chunk) for chunk in chunks] == [100, 100, 50]


def test_document_shorter_than_one_chunk_is_one_chunk():
    chunks = chunk_document(Document.from_text("Short note."), 800)
    assert len(chunks) == 1 and chunks[0].text == "Short note."


def test_chunks_know_their_pages():
    document = Document(
        doc_id="d",
        name="x.pdf",
        title="x",
        text="a" * 100 + "b" * 100 + "c" * 100,
        page_starts=(0, 100, 200),
        kind="pdf",
    )
    chunks = chunk_document(document, 150)
    assert (chunks[0].first_page, chunks[0].last_page) == (1, 2)
    assert (chunks[1].first_page, chunks[1].last_page) == (2, 3)
    assert chunks[1].pages == "pp. 2-3"


@pytest.mark.parametrize("size", [0, 10, 49, 2.5, "800"])
def test_too_small_or_invalid_chunk_size_is_refused(size):
    with pytest.raises(ParameterError, match="chunk_size"):
        chunk_document(Document.from_text("Some text."), size)
