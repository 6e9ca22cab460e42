"""Span-level evaluation of RSE against top-k on a golden set.

For each golden query the same scores feed three retrievers: RSE, top-k at ``params.top_k``, and
top-k with RSE's character budget. Each is judged on characters: how much of the gold span it
sends (recall), how much of what it sends is gold (precision), whether it covers the span fully,
and how many characters and pieces it sends. Run it as::

    python -m rse_core.evaluate sample_docs/annual_report.golden.json [--preset P] [--scorer S]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from .documents import load_document
from .errors import RSEError
from .golden import QUERY_KINDS, GoldenSet, load_golden_set
from .params import Preset, RSEParams, preset
from .pipeline import ExtractionResult, build_corpus, run_rse
from .scoring import Scorer, ScorerName, get_scorer

METHODS = ("rse", "top_k", "top_k_equal_budget")
METHOD_LABELS = {"rse": "RSE", "top_k": "top-k", "top_k_equal_budget": "top-k, RSE's budget"}


@dataclass(frozen=True)
class SpanScore:
    """How well a set of character ranges covers a gold span."""

    recall: float
    precision: float
    covered: bool
    characters: int
    pieces: int


def merge_ranges(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping ranges (adjacent ones joined)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def span_score(selected: Sequence[tuple[int, int]], gold: tuple[int, int], pieces: int | None = None) -> SpanScore:
    """Character recall/precision of ``selected`` ranges against the ``gold`` range.

    Precision of an empty selection is 0: sending nothing is not precise, it is useless.
    """
    merged = merge_ranges(selected)
    gold_start, gold_end = gold
    overlap = sum(max(0, min(end, gold_end) - max(start, gold_start)) for start, end in merged)
    sent = sum(end - start for start, end in merged)
    gold_length = gold_end - gold_start
    return SpanScore(
        recall=overlap / gold_length if gold_length else 0.0,
        precision=overlap / sent if sent else 0.0,
        covered=overlap == gold_length,
        characters=sent,
        pieces=len(merged) if pieces is None else pieces,
    )


@dataclass(frozen=True)
class QueryEvaluation:
    """One golden query: its scores for each method."""

    id: str
    query: str
    kind: str
    scores: dict[str, SpanScore]

    def row(self) -> dict[str, object]:
        row: dict[str, object] = {"id": self.id, "kind": self.kind, "query": self.query}
        for method, score in self.scores.items():
            for field, value in asdict(score).items():
                row[f"{method}_{field}"] = value
        return row


@dataclass(frozen=True)
class Evaluation:
    """Per-query results and their averages per query kind."""

    golden: GoldenSet
    params: RSEParams
    scorer: str
    queries: tuple[QueryEvaluation, ...]

    def summary(self) -> list[dict[str, object]]:
        """Mean recall, precision, full-coverage rate, characters and pieces per kind and method."""
        rows = []
        kinds = [kind for kind in QUERY_KINDS if any(q.kind == kind for q in self.queries)] + ["all"]
        for kind in kinds:
            chosen = [q for q in self.queries if kind in ("all", q.kind)]
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

    def to_dict(self) -> dict[str, object]:
        return {
            "document": self.golden.document,
            "scorer": self.scorer,
            "parameters": self.params.to_dict(),
            "queries": [q.row() for q in self.queries],
            "summary": self.summary(),
        }


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def score_result(result: ExtractionResult, gold: tuple[int, int]) -> dict[str, SpanScore]:
    """Judge RSE and both top-k baselines of one result against a gold span (one document)."""
    chunks = result.corpus.chunks

    def chunk_ranges(indices: Sequence[int]) -> list[tuple[int, int]]:
        return [(chunks[i].start, chunks[i].end) for i in indices]

    return {
        "rse": span_score([(s.start_char, s.end_char) for s in result.segments], gold, pieces=len(result.segments)),
        "top_k": span_score(chunk_ranges(result.top_k), gold, pieces=len(result.top_k)),
        "top_k_equal_budget": span_score(
            chunk_ranges(result.top_k_equal_budget), gold, pieces=len(result.top_k_equal_budget)
        ),
    }


def evaluate(
    golden: GoldenSet,
    params: RSEParams | None = None,
    scorer: Scorer | str | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> Evaluation:
    """Run RSE and the top-k baselines on every golden query of one document.

    Raises:
        GoldenSetError: the stored offsets no longer match the document's phrases.
    """
    from .golden import GoldenSetError

    params = params or RSEParams()
    scorer = get_scorer(scorer or ScorerName.MINILM) if scorer is None or isinstance(scorer, str) else scorer
    document = load_document(golden.document_path)
    problems = golden.check_offsets(document.text)
    if problems:
        raise GoldenSetError("Golden offsets do not match the document: " + "; ".join(problems))
    corpus = build_corpus(document, params.chunk_size)
    evaluations = []
    for number, query in enumerate(golden.queries):
        if progress is not None:
            progress(number / len(golden.queries), f"Query {query.id}")
        raw = scorer.score(query.query, corpus.chunks)
        result = run_rse(corpus, [query.query], [raw], params, scorer.calibration, scorer=scorer.name)
        evaluations.append(
            QueryEvaluation(query.id, query.query, query.kind, score_result(result, (query.start_char, query.end_char)))
        )
    return Evaluation(golden, params, scorer.name, tuple(evaluations))


def format_table(evaluation: Evaluation) -> str:
    """Per-query lines, then averages per kind, as fixed-width text."""
    lines = [f"{evaluation.golden.document}  scorer={evaluation.scorer}", ""]
    header = f"{'id':<7}{'kind':<8}" + "".join(f"{METHOD_LABELS[m]:>26}" for m in METHODS)
    lines += [header, f"{'':<15}" + "".join(f"{'rec  prec  chars':>26}" for _ in METHODS)]
    for q in evaluation.queries:
        cells = "".join(
            f"{s.recall:>10.2f}{s.precision:>6.2f}{s.characters:>7}{'*' if s.covered else ' ':>3}"
            for s in (q.scores[m] for m in METHODS)
        )
        lines.append(f"{q.id:<7}{q.kind:<8}{cells}")
    summary_header = f"{'kind':<9}{'method':<22}{'recall':>7}{'prec':>7}{'covered':>9}{'chars':>8}{'pieces':>8}"
    lines += ["", "* = gold span fully covered", "", summary_header]
    for row in evaluation.summary():
        lines.append(
            f"{row['kind']:<9}{METHOD_LABELS[row['method']]:<22}{row['recall']:>7.2f}{row['precision']:>7.2f}"
            f"{row['covered']:>9.2f}{row['characters']:>8.0f}{row['pieces']:>8.1f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rse_core.evaluate", description=__doc__.split("\n\n")[0])
    parser.add_argument("golden", nargs="+", help="golden-set JSON file(s)")
    parser.add_argument("--preset", default=Preset.DEFAULT.value, choices=[p.value for p in Preset])
    parser.add_argument("--scorer", default=ScorerName.MINILM.value, choices=[s.value for s in ScorerName])
    parser.add_argument("--json", type=Path, help="write per-query rows and the summary as JSON")
    parser.add_argument("--csv", type=Path, help="write per-query rows as CSV")
    args = parser.parse_args(argv)
    try:
        params = preset(args.preset)
        scorer = get_scorer(args.scorer)
        evaluations = [evaluate(load_golden_set(path), params, scorer) for path in args.golden]
    except RSEError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n\n".join(format_table(evaluation) for evaluation in evaluations))
    if args.json:
        args.json.write_text(json.dumps([e.to_dict() for e in evaluations], indent=2), encoding="utf-8")
    if args.csv:
        rows = [{"document": e.golden.document, **q.row()} for e in evaluations for q in e.queries]
        with args.csv.open("w", newline="", encoding="utf-8") as file:
            writer = csv.DictWriter(file, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
