"""Span-level evaluation of RSE against top-k on a golden set.

For each golden query the same scores feed five retrievers: RSE, top-k at ``params.top_k``,
top-k with RSE's character budget, the fixed window (each top-k hit grown by ``params.window``
chunks on both sides) and the fixed window with RSE's character budget. Each is judged on
characters: how much of the gold span it sends (recall), how much of what it sends is gold
(precision), whether it covers the span fully, and how many characters and pieces it sends. Run it as::

    python -m rse_core.evaluate sample_docs/*.golden.json [--preset P] [--scorer S] [--window W]
        [--json F] [--csv F] [--markdown]

The app evaluates from its cached scores: pass ``corpus`` and ``score_fn`` to :func:`evaluate`
and nothing is scored twice; the numbers are the same as the CLI's for the same scores.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rse_core.documents import Document, load_document
from rse_core.evaluation.golden import GoldenSet, GoldenSetError
from rse_core.evaluation.metrics import METHOD_LABELS, METHODS, QueryEvaluation, SpanScore, query_evaluation, summarize
from rse_core.params import RSEParams
from rse_core.pipeline import Corpus, ExtractedSegment, build_corpus, normalize_queries, run_rse
from rse_core.scoring import Scorer, ScorerName, get_scorer
from rse_core.topk import WindowSegment

ScoreFn = Callable[[str], np.ndarray]
"""``score_fn(query) -> raw scores`` for every chunk of the corpus (e.g. read from a cache)."""


@dataclass(frozen=True)
class Evaluation:
    """Per-query results on one golden set, and their averages per query kind."""

    golden: GoldenSet
    params: RSEParams
    scorer: str
    queries: tuple[QueryEvaluation, ...]
    corpus: Corpus | None = None
    document: Document | None = None

    def summary(self) -> list[dict[str, object]]:
        """Mean recall, precision, full-coverage rate, characters and pieces per kind and method."""
        return summarize(self.queries)

    def chunk_numbers(self, indices: Iterable[int]) -> list[int]:
        """Chunk numbers within their document for corpus ``indices`` (unchanged without a corpus)."""
        if self.corpus is None:
            return list(indices)
        return [self.corpus.chunks[index].index for index in indices]

    def gold_chunks(self, query: QueryEvaluation) -> tuple[int, int] | None:
        """First and last chunk number (inclusive) of the golden document that the gold span touches."""
        if self.corpus is None or self.document is None:
            return None
        start, end = query.gold
        touched = [
            chunk.index
            for chunk in self.corpus.chunks
            if chunk.doc_id == self.document.doc_id and chunk.start < end and chunk.end > start
        ]
        return (touched[0], touched[-1]) if touched else None

    def rows(self) -> list[dict[str, object]]:
        """One flat row per query (the CSV): scores, the gold span and what each method sent."""
        rows = []
        for query in self.queries:
            row = {"document": self.golden.document_name, **query.row()}
            row["gold_start_char"], row["gold_end_char"] = query.gold
            row["rse_segments"] = " ".join(self._segment_label(segment) for segment in query.segments)
            row["top_k_chunks"] = " ".join(str(n) for n in self.chunk_numbers(query.top_k))
            row["top_k_equal_budget_chunks"] = " ".join(str(n) for n in self.chunk_numbers(query.top_k_equal_budget))
            row["window_segments"] = " ".join(self._run_label(s.start, s.end) for s in query.window)
            row["window_equal_budget_segments"] = " ".join(
                self._run_label(s.start, s.end) for s in query.window_equal_budget
            )
            rows.append(row)
        return rows

    def _segment_label(self, segment: ExtractedSegment) -> str:
        """``"12-18"`` (chunk numbers, inclusive), prefixed by the file name in a corpus of several."""
        chunks = (
            str(segment.first_chunk)
            if segment.first_chunk == segment.last_chunk
            else f"{segment.first_chunk}-{segment.last_chunk}"
        )
        several = self.corpus is not None and len(self.corpus.documents) > 1
        return f"{segment.doc_name}:{chunks}" if several else chunks

    def _run_label(self, start: int, end: int) -> str:
        """Like :meth:`_segment_label` for corpus chunks ``start:end`` (corpus indices without a corpus)."""
        if self.corpus is None:
            return str(start) if end - start == 1 else f"{start}-{end - 1}"
        first, last = self.corpus.chunks[start], self.corpus.chunks[end - 1]
        chunks = str(first.index) if start == end - 1 else f"{first.index}-{last.index}"
        if len(self.corpus.documents) > 1:
            return f"{self.corpus.document_of(start).name}:{chunks}"
        return chunks

    def to_dict(self) -> dict[str, object]:
        """The JSON: set-up, one entry per query (scores and what was sent), and the summary."""
        queries = []
        for query, row in zip(self.queries, self.rows(), strict=True):
            row = {key: value for key, value in row.items() if not key.endswith(("_segments", "_chunks"))}
            row["rse_segments"] = [
                {
                    "doc": segment.doc_name,
                    "first_chunk": segment.first_chunk,
                    "last_chunk": segment.last_chunk,
                    "start_char": segment.start_char,
                    "end_char": segment.end_char,
                    "score": segment.score,
                }
                for segment in query.segments
            ]
            row["top_k_chunks"] = self.chunk_numbers(query.top_k)
            row["top_k_equal_budget_chunks"] = self.chunk_numbers(query.top_k_equal_budget)
            for method in ("window", "window_equal_budget"):
                row[f"{method}_segments"] = [self._window_dict(s) for s in getattr(query, method)]
            queries.append(row)
        return {
            "document": self.golden.document,
            "scorer": self.scorer,
            "parameters": self.params.to_dict(),
            "queries": queries,
            "summary": self.summary(),
        }

    def _window_dict(self, segment: WindowSegment) -> dict[str, object]:
        if self.corpus is None:
            return {"first_chunk": segment.start, "last_chunk": segment.end - 1}
        first, last = self.corpus.chunks[segment.start], self.corpus.chunks[segment.end - 1]
        return {
            "doc": self.corpus.document_of(segment.start).name,
            "first_chunk": first.index,
            "last_chunk": last.index,
            "start_char": first.start,
            "end_char": last.end,
            "hits": self.chunk_numbers(segment.hits),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def to_csv(self) -> str:
        return rows_to_csv(self.rows())


def rows_to_csv(rows: Sequence[dict[str, object]]) -> str:
    """Rows of equal keys as CSV text (header from the first row); empty string for no rows."""
    if not rows:
        return ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def find_document(corpus: Corpus, name: str) -> Document:
    """The corpus document whose file name is ``name`` (how a golden set names its document)."""
    for document in corpus.documents:
        if Path(document.name).name == name:
            return document
    names = ", ".join(document.name for document in corpus.documents)
    raise GoldenSetError(f"The golden set is for {name}, which is not among the documents ({names}).")


def evaluate(
    golden: GoldenSet,
    params: RSEParams | None = None,
    scorer: Scorer | str | None = None,
    progress: Callable[[float, str], None] | None = None,
    *,
    document: Document | None = None,
    corpus: Corpus | None = None,
    score_fn: ScoreFn | None = None,
) -> Evaluation:
    """Run RSE and the baselines (top-k, window) on every golden query of one document.

    Args:
        golden: the golden set.
        params: RSE parameters (default ``RSEParams()``).
        scorer: a scorer or its name (default minilm). With ``score_fn`` it only supplies the
            calibration and its name.
        progress: called with (fraction, label) before each query.
        document: the golden set's document, already loaded (default: load ``golden.document_path``).
        corpus: the chunked documents to search (default: ``document`` alone at
            ``params.chunk_size``). May hold other documents too; the golden document is found in it
            by file name, and what is sent from the others counts against precision.
        score_fn: raw scores of the corpus' chunks for a query (default: ``scorer.score``). The
            app passes its score cache here, so nothing is scored twice.

    Raises:
        GoldenSetError: the golden document is not in the corpus, or a span lies outside the
            document or no longer matches its phrases.
        RSEError: from loading, scoring or the parameters.
    """
    params = params or RSEParams()
    scorer = get_scorer(scorer or ScorerName.MINILM) if scorer is None or isinstance(scorer, str) else scorer
    document, corpus = _golden_document_and_corpus(golden, params, document, corpus)
    if score_fn is None:
        chunks = corpus.chunks

        def score_fn(query: str) -> np.ndarray:
            return scorer.score(query, chunks)

    evaluations = []
    for number, query in enumerate(golden.queries):
        if progress is not None:
            progress(number / len(golden.queries), f"Query {query.id}")
        queries, notes = normalize_queries(query.query)
        result = run_rse(
            corpus, queries, [score_fn(queries[0])], params, scorer.calibration, scorer=scorer.name, notes=notes
        )
        evaluations.append(
            query_evaluation(
                result, id=query.id, query=query.query, kind=query.kind, gold=query.span, doc_id=document.doc_id
            )
        )
    return Evaluation(golden, params, scorer.name, tuple(evaluations), corpus, document)


def _golden_document_and_corpus(
    golden: GoldenSet, params: RSEParams, document: Document | None, corpus: Corpus | None
) -> tuple[Document, Corpus]:
    """The golden set's document (found in ``corpus``, given, or loaded), checked against its spans,
    and the corpus to search (``document`` alone when none is given)."""
    if corpus is not None:
        document = find_document(corpus, golden.document_name)
    elif document is None:
        document = load_document(golden.document_path)
    golden.validate_document(document.text)
    if corpus is None:
        corpus = build_corpus(document, params.chunk_size, headers=params.chunk_headers)
    return document, corpus


# ------------------------------------------------------------------------------------ text table

_CELL = 21  # recall, precision, characters and the covered mark of one method


def _cell(score: SpanScore) -> str:
    return f"{score.recall:>6.2f}{score.precision:>6.2f}{score.characters:>7} {'*' if score.covered else ' '}"


def format_table(evaluation: Evaluation) -> str:
    """Per-query lines, then averages per kind, as fixed-width text."""
    lines = [
        f"{evaluation.golden.document_name}  scorer={evaluation.scorer}  queries={len(evaluation.queries)}",
        "",
        f"{'':<15}" + "".join(f" | {METHOD_LABELS[m]:^{_CELL}}" for m in METHODS),
        f"{'id':<7}{'kind':<8}" + "".join(f" | {'rec':>6}{'prec':>6}{'chars':>7}  " for _ in METHODS),
    ]
    for q in evaluation.queries:
        lines.append(f"{q.id:<7.7}{q.kind:<8}" + "".join(f" | {_cell(q.scores[m])}" for m in METHODS))
    lines += ["", "* = gold span fully covered; rec/prec = share of the gold span sent / of what is sent that is gold"]
    lines += ["", *format_summary(evaluation.summary())]
    return "\n".join(lines)


def format_summary(summary: Sequence[dict[str, object]]) -> list[str]:
    """The per-kind averages as fixed-width lines."""
    lines = [f"{'kind':<9}{'method':<22}{'recall':>7}{'prec':>7}{'covered':>9}{'chars':>8}{'pieces':>8}"]
    for row in summary:
        lines.append(
            f"{row['kind']:<9}{METHOD_LABELS[row['method']]:<22}{row['recall']:>7.2f}{row['precision']:>7.2f}"
            f"{row['covered']:>9.2f}{row['characters']:>8.0f}{row['pieces']:>8.1f}"
        )
    return lines


def format_markdown(summary: Sequence[dict[str, object]]) -> str:
    """The per-kind averages as a Markdown table (as in docs/evaluation.md)."""
    lines = [
        "| kind (queries) | method | recall | precision | full coverage | characters |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for row in summary:
        lines.append(
            f"| {row['kind']} ({row['queries']}) | {METHOD_LABELS[row['method']]} | {row['recall']:.2f} "
            f"| {row['precision']:.2f} | {row['covered']:.2f} | {row['characters']:,.0f} |"
        )
    return "\n".join(lines)
