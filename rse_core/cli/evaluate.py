"""``rse-evaluate`` (``python -m rse_core.evaluate``): RSE against top-k and the window on golden sets."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rse_core.cli.evaluate_kb import KB_SET_NAMES, add_kb_options, run_kb_set
from rse_core.cli.param_options import add_param_options, param_changes
from rse_core.cli.support import OneLineParser, fail, run, say
from rse_core.errors import RSEError
from rse_core.evaluation.golden import load_golden_set
from rse_core.evaluation.metrics import summarize
from rse_core.evaluation.runs import Evaluation, evaluate, format_markdown, format_summary, format_table, rows_to_csv
from rse_core.evaluation.sets import SetName
from rse_core.param_specs import CHUNK_HEADERS, PER_DOCUMENT_CALIBRATION, TOP_K, WINDOW
from rse_core.params import Preset, RSEParams, preset
from rse_core.scoring import NAMED_SCORERS, ScorerName, get_scorer

_PARAM_OPTIONS = (WINDOW, TOP_K, CHUNK_HEADERS, PER_DOCUMENT_CALIBRATION)
"""Command-line options that override a field of the preset's parameters."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; every failure is one line on stderr and exit status 2."""
    return run(_main, argv)


def _parser() -> OneLineParser:
    parser = OneLineParser(prog="rse-evaluate", description="RSE against top-k and the window on golden sets.")
    parser.add_argument(
        "golden",
        nargs="*",
        help=(
            "golden-set JSON file(s), or set names (samples, external, financebench; financebench-kb, "
            "samples-kb, external-kb: one knowledge base of FinanceBench's 74 filings or of a golden set's "
            "documents); default: every set but the knowledge bases"
        ),
    )
    parser.add_argument("--set", dest="sets", action="append", default=[], help="a named set to run (repeatable)")
    parser.add_argument("--preset", default=Preset.DEFAULT.value, choices=[p.value for p in Preset])
    parser.add_argument(
        "--scorer",
        default=ScorerName.MINILM.value,
        choices=NAMED_SCORERS,
    )
    add_param_options(parser, _PARAM_OPTIONS)
    parser.add_argument("--json", type=Path, help="write every evaluation (per-query rows and summary) as JSON")
    parser.add_argument("--csv", type=Path, help="write per-query rows of all golden sets as CSV")
    parser.add_argument(
        "--markdown", action="store_true", help="also print the summary over all golden sets as a Markdown table"
    )
    parser.add_argument("--tune", action="store_true", help="auto-tune on the (first) named set, score on the others")
    parser.add_argument("--budget", type=float, default=8000.0, help="characters per query for --tune (default 8000)")
    parser.add_argument("--limit", type=int, help="only the first N queries of each named set (a quick run)")
    parser.add_argument("--curves", action="store_true", help="also print every curve point")
    add_kb_options(parser)
    return parser


def _params(args: argparse.Namespace) -> RSEParams:
    """The preset's parameters with the fields given on the command line."""
    return preset(args.preset).with_changes(**param_changes(args, _PARAM_OPTIONS))


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    kb_sets = [item for item in (*args.golden, *args.sets) if item in KB_SET_NAMES]
    if kb_sets:
        if len(set(args.golden) | set(args.sets)) > 1:
            fail(f"{kb_sets[0]} runs on its own: name no other set or file with it.")
        try:
            return run_kb_set(kb_sets[0], args, _params(args))
        except RSEError as error:
            fail(str(error))
    names = [value for value in SetName]
    sets = list(args.sets) + [item for item in args.golden if item in names]
    files = [item for item in args.golden if item not in names]
    if files and (sets or args.tune):
        fail("give golden-set files or set names, not both (--tune needs a set name).")
    if not files:
        return _main_sets(args, sets)
    try:
        params = _params(args)
        scorer = get_scorer(args.scorer)
        evaluations = [evaluate(load_golden_set(path), params, scorer) for path in files]
    except RSEError as error:
        fail(str(error))
    say("\n\n".join(format_table(evaluation) for evaluation in evaluations))
    pooled = summarize([q for evaluation in evaluations for q in evaluation.queries])
    if len(evaluations) > 1:
        total = sum(len(evaluation.queries) for evaluation in evaluations)
        say(f"\n\nAll {len(evaluations)} golden sets ({total} queries, each counts once)  scorer={scorer.name}\n")
        say("\n".join(format_summary(pooled)))
    if args.markdown:
        say("\n" + format_markdown(pooled))
    _write_files(args, evaluations)
    return 0


def _write_files(args: argparse.Namespace, evaluations: Sequence[Evaluation]) -> None:
    """``--json`` and ``--csv``, each failing in one line if it cannot be written."""
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


def _main_sets(args: argparse.Namespace, names: list[str]) -> int:
    """Named sets side by side (every set when none is named); ``--tune`` tunes on the first."""
    from rse_core.evaluation.reports import format_areas, format_cross_set, format_kinds, format_sets, run_set
    from rse_core.evaluation.retrieval_targets import format_targets
    from rse_core.evaluation.sets import SetName, corpus_missing_message
    from rse_core.evaluation.tuning import tune

    explicit = bool(names)
    try:
        chosen = [SetName.parse(name) for name in dict.fromkeys(names)] or list(SetName)
        if args.tune and not explicit:
            raise RSEError("--tune needs the set to tune on, e.g. rse-evaluate samples --tune.")
        missing = corpus_missing_message()
        if missing and not explicit:
            say(f"note: {missing} Running the samples only.", file=sys.stderr)
            chosen = [SetName.SAMPLES]
        params = _params(args)
        scorer = get_scorer(args.scorer)
        to_run = [*chosen, *(s for s in SetName if args.tune and s not in chosen and not missing)]
        reports = []
        for name in to_run:
            say(f"scoring {name.value} with {scorer.name}...", file=sys.stderr, flush=True)
            reports.append(run_set(name, scorer, params, args.limit))
        tuned = tune(reports[0].scored, args.budget, params) if args.tune else None
    except RSEError as error:
        fail(str(error))
    say(f"scorer={scorer.name}  preset={args.preset}  chunk size {params.chunk_size}  window {params.window}\n")
    say(format_sets(reports, args.markdown))
    say(f"\nTargets (scorer {scorer.name}, preset {args.preset}, headers {'on' if params.chunk_headers else 'off'}):")
    say(format_targets(reports))
    say("\nPer kind: recall at equal characters, and the areas under recall vs characters up to 12,000")
    say(format_kinds(reports, args.markdown))
    if args.curves:
        say("\n" + format_areas(reports))
    if tuned is not None:
        say(f"\n{tuned.message}")
        say(format_cross_set(tuned, reports, args.markdown))
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
