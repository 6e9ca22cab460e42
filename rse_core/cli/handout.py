"""Command line: ``python -m rse_core.cli.handout OUT_DIR`` writes the exercise handout and its key.

Two self-contained HTML files, ``rse-exercises.html`` and ``rse-answer-key.html`` (print them to
PDF from a browser), made from the same exercise bank the app checks answers against.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from rse_core.cli.support import OneLineParser, fail, run, write_stdout
from rse_core.teaching.exercises import exercise_bank
from rse_core.teaching.handout import answer_key_html, handout_html

HANDOUT_NAME = "rse-exercises.html"
KEY_NAME = "rse-answer-key.html"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="python -m rse_core.cli.handout",
        description="Write the RSE exercise handout and its separate answer key as HTML.",
    )
    parser.add_argument("out_dir", metavar="OUT_DIR", help="folder to write into (made if missing)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Write both files; every failure is one line on stderr and exit status 2."""
    return run(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    folder = Path(args.out_dir)
    exercises = exercise_bank()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / HANDOUT_NAME).write_text(handout_html(exercises), encoding="utf-8")
        (folder / KEY_NAME).write_text(answer_key_html(exercises), encoding="utf-8")
    except OSError as error:
        fail(f"cannot write to {folder}: {error.strerror or error}")
    write_stdout(f"{len(exercises)} exercises: {folder / HANDOUT_NAME}, {folder / KEY_NAME}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
