"""Benchmark: our segment search (rse_core.search.find_best_segments) against dsRAG's get_best_segments.

Run from the project root:

    python bench/segment_search.py            # n = 1,000 / 10,000 / 100,000 chunks
    python bench/segment_search.py --quick    # n = 1,000 / 10,000 only (CI smoke)

For every n, each of dsRAG's presets (balanced, precision, find_all) and one or three queries, both
functions get the identical input: the same list of Python floats per query (made by our
``chunk_values`` from simulated calibrated scores), the same document splits and the same limits
(max_length, overall_max_length, minimum_value of the preset). The table shows the best-of-R time
of ours, dsRAG's time, the ratio dsRAG / ours and whether segments and scores are identical.
dsRAG runs in-process (interleaved with ours, best of a few) for n <= 10,000; above that it runs
once in a subprocess killed after ``--cap`` seconds ("> cap" and a lower-bound ratio if so).

Exit code: 0 if every compared output is identical, 1 if any differs.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from rse_core.params import RSEParams, preset  # noqa: E402
from rse_core.search import find_best_segments  # noqa: E402
from rse_core.values import chunk_values  # noqa: E402

PRESETS = ("balanced", "precision", "find_all")
FULL_SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
QUERY_COUNTS = (1, 3)
IN_PROCESS_MAX_N = 10_000  # above this, dsRAG runs once in a subprocess with a time cap
TARGET_RATIO = 100.0
STARTUP_TIMEOUT = 60.0  # seconds for the dsRAG worker to start and load its input

# Run by the subprocess: load the input, time dsRAG once, write the output.
_WORKER = """
import pickle, sys, time
from dsrag.rse import get_best_segments
with open(sys.argv[1], "rb") as f:
    job = pickle.load(f)
open(sys.argv[3], "w").close()  # tell the parent the timed call starts now
t0 = time.perf_counter()
segments, scores = get_best_segments(job["values"], job["splits"], job["max_length"],
                                     job["overall_max_length"], job["minimum_value"])
elapsed = time.perf_counter() - t0
with open(sys.argv[2], "wb") as f:
    pickle.dump({"segments": segments, "scores": scores, "seconds": elapsed}, f)
