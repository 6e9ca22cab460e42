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

import argparse
import csv
import io
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .cli_support import OneLineParser, add_scoring_switches, fail, run
from .documents import Document, load_document
from .errors import RSEError
from .golden import QUERY_KINDS, GoldenSet, GoldenSetError, load_golden_set
from .params import Preset, RSEParams, preset
from .pipeline import Corpus, ExtractedSegment, ExtractionResult, build_corpus, normalize_queries, run_rse
from .scoring import Scorer, ScorerName, get_scorer
from .topk import WindowSegment

METHODS = ("rse", "top_k", "top_k_equal_budget", "window", "window_equal_budget")
METHOD_LABELS = {
    "rse": "RSE",
    "top_k": "top-k",
    "top_k_equal_budget": "top-k, RSE's budget",
    "window": "window",
    "window_equal_budget": "window, RSE's budget",
}
SCORE_FIELDS = ("recall", "precision", "covered", "characters", "pieces")

ScoreFn = Callable[[str], np.ndarray]
"""``score_fn(query) -> raw scores`` for every chunk of the corpus (e.g. read from a cache)."""


@dataclass(frozen=True)
class SpanScore:
    """How well a set of character ranges covers a gold span."""

    recall: float
    precision: float
    covered: bool
    characters: int
    pieces: int


