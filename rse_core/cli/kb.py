"""Command line for knowledge bases (``rse-kb``, or ``python -m rse_core.kb`` in a checkout)::

    rse-kb build KB_DIR PATH...                       # files or folders; adds to a base
    rse-kb query KB_DIR -q QUERY [-q QUERY ...] --json
    rse-kb query KB_DIR --batch QUERIES.txt --json    # one query a line, one JSON line each
    rse-kb info KB_DIR [--json]
    rse-kb remove KB_DIR DOCUMENT...                  # by content hash or file name

Every failure is one ``error: ...`` line on stderr and exit status 2 (:mod:`rse_core.cli.support`).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path

from rse_core.cli.param_options import add_param_options, param_changes
from rse_core.cli.support import OneLineParser, fail, one_line, run, write_stdout
from rse_core.errors import QueryError, RSEError
from rse_core.kb import (
    BuildProgress,
    FirstStage,
    KBQueryParams,
    KBResult,
    KnowledgeBase,
    build,
    query_kb,
)
from rse_core.kb.build import DEFAULT_BATCH_CHUNKS
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
    query_cmd.add_argument("--preset", default=Preset.DEFAULT.value, choices=[p.value for p in Preset])
    add_param_options(query_cmd, (spec for spec in specs if spec.knowledge_base))

    info_cmd = commands.add_parser("info", help="documents, chunks and size of a knowledge base")
    info_cmd.add_argument("kb_dir")
    info_cmd.add_argument("--json", action="store_true")

    remove_cmd = commands.add_parser("remove", help="remove documents by content hash or file name")
    remove_cmd.add_argument("kb_dir")
    remove_cmd.add_argument("documents", nargs="+")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; every failure is one line on stderr and exit status 2."""
    return run(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return {"build": _build, "query": _query, "info": _info, "remove": _remove}[args.command](args)
    except RSEError as error:
        fail(str(error))
    return 2  # not reached: fail() exits


def _build(args: argparse.Namespace) -> int:
    def show(progress: BuildProgress) -> None:
        print(f"[{progress.elapsed:6.1f} s] {progress.line()}", file=sys.stderr, flush=True)

    store = None
    if args.milvus_uri:
        store = {"kind": "milvus", "uri": args.milvus_uri, "collection": args.collection}
    report = build(args.kb_dir, args.paths, None if args.quiet else show, store=store, batch_chunks=args.batch_chunks)
    kb = KnowledgeBase.open(args.kb_dir)
    info = kb.info()
    write_stdout(
        f"Added {len(report.added)} document(s) ({report.chunks:,} chunks) in {report.seconds:.1f} s; "
        f"{len(report.skipped)} already in the base. {info.path}: {info.documents} documents, "
        f"{info.chunks:,} chunks, {info.bytes / 1e6:.1f} MB.\n"
    )
    for path, reason in report.failed:
        print(f"error: {one_line(f'{path}: {reason}')}", file=sys.stderr)
    return 2 if report.failed else 0


def _query(args: argparse.Namespace) -> int:
    kb_params = KBQueryParams(
        first_stage=args.first_stage,
        top_n=args.top_n,
        documents_selected=args.documents,
        selected_top_n=args.selected_top_n,
        fusion_weight=args.fusion_weight,
        rank_across_documents=not args.rank_within_documents,
    )
    params = preset(args.preset).with_changes(**param_changes(args))
    kb = KnowledgeBase.open(args.kb_dir)
    if args.batch is not None:
        groups = [[query] for query in _read_batch(args.batch)]
    else:
        groups = [args.query]
    for queries in groups:
        normalize_queries(queries)  # refuse an empty query before loading the model
    if kb_params.first_stage is not FirstStage.BM25:
        preload = getattr(kb.embedder, "preload_query", None)
        if preload is not None:
            preload()  # once for the whole batch
    for queries in groups:
        result = query_kb(kb, queries, params, kb_params)
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
            "store": info.store,
        }
        write_stdout(json.dumps(data, ensure_ascii=False) + "\n")
        return 0
    lines = [
        f"{info.path}: {info.documents} documents, {info.chunks:,} chunks, {info.bytes / 1e6:.1f} MB "
        f"({info.store}, {info.model})"
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
    for segment in result.segments:
        lines.append(
            f"\n{segment.label}  score {segment.score:.3f}  {one_line(segment.doc_name)}, {segment.pages}, "
            f"chunks {segment.first_chunk}-{segment.last_chunk}"
        )
        lines.append(textwrap.indent(textwrap.fill(" ".join(segment.text.split())[:300], 96), "    "))
    return "\n".join(lines)
