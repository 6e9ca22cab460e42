"""Benchmark: the segment search when every candidate ties (all-zero values), on both sum paths.

Run from the project root:

    python bench/tie_path.py                                  # this Python, n = 5k / 20k / 100k
    python bench/tie_path.py --python ~/.pyenv/versions/3.12.1/bin/python   # also a Python >= 3.12

All-zero values are what a bm25 query that matches no word gives at penalty 0: every (start,
end) candidate sums to 0, so on Python >= 3.12 (whose ``sum`` compensates rounding) every one is
a near-tie to settle the way ``sum`` adds. Three paths run on the same input in the same process:

- ``sequential``: the <= 3.11 path (``np.cumsum`` is ``sum``), the baseline;
- ``ties``: the >= 3.12 path as shipped (near-ties re-added at once, vectorised);
- ``ties, one by one``: the >= 3.12 path as it was (each near-tie re-added with Python's
  ``sum`` on every pick), only up to ``--legacy-max`` chunks because it takes minutes above.

On a Python <= 3.11 the >= 3.12 paths are forced (``_SUM_IS_SEQUENTIAL = False``), which times
the same code; ``--python`` runs this script again under another interpreter (it needs numpy
there; ``rse_core.search.greedy`` is loaded on its own, without the rest of the package) so the real
>= 3.12 ``sum`` is used. Each row also checks that the paths pick the same segments.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_search():
    """``rse_core.search.greedy`` alone (numpy only), so an interpreter without the app's packages runs it."""
    for package_name, folder in (("rse_core", ROOT / "rse_core"), ("rse_core.search", ROOT / "rse_core" / "search")):
        package = types.ModuleType(package_name)
        package.__path__ = [str(folder)]
        sys.modules.setdefault(package_name, package)
    for name, path in (("rse_core.errors", "errors.py"), ("rse_core.search.greedy", "search/greedy.py")):
        spec = importlib.util.spec_from_file_location(name, ROOT / "rse_core" / path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules["rse_core.search.greedy"]


def timed(search, values, *, sequential: bool, many_ties: float) -> tuple[float, list]:
    search._SUM_IS_SEQUENTIAL, search._MANY_TIES = sequential, many_ties
    start = time.perf_counter()
    result = search.find_best_segments(values, max_length=20, overall_max_length=30, minimum_value=0.0)
    return time.perf_counter() - start, [(s.start, s.end, s.score) for s in result]


def run_here(sizes: list[int], legacy_max: int) -> None:
    import numpy as np

    search = load_search()
    version = ".".join(map(str, sys.version_info[:3]))
    native = "<= 3.11: sequential sum" if sys.version_info < (3, 12) else ">= 3.12: compensated sum"
    print(f"Python {version} ({native}); all-zero values, max_length 20, overall 30, minimum 0")
    print(f"{'chunks':>8} {'sequential':>11} {'ties':>9} {'ratio':>6} {'ties, one by one':>17}  same")
    for n in sizes:
        values = np.zeros(n)
        base, expected = timed(search, values, sequential=True, many_ties=64)
        ties, got = timed(search, values, sequential=False, many_ties=64)
        same = got == expected
        legacy = "-"
        if n <= legacy_max:
            seconds, old = timed(search, values, sequential=False, many_ties=float("inf"))
            legacy, same = f"{seconds:.3f} s", same and old == expected
        print(f"{n:>8,} {base:>9.3f} s {ties:>7.3f} s {ties / base:>5.1f}x {legacy:>17}  {same}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5000,20000,100000", help="comma-separated chunk counts")
    parser.add_argument("--legacy-max", type=int, default=5000, help="largest n for the one-by-one path")
    parser.add_argument("--python", help="also run under this interpreter (needs numpy)")
    parser.add_argument("--here-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    run_here(sizes, args.legacy_max)
    if args.python and not args.here_only:
        print()
        command = [args.python, __file__, "--here-only", "--sizes", args.sizes, "--legacy-max", str(args.legacy_max)]
        return subprocess.run(command).returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