"""


# --------------------------------------------------------------------------------------------
# Simulated input
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """Simulated calibrated scores in [0, 1] (one array per query), chunk lengths and splits."""

    calibrated: list[np.ndarray]
    chunk_lengths: np.ndarray
    splits: list[int]  # start of every document after the first, then n (as dsRAG's meta-document)


def simulate_corpus(n: int, n_queries: int, seed: int) -> Corpus:
    """A set of documents of ~300 chunks, scored by a reranker-like model for each query.

    Most chunks are irrelevant (calibrated score near 0); each query has a few relevant sections
    (runs of 3-25 chunks scoring 0.5-0.95, uneven inside, with weaker shoulders around them); one
    or two documents are on-topic (slightly raised scores throughout); a few isolated chunks are
    false positives. Queries share half of their sections, the rest are their own.
    """
    rng = np.random.default_rng(seed)
    chunk_lengths = rng.integers(500, 801, size=n)

    starts = [0]
    while starts[-1] + 360 < n:
        starts.append(starts[-1] + int(rng.integers(240, 361)))
    splits = [*starts[1:], n]
    doc_bounds = list(zip(starts, splits, strict=False))

    # What every query sees alike: the chunk's "topicality" noise.
    background = rng.beta(1.2, 14.0, size=n)
    on_topic_docs = rng.choice(len(doc_bounds), size=min(2, len(doc_bounds)), replace=False)
    for doc in on_topic_docs:
        lo, hi = doc_bounds[doc]
        background[lo:hi] += rng.uniform(0.05, 0.15)

    def random_section() -> tuple[int, int, float]:
        lo, hi = doc_bounds[int(rng.integers(len(doc_bounds)))]
        length = int(rng.integers(3, 26))
        start = int(rng.integers(lo, max(lo + 1, hi - length)))
        return start, min(length, hi - start), float(rng.uniform(0.6, 0.95))

    n_sections = 3 + round(math.log10(max(n, 10)))  # 6 at 1k, 7 at 10k, 8 at 100k
    shared = [random_section() for _ in range(n_sections)]

    calibrated = []
    for query in range(n_queries):
        sections = shared if query == 0 else shared[: n_sections // 2] + [random_section() for _ in range(3)]
        scores = background + rng.normal(0.0, 0.03, size=n)
        for start, length, peak in sections:
            inside = peak * rng.uniform(0.6, 1.0, size=length)
            inside[rng.random(length) < 0.2] *= rng.uniform(0.1, 0.5)  # headers, tables, asides
            scores[start : start + length] = np.maximum(scores[start : start + length], inside)
            for side in range(1, 4):  # shoulders: neighbours are partly relevant
                weight = peak * 0.5 / side * rng.uniform(0.5, 1.0)
                for index in (start - side, start + length - 1 + side):
                    if 0 <= index < n:
                        scores[index] = max(scores[index], weight)
        false_positives = rng.choice(n, size=max(2, n // 1000), replace=False)
        scores[false_positives] = np.maximum(scores[false_positives], rng.uniform(0.4, 0.9, size=len(false_positives)))
        calibrated.append(np.clip(scores, 0.0, 1.0))
    return Corpus(calibrated, chunk_lengths, splits)


def values_for(corpus: Corpus, params: RSEParams) -> list[np.ndarray]:
    """One float64 array per query: our chunk values for the preset's parameters.

    Each search gets these values in the container its own pipeline produces: ours the arrays
    that ``chunk_values`` returns, dsRAG the lists of Python floats that its
    ``get_relevance_values`` returns (``array.tolist()``: the same numbers, bit for bit).
    """
    return [chunk_values(scores, params, chunk_lengths=corpus.chunk_lengths).value for scores in corpus.calibrated]


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def timed(function: Callable[[], object]) -> tuple[float, object]:
    """Seconds for one call (garbage collection off during the call, as timeit does)."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        result = function()
        return time.perf_counter() - start, result
    finally:
        if enabled:
            gc.enable()


def per_call(function: Callable[[], object], minimum_seconds: float = 0.02) -> float:
    """Seconds per call, from a loop of calls lasting at least ``minimum_seconds``."""
    calls = 1
    while True:
        seconds, _ = timed(lambda repeat=calls: [function() for _ in range(repeat)])
        if seconds >= minimum_seconds:
            return seconds / calls
        calls *= 2


@dataclass
class Row:
    n: int
    preset: str
    queries: int
    nonneg: int  # chunks with a non-negative value (query 0), what both searches start from
    ours_s: float
    ours_list_s: float  # ours when handed dsRAG's lists of Python floats (includes conversion)
    dsrag_s: float | None  # None: over the cap
    picks: int
    match: bool | None  # None: not compared (dsRAG over the cap)
    dsrag_runs: int

    @property
    def ratio(self) -> float:
        return (self.dsrag_s if self.dsrag_s is not None else math.nan) / self.ours_s


