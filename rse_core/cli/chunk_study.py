"""``python -m rse_core.cli.chunk_study``: every method at every chunk size, on golden-set files."""

from __future__ import annotations

from collections.abc import Sequence

from rse_core.cli.support import OneLineParser, fail, run, say
from rse_core.errors import RSEError
from rse_core.evaluation.chunk_study import DEFAULT_CHUNK_SIZES, chunk_size_study, format_study
from rse_core.evaluation.golden import load_golden_set
from rse_core.params import Preset, preset
from rse_core.scoring import NAMED_SCORERS, ScorerName


def main(argv: Sequence[str] | None = None) -> int:
    """Run the study; every failure is one line on stderr and exit status 2."""
    return run(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = OneLineParser(
        prog="python -m rse_core.cli.chunk_study", description="Every method at every chunk size, on golden-set files."
    )
    parser.add_argument("golden", nargs="+", help="golden-set JSON file(s)")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_CHUNK_SIZES), help="chunk sizes")
    parser.add_argument("--preset", default=Preset.DEFAULT.value, choices=[p.value for p in Preset])
    parser.add_argument(
        "--scorer",
        default=ScorerName.MINILM.value,
        choices=NAMED_SCORERS,
    )
    parser.add_argument("--kind", default="all", help="query kind to print (factoid, broad, gapped or all)")
    args = parser.parse_args(argv)
    try:
        rows = chunk_size_study(
            [load_golden_set(path) for path in args.golden], preset(args.preset), args.scorer, args.sizes
        )
    except RSEError as error:
        fail(str(error))
    say(format_study(rows, args.kind))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
