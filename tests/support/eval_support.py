"""A small scored set with known chunks and scores, for budget and auto-tune tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rse_core import Document, build_corpus
from rse_core.evaluation.scored_sets import ScoredCase, ScoredSet
from rse_core.evaluation.sets import Case
from rse_core.scoring import Calibration

CHUNK_SIZE = 100
IDENTITY = Calibration("identity")


def numbered_document(chunks: int = 20, name: str = "numbered.txt") -> Document:
    """``chunks`` paragraphs of 90-odd characters, so each becomes one chunk at chunk size 100."""
    text = "\n\n".join(
        f"Paragraph {n:02d} says something plain and unremarkable about topic number {n:02d}." for n in range(chunks)
    )
    return Document.from_text(text, name=name)


def scored_set(cases: Sequence[tuple[str, str, tuple[int, int], Sequence[float]]], chunks: int = 20) -> ScoredSet:
    """A set over one numbered document: each case is (id, kind, gold chunks first-last, raw scores)."""
    document = numbered_document(chunks)
    corpus = build_corpus(document, CHUNK_SIZE)
    assert len(corpus.chunks) == chunks, "each paragraph must be one chunk"
    items = []
    for case_id, kind, (first, last), raw in cases:
        span = (corpus.chunks[first].start, corpus.chunks[last].end)
        case = Case(case_id, f"query {case_id}", kind, document.doc_id, span)
        items.append(ScoredCase(case, corpus, np.asarray(raw, dtype=np.float64), case.query))
    return ScoredSet("synthetic", "fake", IDENTITY, CHUNK_SIZE, tuple(items))
