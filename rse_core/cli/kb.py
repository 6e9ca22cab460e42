"""Command line for knowledge bases (``rse-kb``, or ``python -m rse_core.kb`` in a checkout)::

    rse-kb build KB_DIR PATH... [--embedder NAME] [--repair] [--json]   # files or folders; adds to a base
    rse-kb check KB_DIR [--json]                      # finds a damaged base; exit 1 if it is
    rse-kb query KB_DIR -q QUERY [-q QUERY ...] --json
    rse-kb query KB_DIR --batch QUERIES.txt --json    # one query a line, one JSON line each
    rse-kb query KB_DIR -q QUERY --rerank cohere:rerank-v3.5   # values from a reranker (second stage)
    rse-kb query KB_DIR -q QUERY --calibration builtin   # the built-in (MiniLM) constants, not the base's fit
    rse-kb query KB_DIR -q QUERY --within 3M_2018_10K.pdf   # only these documents (repeatable)
    rse-kb calibrate KB_DIR --golden samples-kb [GOLDEN.json ...] [--json]   # fit the dense calibration
    rse-kb info KB_DIR [--json]
    rse-kb remove KB_DIR DOCUMENT...                  # by content hash or file name

Every failure is one ``error: ...`` line on stderr and exit status 2 (:mod:`rse_core.cli.support`).
Writers (build, remove) hold the base's lock; a second one waits up to ``--wait`` seconds, then
says another build is writing (:mod:`rse_core.kb.writer_lock`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path

from rse_core.cli.param_options import add_param_options, param_changes
from rse_core.cli.support import OneLineParser, fail, one_line, run, say, write_stdout
from rse_core.embedders import DEFAULT_EMBEDDER, Embedder, embedder_for, embedder_from_name
from rse_core.embedders.names import NAME_FORMS
from rse_core.errors import ParameterError, QueryError, RSEError
from rse_core.evaluation.fit_calibration import DEFAULT_COST, GridRow, fit_dense_calibration, golden_for_base
from rse_core.evaluation.golden_kb import SET_NAMES
from rse_core.evaluation.reports import text_table
from rse_core.extras import require_installed
from rse_core.kb import (
    BuildProgress,
    FirstStage,
    KBQueryParams,
    KBResult,
    KnowledgeBase,
    build,
    query_kb,
)
from rse_core.kb.build import DEFAULT_BATCH_CHUNKS, BuildReport
from rse_core.kb.calibration import BUILTIN_DENSE, CalibrationChoice, write_fit
from rse_core.kb.catalog import CALIBRATION_FILE, catalog_path, read_catalog
from rse_core.kb.check import check_base
from rse_core.kb.rerank import RERANK_FORMS, reranker_from_name
from rse_core.kb.sources import collect_sources
from rse_core.kb.writer_lock import DEFAULT_WAIT_SECONDS
from rse_core.param_specs import PARAM_SPECS, ParamSpec
from rse_core.params import Preset, preset
from rse_core.pipeline import normalize_queries


def build_parser(specs: Iterable[ParamSpec] = PARAM_SPECS) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="rse-kb",
        description="Build a knowledge base from files and run RSE over all of it.",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    build_cmd = commands.add_parser("build", help="add files or folders (PDF, TXT, MD) to a knowledge base")
    build_cmd.add_argument("kb_dir", help="the knowledge-base folder (created if missing)")
    build_cmd.add_argument("paths", nargs="+", help="files or folders")
    build_cmd.add_argument("--batch-chunks", type=int, default=DEFAULT_BATCH_CHUNKS, help="chunks per commit")
    build_cmd.add_argument("--quiet", action="store_true", help="no progress on stderr")
    build_cmd.add_argument(
        "--milvus-uri", help="keep the chunks on this Milvus server (e.g. http://127.0.0.1:19530) instead of LanceDB"
    )
    build_cmd.add_argument("--collection", default="rse_chunks", help="the Milvus collection (with --milvus-uri)")
    add_embedder_options(
        build_cmd, f"for a new base (default {DEFAULT_EMBEDDER}); a base keeps the one it was built with"
    )
    build_cmd.add_argument(
        "--repair",
        action="store_true",
        help="make an unreadable chunk store again, empty, and add the files given (damaged documents in a "
        "readable store are always dropped and added again)",
    )
    build_cmd.add_argument(
        "--wait", type=float, default=DEFAULT_WAIT_SECONDS, help="seconds to wait for another build of this base"
    )
    build_cmd.add_argument(
        "--name-in-title",
        action="store_true",
        help="for a new base: each document's title in its chunks' headers starts with its file name "
        "(e.g. 3M_2018_10K | 10-K - 02/07/2019 - 3M Company), for files whose names say what their "
        "contents' titles do not",
    )
    build_cmd.add_argument("--json", action="store_true", help="print the summary as one JSON object")

    check_cmd = commands.add_parser("check", help="find a damaged base: one line per problem, exit status 1")
    check_cmd.add_argument("kb_dir")
    check_cmd.add_argument("--json", action="store_true")

    query_cmd = commands.add_parser("query", help="run RSE for queries over the whole base")
    query_cmd.add_argument("kb_dir")
    source = query_cmd.add_mutually_exclusive_group(required=True)
    source.add_argument("-q", "--query", action="append", help="a query (repeat to run several together)")
    source.add_argument("--batch", type=Path, help="a file with one query per line: one result per line")
    query_cmd.add_argument("--json", action="store_true", help="print JSON, one object per line")
    query_cmd.add_argument("--first-stage", default=FirstStage.DENSE.value, choices=[s.value for s in FirstStage])
    query_cmd.add_argument("--top-n", type=int, default=KBQueryParams.top_n, help="first-stage hits per query")
    query_cmd.add_argument(
        "--documents",
        type=int,
        default=KBQueryParams.documents_selected,
        help="RSE runs over the documents of this many best hits",
    )
    query_cmd.add_argument(
        "--selected-top-n",
        type=int,
        default=KBQueryParams.selected_top_n,
        help="chunks per query scored again within the selected documents (0: off, as dsRAG)",
    )
    query_cmd.add_argument(
        "--fusion-weight", type=float, default=KBQueryParams.fusion_weight, help="hybrid: dense weight"
    )
    query_cmd.add_argument(
        "--rank-within-documents",
        action="store_true",
        help="rank chunks within their own document for the decay (default: across the selected documents)",
    )
    query_cmd.add_argument(
        "--rerank",
        metavar="NAME",
        help=f"rerank the first stage's candidates and take the values from it: {RERANK_FORMS} "
        "(Cohere's key from CO_API_KEY)",
    )
    query_cmd.add_argument(
        "--rerank-base-url", help="the rerank API root for cohere: (default CO_API_URL, then Cohere's)"
    )
    query_cmd.add_argument(
        "--rerank-candidates",
        type=int,
        default=KBQueryParams.rerank_candidates,
        help="first-stage hits per query (across the base) that are reranked; documents are selected from them",
    )
    query_cmd.add_argument(
        "--calibration",
        default=CalibrationChoice.FITTED.value,
        choices=[c.value for c in CalibrationChoice],
        help="dense map's constants: the base's fit for its embedder if any (default), or the built-in ones",
    )
    query_cmd.add_argument(
        "--within",
        action="append",
        metavar="DOCUMENT",
        help="search only this document (a file name or hash as 'info' lists it; repeat for several), "
        "as a metadata filter narrows a query to documents you know are the right ones",
    )
    query_cmd.add_argument(
        "--named-documents",
        action="store_true",
        help="search only the documents whose file names the query names (a company, a year), when it names any",
    )
    query_cmd.add_argument("--preset", default=Preset.DEFAULT.value, choices=[p.value for p in Preset])
    add_embedder_options(query_cmd, "default: the one the base was built with (another is refused)")
    add_param_options(query_cmd, (spec for spec in specs if spec.knowledge_base))

    calibrate_cmd = commands.add_parser(
        "calibrate", help="fit the dense calibration for the base's embedder on golden queries, and store it"
    )
    calibrate_cmd.add_argument("kb_dir")
    calibrate_cmd.add_argument(
        "--golden",
        nargs="+",
        required=True,
        metavar="SET",
        help=f"golden JSON files whose documents are in the base, or named sets ({', '.join(SET_NAMES)})",
    )
    calibrate_cmd.add_argument(
        "--cost", type=float, default=DEFAULT_COST, help="recall 1,000 more characters a query must buy"
    )
    calibrate_cmd.add_argument("--rows", type=int, default=10, help="best grid rows to print")
    calibrate_cmd.add_argument("--dry-run", action="store_true", help="print the fit, store nothing")
    calibrate_cmd.add_argument("--json", action="store_true", help="print the fit and the grid as one JSON object")

    info_cmd = commands.add_parser("info", help="documents, chunks and size of a knowledge base")
    info_cmd.add_argument("kb_dir")
    info_cmd.add_argument("--json", action="store_true")

    remove_cmd = commands.add_parser("remove", help="remove documents by content hash or file name")
    remove_cmd.add_argument("kb_dir")
    remove_cmd.add_argument("documents", nargs="+")
    return parser


def add_embedder_options(command: argparse.ArgumentParser, default_help: str) -> None:
    command.add_argument("--embedder", help=f"{NAME_FORMS}; {default_help}")
    command.add_argument(
        "--base-url", help="the endpoint's API root for openai:/cohere: embedders (e.g. http://127.0.0.1:8000/v1)"
    )
    command.add_argument(
        "--api-key-env",
        help="the environment variable holding the endpoint's key (default OPENAI_API_KEY / CO_API_KEY)",
    )


def chosen_embedder(args: argparse.Namespace) -> Embedder | None:
    """The embedder the options name; ``None`` leaves it to the base (its record, or the default for a new one).

    ``--base-url`` or ``--api-key-env`` alone reach the base's own endpoint embedder another way.
    """
    options = {"api_key_env": args.api_key_env} if args.api_key_env else {}
    if args.embedder:
        return embedder_from_name(args.embedder, args.base_url, **options)
    if not (args.base_url or options):
        return None
    if not catalog_path(Path(args.kb_dir)).is_file():
        raise ParameterError(
            "--base-url and --api-key-env need --embedder openai:MODEL or cohere:MODEL for a new base."
        )
    return embedder_for(read_catalog(Path(args.kb_dir)).embedder, args.base_url, **options)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; every failure is one line on stderr and exit status 2."""
    return run(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        commands = {
            "build": _build,
            "check": _check,
            "query": _query,
            "calibrate": _calibrate,
            "info": _info,
            "remove": _remove,
        }
        return commands[args.command](args)
    except RSEError as error:
        fail(str(error))
    return 2  # not reached: fail() exits


def _build(args: argparse.Namespace) -> int:
    def show(progress: BuildProgress) -> None:
        say(f"[{progress.elapsed:6.1f} s] {progress.line()}", file=sys.stderr, flush=True)

    sources = collect_sources(args.paths)
    sources.require_files()
    embedder = chosen_embedder(args)  # a wrong name, option or missing extra is one line before anything else
    require_installed("pymilvus" if args.milvus_uri else "lancedb", "A knowledge base")
    if not args.quiet and not args.json:  # at once: the model and the store take seconds to load
        left_out = f" ({len(sources.skipped)} left out, listed at the end)" if sources.skipped else ""
        say(f"Building {args.kb_dir} from {len(sources.files)} file(s){left_out}...", file=sys.stderr)
    store = None
    if args.milvus_uri:
        store = {"kind": "milvus", "uri": args.milvus_uri, "collection": args.collection}
    report = build(
        args.kb_dir,
        sources,
        None if args.quiet or args.json else show,
        embedder=embedder,
        store=store,
        batch_chunks=args.batch_chunks,
        repair=args.repair,
        wait=args.wait,
        name_in_title=True if args.name_in_title else None,
    )
    if args.json:
        write_stdout(json.dumps(build_summary(report), ensure_ascii=False) + "\n")
    else:
        kb = KnowledgeBase.open(args.kb_dir)  # the base's totals, which only the text summary gives
        info = kb.info()
        kb.close()
        write_stdout(
            f"Added {len(report.added)} document(s) ({report.chunks:,} chunks) in {report.seconds:.1f} s; "
            f"{len(report.skipped)} already in the base. {info.path}: {info.documents} documents, "
            f"{info.chunks:,} chunks, {info.bytes / 1e6:.1f} MB.\n"
        )
        added = {entry.doc_id for entry in report.added}
        for entry in report.repaired:
            again = "added again" if entry.doc_id in added else "not added again: give its file to add it"
            write_stdout(f"Repaired: {one_line(entry.name)} ({entry.doc_id}) was damaged; {again}.\n")
        not_read = [(item.path, item.reason) for item in report.not_read] + list(report.failed)
        for path, reason in not_read[:MAX_LISTED]:
            write_stdout(f"Not read: {one_line(f'{path}: {reason}')}\n")
        if len(not_read) > MAX_LISTED:
            write_stdout(f"... and {len(not_read) - MAX_LISTED} more not read (--json lists them all).\n")
    if not report.added and not report.skipped:
        fail("nothing could be added: no file given could be read as a PDF, text or Markdown document.")
    return 0


MAX_LISTED = 10
"""Files left out that the text summary names one by one (``--json`` lists every one)."""


def build_summary(report: BuildReport) -> dict[str, object]:
    """The ``build --json`` summary: what was added, skipped, repaired, refused."""
    return {
        "added": [{"doc_id": e.doc_id, "name": e.name, "chunks": e.chunks} for e in report.added],
        "already_there": list(report.skipped),
        "failed": [{"path": path, "reason": reason} for path, reason in report.failed],
        "not_read": [{"path": link.path, "reason": link.reason} for link in report.not_read],
        "repaired": [{"doc_id": e.doc_id, "name": e.name} for e in report.repaired],
        "seconds": round(report.seconds, 3),
    }


def _check(args: argparse.Namespace) -> int:
    """One line per problem; exit status 1 when there is any (2 stays for errors)."""
    report = check_base(args.kb_dir)
    if args.json:
        write_stdout(json.dumps(report.to_dict(), ensure_ascii=False) + "\n")
    elif report.ok:
        write_stdout(f"{report.path}: {report.documents} documents; no problem found.\n")
    else:
        write_stdout("".join(f"{problem.kind.value}: {one_line(problem.message)}\n" for problem in report.problems))
    return 0 if report.ok else 1


def _query(args: argparse.Namespace) -> int:
    kb_params = KBQueryParams(
        first_stage=args.first_stage,
        top_n=args.top_n,
        documents_selected=args.documents,
        selected_top_n=args.selected_top_n,
        fusion_weight=args.fusion_weight,
        rank_across_documents=not args.rank_within_documents,
        rerank_candidates=args.rerank_candidates,
        named_documents=args.named_documents,
    )
    params = preset(args.preset).with_changes(**param_changes(args))
    if args.rerank_base_url and not args.rerank:
        raise ParameterError("--rerank-base-url needs --rerank cohere:MODEL.")
    reranker = reranker_from_name(args.rerank, args.rerank_base_url) if args.rerank else None
    kb = KnowledgeBase.open(args.kb_dir, chosen_embedder(args))
    if args.batch is not None:
        groups = [[query] for query in _read_batch(args.batch)]
    else:
        groups = [args.query]
    for queries in groups:
        normalize_queries(queries)  # refuse an empty query before loading the model
    for key in args.within or ():
        kb.find(key)  # and a document the base does not hold
    if kb_params.first_stage is not FirstStage.BM25:
        preload = getattr(kb.embedder, "preload_query", None) or getattr(kb.embedder, "preload", None)
        if preload is not None:
            preload()  # once for the whole batch
    for queries in groups:
        result = query_kb(kb, queries, params, kb_params, reranker, args.calibration, args.within)
        write_stdout((json.dumps(result.to_dict(), ensure_ascii=False) if args.json else render_text(result)) + "\n")
    return 0


def _read_batch(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise QueryError(f"Could not read the queries file {path} ({error}).") from None
    queries = [line.strip() for line in lines if line.strip()]
    if not queries:
        raise QueryError(f"The queries file {path} holds no query; write one query per line.")
    return queries


def _calibrate(args: argparse.Namespace) -> int:
    if not math.isfinite(args.cost) or args.cost < 0:
        raise ParameterError(f"--cost must be a number of at least 0 (got {args.cost}).")
    kb = KnowledgeBase.open(args.kb_dir)
    try:
        items, used, skipped = golden_for_base(kb, args.golden)
        report = fit_dense_calibration(kb, items, used, args.cost)
    finally:
        kb.close()
    if not args.dry_run:
        write_fit(kb.path, report.fit)
    stored = "Not stored (--dry-run)." if args.dry_run else f"Stored in {kb.path / CALIBRATION_FILE}."
    if args.json:
        data = {
            "fit": report.fit.to_dict(),
            "stored": not args.dry_run,
            "skipped": list(skipped),
            "builtin": dataclasses.asdict(report.builtin),
            "grid": [dataclasses.asdict(row) for row in report.rows[: max(args.rows, 0)]],
        }
        write_stdout(json.dumps(data, ensure_ascii=False) + "\n")
        return 0
    fit = report.fit
    header = ["spread", "ceiling", "recall", "chars/query", "objective"]

    def cells(row: GridRow, mark: str = "") -> list[str]:
        return [
            f"{row.spread:g}",
            f"{row.ceiling:g}",
            f"{row.recall:.3f}",
            f"{row.characters:,.0f}",
            f"{row.objective:.3f}{mark}",
        ]

    rows = [cells(row) for row in report.rows[: max(args.rows, 0)]]
    rows.append(cells(report.builtin, "  (built-in)"))
    lines = [f"Objective: {fit.objective}, on {fit.queries} golden queries ({one_line(', '.join(fit.golden))})."]
    lines += [f"Skipped (document not in the base): {one_line(name)}" for name in skipped]
    lines += [text_table(header, rows), ""]
    lines.append(
        f"Fitted: spread {fit.spread:g}, ceiling {fit.ceiling:g} ({fit.value:.3f}; built-in "
        f"{BUILTIN_DENSE.spread:g}/{BUILTIN_DENSE.ceiling:g}: {fit.builtin_value:.3f}), "
        f"{one_line(fit.describe())}. {stored}"
    )
    write_stdout("\n".join(lines) + "\n")
    return 0


def _info(args: argparse.Namespace) -> int:
    kb = KnowledgeBase.open(args.kb_dir)
    info = kb.info()
    documents = sorted(kb.documents.values(), key=lambda entry: entry.name)
    if args.json:
        data = {
            "path": info.path,
            "documents": [
                {"doc_id": e.doc_id, "name": e.name, "chunks": e.chunks, "pages": e.pages, "characters": e.characters}
                for e in documents
            ],
            "chunks": info.chunks,
            "bytes": info.bytes,
            "model": info.model,
            "embedder": kb.catalog.embedder.to_dict(),
            "store": info.store,
            "name_in_title": kb.catalog.name_in_title,
        }
        write_stdout(json.dumps(data, ensure_ascii=False) + "\n")
        return 0
    lines = [
        f"{info.path}: {info.documents} documents, {info.chunks:,} chunks, {info.bytes / 1e6:.1f} MB "
        f"({info.store}, {one_line(kb.catalog.embedder.describe())}"
        f"{', titles start with file names' if kb.catalog.name_in_title else ''})"
    ]
    lines += [f"  {e.doc_id}  {e.chunks:6,} chunks  {e.pages:4} pages  {one_line(e.name)}" for e in documents]
    write_stdout("\n".join(lines) + "\n")
    return 0


def _remove(args: argparse.Namespace) -> int:
    kb = KnowledgeBase.open(args.kb_dir)
    entries = [kb.find(key) for key in args.documents]  # every name checked before anything is removed
    for entry in dict.fromkeys(entries):
        kb.remove(entry.doc_id)
        write_stdout(f"Removed {one_line(entry.name)} ({entry.doc_id}, {entry.chunks:,} chunks).\n")
    return 0


def render_text(result: KBResult) -> str:
    """A short report: each segment with its source and the start of its text."""
    lines = [f"Queries: {' | '.join(result.queries)}"]
    lines += [f"Note: {note}" for note in result.notes]
    lines.append(f"{len(result.segments)} segment(s), {result.characters:,} characters.")
    lines.append(f"Values from: {one_line(result.values_from)}")
    lines.append(f"Calibration: {one_line(result.calibration)}")
    if result.searched_within:
        lines.append(f"Searched within: {one_line(', '.join(result.searched_within))}")
    if result.named_documents:
        lines.append(f"Named in the query: {one_line(', '.join(result.named_documents))}")
    if result.selected_names:
        lines.append(f"Selected documents: {one_line(', '.join(result.selected_names))}")
    if result.empty_reason:
        lines.append(one_line(result.empty_reason))
    for segment in result.segments:
        lines.append(
            f"\n{segment.label}  score {segment.score:.3f}  {one_line(segment.doc_name)}, {segment.pages}, "
            f"chunks {segment.first_chunk}-{segment.last_chunk}"
        )
        lines.append(textwrap.indent(textwrap.fill(" ".join(segment.text.split())[:300], 96), "    "))
    return "\n".join(lines)