def run_case(n: int, preset_name: str, n_queries: int, corpus: Corpus, args: argparse.Namespace) -> Row:
    params = preset(preset_name)
    arrays = values_for(corpus, params)
    values = [array.tolist() for array in arrays]
    splits = list(corpus.splits)
    limits = dict(
        max_length=params.max_length,
        overall_max_length=params.overall_max_length,
        minimum_value=params.minimum_value,
    )
    ours_input = arrays[0] if n_queries == 1 else arrays
    list_input = values[0] if n_queries == 1 else values

    def ours() -> object:
        return find_best_segments(ours_input, document_splits=splits, **limits)

    ours_times: list[float] = []
    result = None

    def time_ours(repeats: int) -> None:
        # Ours takes well under a millisecond: time loops of calls (as timeit does) so one
        # sample is not dominated by a cold cache or the timer's resolution.
        nonlocal result
        _, result = timed(ours)
        for _ in range(repeats):
            ours_times.append(per_call(ours))

    repeats = args.repeats if n <= IN_PROCESS_MAX_N else max(3, args.repeats // 2)
    if n <= IN_PROCESS_MAX_N:
        from dsrag.rse import get_best_segments

        def theirs() -> object:
            return get_best_segments(
                values, splits, limits["max_length"], limits["overall_max_length"], limits["minimum_value"]
            )

        dsrag_times = []
        reference = None
        dsrag_runs = max(1, args.dsrag_repeats)
        # Interleave: ours, dsRAG, ours, dsRAG, ... so both see the same machine load.
        per_round = max(1, repeats // dsrag_runs)
        for round_ in range(dsrag_runs):
            time_ours(per_round if round_ < dsrag_runs - 1 else max(1, repeats - per_round * (dsrag_runs - 1)))
            seconds, reference = timed(theirs)
            dsrag_times.append(seconds)
        dsrag_s: float | None = min(dsrag_times)
    else:
        time_ours(max(1, repeats // 2))
        dsrag_s, reference = run_dsrag_capped(values, splits, limits, args.cap)
        time_ours(repeats - max(1, repeats // 2))
        dsrag_runs = 1

    from_lists = min(
        per_call(lambda: find_best_segments(list_input, document_splits=splits, **limits)) for _ in range(3)
    )
    ours_segments = [(segment.start, segment.end) for segment in result]
    ours_scores = [segment.score for segment in result]
    if reference is None:
        match = None
    else:
        ref_segments, ref_scores = reference
        match = ours_segments == ref_segments and ours_scores == ref_scores
    return Row(
        n=n,
        preset=preset_name,
        queries=n_queries,
        nonneg=sum(1 for value in values[0] if value >= 0),
        ours_s=min(ours_times),
        ours_list_s=from_lists,
        dsrag_s=dsrag_s,
        picks=len(result),
        match=match,
        dsrag_runs=dsrag_runs,
    )


def run_dsrag_capped(
    values: list[list[float]], splits: list[int], limits: dict, cap: float
) -> tuple[float | None, tuple[list, list] | None]:
    """dsRAG once in a subprocess: (seconds, (segments, scores)), or (None, None) after ``cap`` s.

    The cap counts from the moment the worker has loaded its input and starts the timed call, so
    interpreter start-up and unpickling do not eat into it and "> cap" is a true lower bound.
    """
    with tempfile.TemporaryDirectory(prefix="rse-bench-") as folder:
        job_path, out_path, ready_path = (os.path.join(folder, name) for name in ("job.pkl", "out.pkl", "ready"))
        with open(job_path, "wb") as handle:
            pickle.dump({"values": values, "splits": splits, **limits}, handle)
        worker = subprocess.Popen([sys.executable, "-c", _WORKER, job_path, out_path, ready_path])
        try:
            startup_deadline = time.monotonic() + STARTUP_TIMEOUT
            while not os.path.exists(ready_path) and worker.poll() is None:
                if time.monotonic() > startup_deadline:
                    raise RuntimeError(f"the dsRAG worker did not start within {STARTUP_TIMEOUT:.0f} s")
                time.sleep(0.005)
            try:
                code = worker.wait(timeout=cap)
            except subprocess.TimeoutExpired:
                return None, None
        finally:
            if worker.poll() is None:  # only the worker this function started
                worker.kill()
                worker.wait()
        if code != 0:
            raise RuntimeError(f"the dsRAG worker failed (exit code {code})")
        with open(out_path, "rb") as handle:
            out = pickle.load(handle)
    return out["seconds"], (out["segments"], out["scores"])


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------

HEADER = (
    f"{'n':>7}  {'preset':<9}  {'queries':>7}  {'nonneg':>6}  {'picks':>5}  "
    f"{'ours ms':>9}  {'dsRAG ms':>11}  {'ratio':>8}  {'ours/list ms':>12}  {'ratio/list':>10}  identical"
)


def format_row(row: Row, cap: float) -> str:
    if row.dsrag_s is None:
        dsrag = f"> {cap * 1e3:.0f}"
        ratio = f">={cap / row.ours_s:.0f}x"
    else:
        dsrag = f"{row.dsrag_s * 1e3:.2f}"
        ratio = f"{row.ratio:.1f}x"
    list_ratio = f"{row.dsrag_s / row.ours_list_s:.1f}x" if row.dsrag_s is not None else "n/a"
    identical = {True: "yes", False: "NO", None: "n/a"}[row.match]
    return (
        f"{row.n:>7}  {row.preset:<9}  {row.queries:>7}  {row.nonneg:>6}  {row.picks:>5}  "
        f"{row.ours_s * 1e3:>9.2f}  {dsrag:>11}  {ratio:>8}  "
        f"{row.ours_list_s * 1e3:>12.2f}  {list_ratio:>10}  {identical}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="only n = 1,000 and 10,000 (CI smoke)")
    parser.add_argument("--seed", type=int, default=2024, help="base seed of the simulated corpora")
    parser.add_argument("--repeats", type=int, default=9, help="timed runs of ours (best is kept)")
    parser.add_argument("--dsrag-repeats", type=int, default=3, help="timed runs of dsRAG for n <= 10,000")
    parser.add_argument(
        "--cap", type=float, default=120.0, help="seconds after which a dsRAG run is stopped (n > 10,000)"
    )
    args = parser.parse_args(argv)

    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    print(
        f"segment search: rse_core.find_best_segments (ours) vs dsrag.rse.get_best_segments; "
        f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cpu(s)"
    )
    print(
        f"ours: best of {args.repeats} (n <= {IN_PROCESS_MAX_N}) or {max(3, args.repeats // 2)}; "
        f"dsRAG: best of {args.dsrag_repeats} interleaved (n <= {IN_PROCESS_MAX_N}), "
        f"else 1 run capped at {args.cap:g} s; "
        f"ratio = dsRAG / ours; nonneg = chunks with value >= 0 (query 0)"
    )
    print(
        "inputs: ours gets the float64 arrays chunk_values returns, dsRAG the same numbers as Python lists "
        "(what its get_relevance_values returns); 'ours/list' hands ours those lists too (conversion included)"
    )
    print()
    print(HEADER)
    print("-" * len(HEADER))
    began = time.perf_counter()
    rows: list[Row] = []
    for n in sizes:
        for n_queries in QUERY_COUNTS:
            corpus = simulate_corpus(n, n_queries, seed=args.seed + n + 7 * n_queries)
            for preset_name in PRESETS:
                row = run_case(n, preset_name, n_queries, corpus, args)
                rows.append(row)
                print(format_row(row, args.cap), flush=True)
    print("-" * len(HEADER))

    compared = [row for row in rows if row.match is not None]
    differing = [row for row in compared if not row.match]
    capped = [row for row in rows if row.dsrag_s is None]
    print(
        f"{len(compared)}/{len(rows)} cases compared, {len(differing)} differ"
        + (f", {len(capped)} dsRAG run(s) over the {args.cap:g} s cap (not compared)" if capped else "")
        + f"; total bench time {time.perf_counter() - began:.1f} s"
    )
    key = next(row for row in rows if row.n == 10_000 and row.preset == "find_all" and row.queries == 1)
    dsrag_ms = f"> {args.cap * 1e3:.0f}" if key.dsrag_s is None else f"{key.dsrag_s * 1e3:.2f}"
    ratio = f">= {args.cap / key.ours_s:.0f}x" if key.dsrag_s is None else f"{key.ratio:.1f}x"
    identical = {True: "yes", False: "no", None: "n/a"}[key.match]
    print(
        f"n=10000 find_all: ours {key.ours_s * 1e3:.2f} ms, dsRAG {dsrag_ms} ms, ratio {ratio} "
        f"(target >= {TARGET_RATIO:.0f}x), outputs identical: {identical}"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
