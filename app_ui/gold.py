"""Gold spans of the bundled golden sets, as chunk ranges of the current corpus.

When the query is one of a sample golden set's (typed, picked in Evaluate, or the sample's
showcase query), Explore shades the chunks that hold its gold answer under the bars: a class then
sees which low-valued chunks inside a segment are part of the answer (real gaps) and which kept
chunks are padding around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rse_core import Corpus
from rse_core.evaluation.golden import GoldenQuery, GoldenSet

from .samples import list_samples


@dataclass(frozen=True)
class GoldSpan:
    """A golden query's answer as corpus chunks ``start:end`` (end exclusive)."""

    query_id: str
    kind: str
    query_number: int  # which of the run's queries (0-based)
    start: int
    end: int
    start_char: int
    end_char: int

    @property
    def label(self) -> str:
        return f"gold {self.query_id}"


def _same_query(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def chunk_range(corpus: Corpus, doc_id: str, span: tuple[int, int]) -> tuple[int, int] | None:
    """Corpus chunks ``start:end`` of document ``doc_id`` that the character span touches."""
    first, last = span
    touched = [
        index
        for index, chunk in enumerate(corpus.chunks)
        if chunk.doc_id == doc_id and chunk.start < last and chunk.end > first
    ]
    return (touched[0], touched[-1] + 1) if touched else None


def gold_spans(corpus: Corpus, queries: tuple[str, ...], golden_sets: list[GoldenSet] | None = None) -> list[GoldSpan]:
    """The gold spans of ``queries`` found in the golden sets of the corpus' documents."""
    sets = golden_sets if golden_sets is not None else [sample.golden for sample in list_samples().values()]
    by_name = {golden.document_name: golden for golden in sets}
    spans: list[GoldSpan] = []
    for document in corpus.documents:
        golden = by_name.get(Path(document.name).name)
        if golden is None:
            continue
        for number, query in enumerate(queries):
            match: GoldenQuery | None = next((q for q in golden.queries if _same_query(q.query, query)), None)
            if match is None or match.end_char > len(document.text):
                continue
            chunks = chunk_range(corpus, document.doc_id, match.span)
            if chunks is not None:
                spans.append(GoldSpan(match.id, match.kind, number, *chunks, *match.span))
    return spans
