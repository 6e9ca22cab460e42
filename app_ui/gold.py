"""Gold spans as chunk ranges of the current corpus: the bundled golden sets', the user's own
golden set, and the span last dragged on a PDF's pages.

When the query is one of a golden set's (typed, picked in Evaluate, or the sample's showcase
query), Explore shades the chunks that hold its gold answer under the bars: a class then sees which
low-valued chunks inside a segment are part of the answer (real gaps) and which kept chunks are
padding around it, and a tuner sees recall and precision against it move with every slider.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from rse_core import Corpus, ExtractionResult
from rse_core.evaluation.golden import GoldenQuery, GoldenSet, same_query
from rse_core.evaluation.metrics import SpanScore, score_result

from .samples import list_samples


class GoldSource(StrEnum):
    """Where a gold span comes from (Explore's caption names a dragged span by its value)."""

    SAMPLE = "the sample's golden set"
    MINE = "my golden set (Evaluate)"
    DRAGGED = "the span selected on the page"


ANY_QUERY = -1
"""The ``query_number`` of a span that is not any query's answer (one dragged on a page): it goes with whichever
query is charted."""


@dataclass(frozen=True)
class GoldSpan:
    """A gold answer as corpus chunks ``start:end`` (end exclusive) and characters of document ``doc_id``."""

    query_id: str
    kind: str
    query_number: int  # which of the run's queries (0-based), or ANY_QUERY
    start: int
    end: int
    start_char: int
    end_char: int
    doc_id: str = ""
    source: GoldSource = GoldSource.SAMPLE

    @property
    def label(self) -> str:
        return "selected span" if self.source is GoldSource.DRAGGED else f"gold {self.query_id}"

    def answers(self, query_number: int) -> bool:
        return self.query_number in (query_number, ANY_QUERY)

    def score(self, result: ExtractionResult) -> dict[str, SpanScore]:
        """How RSE and the baselines of ``result`` cover this span (the Evaluate page's judge)."""
        return score_result(result, (self.start_char, self.end_char), self.doc_id)


def chunk_range(corpus: Corpus, doc_id: str, span: tuple[int, int]) -> tuple[int, int] | None:
    """Corpus chunks ``start:end`` of document ``doc_id`` that the character span touches."""
    first, last = span
    touched = [
        index
        for index, chunk in enumerate(corpus.chunks)
        if chunk.doc_id == doc_id and chunk.start < last and chunk.end > first
    ]
    return (touched[0], touched[-1] + 1) if touched else None


def gold_spans(
    corpus: Corpus,
    queries: tuple[str, ...],
    golden_sets: list[GoldenSet] | None = None,
    source: GoldSource = GoldSource.SAMPLE,
) -> list[GoldSpan]:
    """The gold spans of ``queries`` found in the golden sets of the corpus' documents."""
    sets = golden_sets if golden_sets is not None else [sample.golden for sample in list_samples().values()]
    by_name = {golden.document_name: golden for golden in sets}
    spans: list[GoldSpan] = []
    for document in corpus.documents:
        golden = by_name.get(Path(document.name).name)
        if golden is None:
            continue
        for number, query in enumerate(queries):
            match: GoldenQuery | None = next((q for q in golden.queries if same_query(q.query, query)), None)
            if match is None or match.end_char > len(document.text):
                continue
            chunks = chunk_range(corpus, document.doc_id, match.span)
            if chunks is not None:
                spans.append(GoldSpan(match.id, match.kind, number, *chunks, *match.span, document.doc_id, source))
    return spans


def all_gold_spans(
    corpus: Corpus, queries: tuple[str, ...], mine: GoldenSet | None, dragged: tuple[str, int, int] | None
) -> list[GoldSpan]:
    """The samples' gold spans of ``queries``, then those of the user's golden set, then the dragged span
    ``(doc_id, start_char, end_char)`` when it lies in the corpus."""
    spans = gold_spans(corpus, queries)
    if mine is not None:
        spans += gold_spans(corpus, queries, [mine], GoldSource.MINE)
    if dragged is not None:
        doc_id, start_char, end_char = dragged
        chunks = chunk_range(corpus, doc_id, (start_char, end_char))
        if chunks is not None:
            spans.append(GoldSpan("", "", ANY_QUERY, *chunks, start_char, end_char, doc_id, GoldSource.DRAGGED))
    return spans


@dataclass(frozen=True)
class GoldScore:
    """RSE's recall and precision against the gold spans given (means over several),
    and top-k's recall at RSE's characters for contrast."""

    recall: float
    precision: float
    top_k_recall: float
    spans: int


def gold_score(result: ExtractionResult, spans: Sequence[GoldSpan]) -> GoldScore | None:
    """``None`` when there is no gold span to judge against."""
    if not spans:
        return None
    scores = [span.score(result) for span in spans]
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    return GoldScore(
        recall=mean([score["rse"].recall for score in scores]),
        precision=mean([score["rse"].precision for score in scores]),
        top_k_recall=mean([score["top_k_equal_budget"].recall for score in scores]),
        spans=len(spans),
    )
