"""Benchmark: the exact solver (rse_core.search.optimal) against the greedy search on the same values.

Run from the project root:

    python bench/optimal.py            # n = 1,000 and 10,000 chunks, dsRAG's presets, 1 or 3 queries

The input is ``segment_search.py``'s seeded, simulated corpus, turned into chunk values by our
``chunk_values`` for each preset. Each row: n, preset, queries, the greedy's time and the exact
solver's (best of a few runs, same process, interleaved), the ratio exact / greedy, and both
totals with the gap (how much value the greedy leaves behind on this input).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from segment_search import simulate_corpus, values_for  # noqa: E402

from rse_core.params import preset  # noqa: E402
from rse_core.search import find_best_segments  # noqa: E402
from rse_core.search.optimal import find_optimal_segments, total_value  # noqa: E402

SIZES = (1_000, 10_000)
PRESETS = ("balanced", "precision", "find_all")
QUERY_COUNTS = (1, 3)


def best_of(function, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{'n':>7} {'preset':<10} {'q':>2} {'greedy ms':>10} {'exact ms':>10} {'exact/greedy':>13}"
        f" {'greedy':>8} {'optimal':>8} {'gap':>6}"
    )
    for n in SIZES:
        for queries in QUERY_COUNTS:
            corpus = simulate_corpus(n, queries, args.seed)
            for name in PRESETS:
                params = preset(name)
                values = values_for(corpus, params)
                limits = {
                    "max_length": params.max_length,
                    "overall_max_length": params.overall_max_length,
                    "minimum_value": params.minimum_value,
                    "document_splits": corpus.splits[:-1],
                }
                greedy_time, greedy = best_of(lambda v=values, k=limits: find_best_segments(v, **k), args.repeats)
                exact_time, exact = best_of(lambda v=values, k=limits: find_optimal_segments(v, **k), args.repeats)
                greedy_total, exact_total = total_value(greedy), total_value(exact)
                print(
                    f"{n:>7} {name:<10} {queries:>2} {greedy_time * 1e3:>10.2f} {exact_time * 1e3:>10.1f} "
                    f"{exact_time / greedy_time:>12.0f}x {greedy_total:>8.2f} {exact_total:>8.2f} "
                    f"{exact_total - greedy_total:>6.2f}"
                )
                if exact_total < greedy_total - 1e-9:
                    print("error: the exact solver is worse than the greedy search", file=sys.stderr)
                    return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
