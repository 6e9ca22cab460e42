"""Command line: ``rse FILE... --query Q [--preset P] [--scorer S] [--json]`` (``python -m rse_core`` in a checkout)."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Iterable, Sequence

from rse_core.cli.param_options import add_param_options, param_changes
from rse_core.cli.support import OneLineParser, fail, json_terminal_safe, run, say, write_stdout
from rse_core.documents import load_document
from rse_core.embedders import embedder_from_name
from rse_core.errors import RSEError
from rse_core.param_specs import PARAM_SPECS, ParamSpec
from rse_core.params import Preset, portable_parameters, preset
from rse_core.pipeline import ExtractionResult, extract
from rse_core.scoring import ScorerName, get_scorer


def build_parser(specs: Iterable[ParamSpec] = PARAM_SPECS) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="rse",
        description="Relevant Segment Extraction: find the best contiguous segments of documents for a query.",
    )
    parser.add_argument("files", nargs="+", help="PDF, .txt or .md files")
    parser.add_argument("--query", "-q", action="append", required=True, help="query (repeat for several)")
    parser.add_argument("--preset", default=Preset.DEFAULT.value, choices=[p.value for p in Preset])
    parser.add_argument("--scorer", default=ScorerName.MINILM.value, choices=[s.value for s in ScorerName])
    parser.add_argument(
        "--model",
        help="model name for the cohere or cross-encoder scorer; for the embedder scorer, the embedder "
        "(mpnet, a sentence-transformers folder, openai:MODEL, cohere:MODEL)",
    )
    add_param_options(parser, specs)
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument(
        "--verbose", "-v", action="store_true", help="show model loading and embedding progress on stderr"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; every failure is one line on stderr and exit status 2."""
    return run(_main, argv)


def _scorer_options(scorer: str, model: str | None) -> dict[str, object]:
    """``get_scorer``'s keywords for ``--scorer`` and ``--model``: the embedder scorer gets the
    embedder ``--model`` names (as ``rse-kb build --embedder`` takes it)."""
    if scorer in (ScorerName.CROSS_ENCODER, ScorerName.EMBEDDER) and not model:
        what = "a model name or local path" if scorer == ScorerName.CROSS_ENCODER else "an embedder name, e.g. mpnet"
        raise RSEError(f"The {scorer} scorer needs --model ({what}).")
    if scorer == ScorerName.EMBEDDER:
        return {"embedder": embedder_from_name(model)}
    return {"model": model} if model and scorer in (ScorerName.COHERE, ScorerName.CROSS_ENCODER) else {}


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        params = preset(args.preset).with_changes(**param_changes(args))
        scorer = get_scorer(args.scorer, **_scorer_options(args.scorer, args.model))
        documents = [load_document(path) for path in args.files]
        progress = None
        if args.verbose:
            _show_library_progress()
            progress = lambda fraction, label: say(f"[{fraction:4.0%}] {label}", file=sys.stderr)  # noqa: E731
        result = extract(documents, args.query, params, scorer, progress=progress)
    except RSEError as error:
        fail(str(error))
    if args.json:
        write_stdout(json_terminal_safe(json.dumps(result_document(result), indent=2, ensure_ascii=False)) + "\n")
    else:
        write_stdout(render_text(result) + "\n")
    return 0


def result_document(result: ExtractionResult) -> dict[str, object]:
    """The ``--json`` output: the full result, then dsRAG's ``rse_params`` and how they were tuned."""
    calibration = result.calibration.describe()
    return result.to_dict() | portable_parameters(
        result.params, scorer=result.scorer, model=result.model, calibration=calibration
    )


def _show_library_progress() -> None:
    """With ``--verbose``, let transformers print its model-loading bars (hidden otherwise)."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # only the bm25 and cohere scorers are installed
        return
    hf_logging.set_verbosity_info()
    hf_logging.enable_progress_bar()


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def render_text(result: ExtractionResult) -> str:
    """A short human-readable report of the segments and the top-k baseline."""
    lines = [f"Queries: {' | '.join(result.queries)}", f"Scorer: {result.scorer} ({result.model})"]
    lines += [f"Note: {note}" for note in result.notes]
    lines.append(
        f"{_plural(len(result.segments), 'segment')}, {_plural(len(result.rse_chunks), 'chunk')}, "
        f"{result.rse_characters} characters; stopped because {result.stop_reason.explanation}."
    )
    if not result.segments:
        lines.append(result.empty_reason() or "")
    for segment in result.segments:
        source = result.corpus.source_label(segment.start, segment.end)
        lines.append(f"\n{segment.label}  score {segment.score:.3f}  {source}")
        preview = " ".join(segment.text.split())[:300]
        lines.append(textwrap.indent(textwrap.fill(preview, 96), "    "))
    top = ", ".join(result.corpus.source_label(index, index + 1).rsplit(", ", 1)[-1] for index in result.top_k)
    lines.append(f"\nTop-{len(result.top_k)} by score: {top} ({result.characters(result.top_k)} characters)")
    windows = ", ".join(
        result.corpus.source_label(segment.start, segment.end).rsplit(", ", 1)[-1] for segment in result.window
    )
    lines.append(
        f"Window (top-{result.params.top_k} hits +/- {result.params.window} chunks): {windows} "
        f"({result.window_characters()} characters)"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