def merge_ranges(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping ranges (adjacent ones joined, empty ones dropped)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def span_score(
    selected: Sequence[tuple[int, int]],
    gold: tuple[int, int],
    pieces: int | None = None,
    other_characters: int = 0,
) -> SpanScore:
    """Character recall/precision of ``selected`` ranges against the ``gold`` range.

    recall = |selected ∩ gold| / |gold|; precision = |selected ∩ gold| / |selected|, where
    overlapping selected ranges count once. ``other_characters`` were sent from other documents:
    they add to what is sent, never to the overlap.

    Precision of an empty selection is 0: sending nothing is not precise, it is useless.
    """
    merged = merge_ranges(selected)
    gold_start, gold_end = gold
    overlap = sum(max(0, min(end, gold_end) - max(start, gold_start)) for start, end in merged)
    sent = sum(end - start for start, end in merged) + other_characters
    gold_length = gold_end - gold_start
    return SpanScore(
        recall=overlap / gold_length if gold_length else 0.0,
        precision=overlap / sent if sent else 0.0,
        covered=gold_length > 0 and overlap == gold_length,
        characters=sent,
        pieces=len(merged) if pieces is None else pieces,
    )


@dataclass(frozen=True)
class QueryEvaluation:
    """One golden query: what each method sent and how it scored.

    ``segments`` are RSE's segments; ``top_k`` and ``top_k_equal_budget`` are corpus chunk
    indices, best first (``Evaluation.corpus`` turns them into chunks); ``window`` and
    ``window_equal_budget`` are the fixed-window baseline's segments, in document order.
    """

    id: str
    query: str
    kind: str
    gold: tuple[int, int]
    scores: dict[str, SpanScore]
    segments: tuple[ExtractedSegment, ...] = ()
    top_k: tuple[int, ...] = ()
    top_k_equal_budget: tuple[int, ...] = ()
    window: tuple[WindowSegment, ...] = ()
    window_equal_budget: tuple[WindowSegment, ...] = ()

    def row(self) -> dict[str, object]:
        """id, kind, query and ``<method>_<field>`` for every method and score field."""
        row: dict[str, object] = {"id": self.id, "kind": self.kind, "query": self.query}
        for method, score in self.scores.items():
            for field, value in asdict(score).items():
                row[f"{method}_{field}"] = value
        return row


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


def summarize(queries: Sequence[QueryEvaluation]) -> list[dict[str, object]]:
    """Mean of every score field per query kind (in :data:`QUERY_KINDS` order, then "all") and method.

    Kinds outside :data:`QUERY_KINDS` (FinanceBench's question types) follow in order of appearance.
    Each query counts once, so pooling several golden sets weights them by their query counts.
    """
    rows = []
    kinds = [kind for kind in QUERY_KINDS if any(q.kind == kind for q in queries)]
    kinds += [*dict.fromkeys(q.kind for q in queries if q.kind not in QUERY_KINDS), "all"]
    for kind in kinds:
        chosen = [q for q in queries if kind in ("all", q.kind)]
        for method in METHODS:
            scores = [q.scores[method] for q in chosen]
            rows.append(
                {
                    "kind": kind,
                    "method": method,
                    "queries": len(scores),
                    "recall": _mean(s.recall for s in scores),
                    "precision": _mean(s.precision for s in scores),
                    "covered": _mean(float(s.covered) for s in scores),
                    "characters": _mean(s.characters for s in scores),
                    "pieces": _mean(s.pieces for s in scores),
                }
            )
    return rows


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def score_result(result: ExtractionResult, gold: tuple[int, int], doc_id: str | None = None) -> dict[str, SpanScore]:
    """Judge RSE and the baselines (top-k, window, each also at RSE's budget) against a gold span.

    ``gold`` are offsets into the document ``doc_id`` (default: the corpus' only document).
    Characters sent from other documents of the corpus count as sent, never as gold.
    """
    corpus = result.corpus
    if doc_id is None:
        if len(corpus.documents) != 1:
            raise RSEError("The corpus holds several documents; say which one the gold span is in (doc_id).")
        doc_id = corpus.documents[0].doc_id

    def judge(ranges: list[tuple[str, int, int]], pieces: int) -> SpanScore:
        inside = [(start, end) for owner, start, end in ranges if owner == doc_id]
        # Offsets are per document: overlaps are merged within each other document, never across.
        others = {owner for owner, _, _ in ranges if owner != doc_id}
        outside = sum(
            end - start for other in others for start, end in merge_ranges([(s, e) for o, s, e in ranges if o == other])
        )
        return span_score(inside, gold, pieces=pieces, other_characters=outside)

    def chunk_ranges(indices: Sequence[int]) -> list[tuple[str, int, int]]:
        return [(corpus.chunks[i].doc_id, corpus.chunks[i].start, corpus.chunks[i].end) for i in indices]

    def window_ranges(segments: Sequence[WindowSegment]) -> list[tuple[str, int, int]]:
        return [
            (corpus.chunks[s.start].doc_id, corpus.chunks[s.start].start, corpus.chunks[s.end - 1].end)
            for s in segments
        ]

    return {
        "rse": judge([(s.doc_id, s.start_char, s.end_char) for s in result.segments], len(result.segments)),
        "top_k": judge(chunk_ranges(result.top_k), len(result.top_k)),
        "top_k_equal_budget": judge(chunk_ranges(result.top_k_equal_budget), len(result.top_k_equal_budget)),
        "window": judge(window_ranges(result.window), len(result.window)),
        "window_equal_budget": judge(window_ranges(result.window_equal_budget), len(result.window_equal_budget)),
    }


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
    if corpus is not None:
        document = find_document(corpus, golden.document_name)
    elif document is None:
        document = load_document(golden.document_path)
    golden.validate_document(document.text)
    if corpus is None:
        corpus = build_corpus(document, params.chunk_size, headers=params.chunk_headers)
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
            QueryEvaluation(
                id=query.id,
                query=query.query,
                kind=query.kind,
                gold=query.span,
                scores=score_result(result, query.span, document.doc_id),
                segments=result.segments,
                top_k=result.top_k,
                top_k_equal_budget=result.top_k_equal_budget,
                window=result.window,
                window_equal_budget=result.window_equal_budget,
            )
        )
    return Evaluation(golden, params, scorer.name, tuple(evaluations), corpus, document)


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
    """The per-kind averages as a Markdown table (what the README shows)."""
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


