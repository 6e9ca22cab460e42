"""Named evaluation sets side by side: the tables ``python -m rse_core.evaluate`` prints.

For each set: RSE's recall, characters per query and first-segment document hit rate at the given
parameters; top-k's recall at RSE's character budget (query by query); the areas under the
recall-vs-characters curves (:mod:`rse_core.evaluation.curves`); and, with ``--tune``, the auto-tuned
setting scored on the other sets (:mod:`rse_core.evaluation.tuning`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rse_core.evaluation.curves import Curve, budget_curves
from rse_core.evaluation.scored_sets import ScoredSet, SetEvaluation, evaluate_scored, score_set
from rse_core.evaluation.sets import SetName, load_eval_set
from rse_core.evaluation.tuning import TuneResult, score_params
from rse_core.params import RSEParams
from rse_core.scoring import Scorer

__all__ = [
    "SetReport",
    "format_areas",
    "format_cross_set",
    "format_kinds",
    "format_sets",
    "run_set",
    "text_table",
]


@dataclass(frozen=True)
class SetReport:
    """One set evaluated at one setting, with its budget curves."""

    name: str
    documents: int
    scored: ScoredSet
    evaluation: SetEvaluation
    curves: dict[str, list[Curve]]

    def row(self, kind: str = "all") -> dict[str, object]:
        """RSE and top-k-at-RSE's-budget figures for one kind (or "all")."""
        summary = [row for row in self.evaluation.summary() if row["kind"] == kind]
        rse = next(row for row in summary if row["method"] == "rse")
        budget = next(row for row in summary if row["method"] == "top_k_equal_budget")
        window = next(row for row in summary if row["method"] == "window_equal_budget")
        areas = {curve.method: curve.area for curve in self.curves.get(kind, [])}
        return {
            "set": self.name,
            "kind": kind,
            "queries": rse["queries"],
            "documents": self.documents,
            "rse_recall": rse["recall"],
            "top_k_budget_recall": budget["recall"],
            "window_budget_recall": window["recall"],
            "characters": rse["characters"],
            "first_hit": rse["first_hit"],
            "empty": sum(1 for q in self.evaluation.queries if kind in ("all", q.kind) and not q.segments),
            "area_rse": areas.get("rse"),
            "area_top_k": areas.get("top_k"),
            "area_window": areas.get("window"),
        }

    def kinds(self) -> list[str]:
        return [kind for kind in self.curves if kind != "all"]


def run_set(
    name: SetName | str,
    scorer: Scorer,
    params: RSEParams,
    limit: int | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> SetReport:
    """Load, score (embeddings cached on disk), evaluate and draw the curves of one named set."""
    eval_set = load_eval_set(name, limit)
    scored = score_set(eval_set, scorer, params.chunk_size, progress, headers=params.chunk_headers)
    return SetReport(
        eval_set.name, eval_set.document_count, scored, evaluate_scored(scored, params), budget_curves(scored, params)
    )


def _number(value: object, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def format_sets(reports: Sequence[SetReport], markdown: bool = False) -> str:
    """One line per set: queries, documents, RSE recall, top-k at RSE's budget, characters, hits, areas."""
    header = (
        "set",
        "queries",
        "docs",
        "RSE recall",
        "top-k at RSE's chars",
        "chars/query",
        "1st segment in gold doc",
        "no segment",
        "area RSE",
        "area top-k",
        "area window",
    )
    rows = []
    for report in reports:
        r = report.row()
        rows.append(
            (
                r["set"],
                str(r["queries"]),
                str(r["documents"]),
                _number(r["rse_recall"], ".2f"),
                _number(r["top_k_budget_recall"], ".2f"),
                _number(r["characters"], ",.0f"),
                _number(r["first_hit"], ".2f"),
                str(r["empty"]),
                _number(r["area_rse"], ".3f"),
                _number(r["area_top_k"], ".3f"),
                _number(r["area_window"], ".3f"),
            )
        )
    return text_table(header, rows, markdown)


def format_kinds(reports: Sequence[SetReport], markdown: bool = False) -> str:
    """Per set and kind: recall at equal characters (RSE, top-k and window at RSE's budget), curve areas."""
    header = (
        "set",
        "kind",
        "queries",
        "RSE recall",
        "top-k at RSE's chars",
        "window at RSE's chars",
        "chars/query",
        "area RSE",
        "area top-k",
        "area window",
    )
    rows = []
    for report in reports:
        for kind in [*report.kinds(), "all"]:
            r = report.row(kind)
            rows.append(
                (
                    r["set"],
                    kind,
                    str(r["queries"]),
                    _number(r["rse_recall"], ".2f"),
                    _number(r["top_k_budget_recall"], ".2f"),
                    _number(r["window_budget_recall"], ".2f"),
                    _number(r["characters"], ",.0f"),
                    _number(r["area_rse"], ".3f"),
                    _number(r["area_top_k"], ".3f"),
                    _number(r["area_window"], ".3f"),
                )
            )
    return text_table(header, rows, markdown)


def format_areas(reports: Sequence[SetReport]) -> str:
    """The curves' points: mean characters and recall per setting (for a reader who wants the shape)."""
    lines = []
    for report in reports:
        for curve in report.curves["all"]:
            points = ", ".join(f"{p.characters:,.0f}:{p.recall:.2f}" for p in curve.points)
            lines.append(f"{report.name} {curve.method} ({curve.parameter}) area {curve.area:.3f}: {points}")
    return "\n".join(lines)


def format_cross_set(result: TuneResult, reports: Sequence[SetReport], markdown: bool = False) -> str:
    """The tuned setting next to ``RSEParams()``-as-given on every set; the tuning set is marked."""
    if result.best is None:
        return result.message
    header = ("set", "given: recall", "given: chars", "tuned: recall", "tuned: chars", "note")
    rows = []
    for report in reports:
        start = score_params(report.scored, result.start.params)
        tuned = score_params(report.scored, result.best.params)
        note = "tuned on this set (not a test figure)" if report.name == result.set_name else "held out"
        rows.append(
            (
                report.name,
                f"{start.recall:.2f}",
                f"{start.characters:,.0f}",
                f"{tuned.recall:.2f}",
                f"{tuned.characters:,.0f}",
                note,
            )
        )
    return text_table(header, rows, markdown)


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool = False) -> str:
    """Rows of cells under a header: aligned columns, or a Markdown table."""
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join(lines)
