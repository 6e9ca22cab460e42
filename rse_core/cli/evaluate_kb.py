"""``rse-evaluate financebench-kb`` (or ``samples-kb``, ``external-kb``): RSE over
one knowledge base, against top-k and the window at RSE's characters, per question type.

``financebench-kb`` is FinanceBench's 74 filings (built on first use at ``--kb``, default
``$RSE_FINANCEBENCH_KB`` or the cache folder; about 43,000 chunks, most of an hour on a 2-core
CPU); ``samples-kb`` and ``external-kb`` are a golden set's documents in one base
(:mod:`rse_core.evaluation.golden_kb`, seconds and minutes). Each question is searched once and
every setting after that reuses the search.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rse_core.cli.support import say
from rse_core.embedders import DEFAULT_EMBEDDER
from rse_core.embedders.names import NAME_FORMS
from rse_core.evaluation import financebench_kb as fb
from rse_core.evaluation import golden_kb
from rse_core.evaluation.kb_eval import (
    BUDGETS,
    METHOD_LABELS,
    METHODS,
    KBCase,
    KBEvaluation,
    budget_cell,
    evaluate_kb,
    prepare_cases,
)
from rse_core.evaluation.kb_tuning import tune_kb
from rse_core.evaluation.reports import text_table
from rse_core.evaluation.retrieval_targets import check_kb_targets, format_checks
from rse_core.kb import FirstStage, KBQueryParams, KnowledgeBase
from rse_core.params import RSEParams

SET_NAME = "financebench-kb"
KB_SET_NAMES = (SET_NAME, *golden_kb.SET_NAMES)

__all__ = ["KB_SET_NAMES", "SET_NAME", "add_kb_options", "run_kb_set"]


def add_kb_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        f"{', '.join(KB_SET_NAMES)} (one knowledge base: FinanceBench's filings, or a golden set's documents)"
    )
    group.add_argument("--kb", type=Path, help="the base's folder (built there on first use)")
    group.add_argument(
        "--embedder",
        help=f"{NAME_FORMS} (default {DEFAULT_EMBEDDER}); each embedder's base is built once beside the default's",
    )
    group.add_argument("--first-stage", choices=[stage.value for stage in FirstStage], default=FirstStage.DENSE.value)
    group.add_argument("--documents-selected", type=int, help="documents RSE runs over per query")
    group.add_argument("--rank-within-documents", action="store_true", help="rank chunks within their document")
    group.add_argument(
        "--name-in-title",
        action="store_true",
        help="a base whose titles start with file names (built once beside the others; see rse-kb build)",
    )
    group.add_argument(
        "--within-own-document",
        action="store_true",
        help="search each question within its own document only (FinanceBench's single store: "
        "the filing is given, as a metadata filter would give it)",
    )
    group.add_argument(
        "--named-documents",
        action="store_true",
        help="search each question within the documents its words name by file name (a company, a year), if any",
    )


def _kb_params(args: argparse.Namespace) -> KBQueryParams:
    changes: dict[str, object] = {"first_stage": args.first_stage}
    if args.documents_selected is not None:
        changes["documents_selected"] = args.documents_selected
    if args.rank_within_documents:
        changes["rank_across_documents"] = False
    if args.named_documents:
        changes["named_documents"] = True
    return KBQueryParams(**changes)


def _built(kb_dir: object):
    def show(progress) -> None:
        print(f"\r[building {kb_dir}] {progress.line()}", end="", file=sys.stderr, flush=True)

    return show


def _open_set(name: str, args: argparse.Namespace) -> tuple[KnowledgeBase, list, str]:
    """The base, its case items and a line saying what the gold is."""
    names = True if args.name_in_title else None  # without the option, a base given by --kb is taken as it is
    if name == SET_NAME:
        folder = fb.default_folder()
        kb_dir = args.kb or golden_kb.variant_dir(fb.default_kb_dir(), args.embedder, args.name_in_title)
        kb = fb.open_evaluation_base(args.embedder, args.name_in_title, kb_dir, _built(kb_dir))
        questions = fb.read_questions(folder, args.limit)
        gold = fb.locate_gold(questions, folder, progress=lambda line: print(line, file=sys.stderr))
        located = sum(span.located for spans in gold.values() for span in spans)
        total = sum(len(spans) for spans in gold.values())
        note = f"{located} of {total} evidence excerpts located on their page (the rest: the whole page)"
        return kb, fb.case_items(questions, gold), note
    set_name = golden_kb.SET_NAMES[name]
    kb_dir = args.kb or golden_kb.variant_dir(golden_kb.default_kb_dir(set_name), args.embedder, args.name_in_title)
    kb, sets = golden_kb.ensure_golden_kb(set_name, kb_dir, _built(kb_dir), args.embedder, names)
    try:
        items = golden_kb.case_items(kb, sets, args.limit)
    except BaseException:
        kb.close()
        raise
    return kb, items, "gold: each query's span; its page: the PDF pages the span is on (a text file: the span)"


def run_kb_set(name: str, args: argparse.Namespace, params: RSEParams) -> int:
    """Build (once) and open the base, search every question, print the tables."""
    kb_params = _kb_params(args)
    kb, items, gold_note = _open_set(name, args)
    try:
        params = params.with_changes(chunk_size=kb.catalog.chunk_size, chunk_headers=kb.catalog.headers)

        def searched(done: int, count: int) -> None:
            print(f"\rsearching {done}/{count} questions", end="", file=sys.stderr, flush=True)

        cases = prepare_cases(kb, items, kb_params, searched, args.within_own_document)
        selection = "each within its own document" if args.within_own_document else kb_params.selection
        print(file=sys.stderr)
        evaluation = evaluate_kb(kb, cases, params, kb_params)
        say(
            f"{name}: {len(cases)} questions over {len(kb.documents)} documents "
            f"({kb.catalog.chunk_total:,} chunks; embedder {kb.catalog.embedder.describe()}"
            f"{'; titles start with file names' if kb.catalog.name_in_title else ''}); "
            f"first stage {kb_params.first_stage.value}, "
            f"top {kb_params.top_n}, {selection}, ranks "
            f"{'across documents' if kb_params.rank_across_documents else 'within documents'}; "
            f"values calibrated by {_calibrations(cases)}; {gold_note}\n"
        )
        say(format_kb_evaluation(evaluation, args.markdown))
        say("\n" + format_kb_budgets(evaluation, markdown=args.markdown))
        say("\nTargets:\n" + "\n".join(format_checks(check_kb_targets(evaluation, name))))
        if args.curves:
            say("\n" + format_kb_curves(evaluation, name))
        if args.tune:
            say("\n" + tune_kb(kb, cases, params, args.budget).report())
        if args.json:
            args.json.write_text(json.dumps({"set": name, **evaluation.to_dict()}, indent=1) + "\n", encoding="utf-8")
    finally:
        kb.close()
    return 0


def _calibrations(cases: Sequence[KBCase]) -> str:
    """Which calibration scored the questions' first stages (a base's stored fit is used by default:
    the report says so rather than leaving it to be guessed)."""
    return ", ".join(sorted({case.first.calibration for case in cases})) or "none (no question)"


def format_kb_evaluation(evaluation: KBEvaluation, markdown: bool = False) -> str:
    """Per question type: page hit, text recall, first piece's filing and characters of each method."""
    labels = {"rse": "RSE", "top_k": "top-k", "window": "window"}
    header = ["type", "questions", "chars/query"]
    header += [f"{labels[method]} {measure}" for method in METHODS for measure in ("page hit", "recall")]
    header += ["RSE 1st in filing", "top-k 1st in filing", "area RSE", "area top-k", "area window"]
    rows = []
    for row in evaluation.rows():
        cells = [str(row["kind"]), str(row["questions"]), f"{row['rse_characters']:,.0f}"]
        for method in METHODS:
            cells += [f"{row[f'{method}_page_hit']:.2f}", f"{row[f'{method}_recall']:.2f}"]
        cells += [f"{row['rse_first_in_document']:.2f}", f"{row['top_k_first_in_document']:.2f}"]
        cells += [f"{row.get(f'area_{method}', float('nan')):.3f}" for method in METHODS]
        rows.append(cells)
    return text_table(header, rows, markdown)


def format_kb_budgets(
    evaluation: KBEvaluation, budgets: Sequence[int] = BUDGETS, markdown: bool = False, kind: str = "all"
) -> str:
    """:meth:`KBEvaluation.at_budgets` as a table: page hit / recall per method and budget."""
    header = ["method"] + [f"page hit / recall <= {budget:,} chars" for budget in budgets]
    rows = [
        [METHOD_LABELS[str(row["method"])]] + [budget_cell(row, budget) for budget in budgets]
        for row in evaluation.at_budgets(budgets, kind)
    ]
    return "At equal characters:\n" + text_table(header, rows, markdown)


def format_kb_curves(evaluation: KBEvaluation, name: str = SET_NAME) -> str:
    lines = []
    for curve in evaluation.curves.get("all", []):
        points = ", ".join(f"{p.characters:,.0f}:{p.recall:.2f}/{p.page_hit or 0:.2f}" for p in curve.points)
        lines.append(f"{name} {curve.method} ({curve.parameter}) area {curve.area:.3f}, chars:recall/pages: {points}")
    return "\n".join(lines)