_PARAM_OPTIONS = ("window", "top_k", "chunk_headers", "per_document_calibration")
"""Command-line options that override a field of the preset's parameters."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; every failure is one line on stderr and exit status 2."""
    return run(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = OneLineParser(prog="python -m rse_core.evaluate", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "golden",
        nargs="*",
        help="golden-set JSON file(s), or set names (samples, external, financebench); default: every set",
    )
    parser.add_argument("--set", dest="sets", action="append", default=[], help="a named set to run (repeatable)")
    parser.add_argument("--preset", default=Preset.DEFAULT.value, choices=[p.value for p in Preset])
    parser.add_argument("--scorer", default=ScorerName.MINILM.value, choices=[s.value for s in ScorerName])
    parser.add_argument(
        "--window", type=int, help="neighbouring chunks the window baseline adds on each side of a top-k hit"
    )
    parser.add_argument("--top-k", type=int, help="chunks in the top-k baseline (and hits of the window baseline)")
    add_scoring_switches(parser)
    parser.add_argument("--json", type=Path, help="write every evaluation (per-query rows and summary) as JSON")
    parser.add_argument("--csv", type=Path, help="write per-query rows of all golden sets as CSV")
    parser.add_argument(
        "--markdown", action="store_true", help="also print the summary over all golden sets as a Markdown table"
    )
    parser.add_argument("--tune", action="store_true", help="auto-tune on the (first) named set, score on the others")
    parser.add_argument("--budget", type=float, default=8000.0, help="characters per query for --tune (default 8000)")
    parser.add_argument("--limit", type=int, help="only the first N queries of each named set (a quick run)")
    parser.add_argument("--curves", action="store_true", help="also print every curve point")
    args = parser.parse_args(argv)
    from .eval_sets import SetName

    names = [value for value in SetName]
    sets = list(args.sets) + [item for item in args.golden if item in names]
    files = [item for item in args.golden if item not in names]
    if files and (sets or args.tune):
        fail("give golden-set files or set names, not both (--tune needs a set name).")
    if not files:
        return _main_sets(args, sets)
    try:
        params = preset(args.preset)
        changes = {name: getattr(args, name) for name in _PARAM_OPTIONS if getattr(args, name) is not None}
        params = params.with_changes(**changes)
        scorer = get_scorer(args.scorer)
        evaluations = [evaluate(load_golden_set(path), params, scorer) for path in files]
    except RSEError as error:
        fail(str(error))
    print("\n\n".join(format_table(evaluation) for evaluation in evaluations))
    pooled = summarize([q for evaluation in evaluations for q in evaluation.queries])
    if len(evaluations) > 1:
        total = sum(len(evaluation.queries) for evaluation in evaluations)
        print(f"\n\nAll {len(evaluations)} golden sets ({total} queries, each counts once)  scorer={scorer.name}\n")
        print("\n".join(format_summary(pooled)))
    if args.markdown:
        print("\n" + format_markdown(pooled))
    try:
        if args.json:
            args.json.write_text(
                json.dumps([evaluation.to_dict() for evaluation in evaluations], indent=2, ensure_ascii=False) + "\n",
                encoding="utf-8",
            )
        if args.csv:
            args.csv.write_text(rows_to_csv([row for evaluation in evaluations for row in evaluation.rows()]), "utf-8")
    except OSError as error:
        fail(f"could not write {error.filename}: {error.strerror or error}")
    return 0


def _main_sets(args: argparse.Namespace, names: list[str]) -> int:
    """Named sets side by side (every set when none is named); ``--tune`` tunes on the first."""
    from .autotune import tune
    from .eval_sets import SetName, corpus_missing_message
    from .report import format_areas, format_cross_set, format_kinds, format_sets, run_set
    from .targets import format_targets

    explicit = bool(names)
    try:
        chosen = [SetName.parse(name) for name in dict.fromkeys(names)] or list(SetName)
        if args.tune and not explicit:
            raise RSEError("--tune needs the set to tune on, e.g. python -m rse_core.evaluate samples --tune.")
        missing = corpus_missing_message()
        if missing and not explicit:
            print(f"note: {missing} Running the samples only.", file=sys.stderr)
            chosen = [SetName.SAMPLES]
        params = preset(args.preset)
        changes = {name: getattr(args, name) for name in _PARAM_OPTIONS if getattr(args, name) is not None}
        params = params.with_changes(**changes)
        scorer = get_scorer(args.scorer)
        to_run = [*chosen, *(s for s in SetName if args.tune and s not in chosen and not missing)]
        reports = []
        for name in to_run:
            print(f"scoring {name.value} with {scorer.name}...", file=sys.stderr, flush=True)
            reports.append(run_set(name, scorer, params, args.limit))
        tuned = tune(reports[0].scored, args.budget, params) if args.tune else None
    except RSEError as error:
        fail(str(error))
    print(f"scorer={scorer.name}  preset={args.preset}  chunk size {params.chunk_size}  window {params.window}\n")
    print(format_sets(reports, args.markdown))
    print(f"\nTargets (scorer {scorer.name}, preset {args.preset}, headers {'on' if params.chunk_headers else 'off'}):")
    print(format_targets(reports))
    print("\nPer kind: recall at equal characters, and the areas under recall vs characters up to 12,000")
    print(format_kinds(reports, args.markdown))
    if args.curves:
        print("\n" + format_areas(reports))
    if tuned is not None:
        print(f"\n{tuned.message}")
        print(format_cross_set(tuned, reports, args.markdown))
    if args.json:
        data = [
            {
                "set": report.name,
                "summary": report.evaluation.summary(),
                "kinds": [report.row(k) for k in report.curves],
            }
            for report in reports
        ]
        args.json.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
